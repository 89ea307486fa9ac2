// Fuzz target: arbitrary bytes through the SmolLM2 tokenizer (encode with and without control tokens,
// then decode: plain text must come back less the bytes without a token), built once from the model file that scripts/fetch-model.sh keeps in the cache.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "gguf/gguf.h"
#include "engine/model_path.h"
#include "engine/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::unique_ptr<rooftop::engine::Tokenizer> tok = [] {
    const auto file = rooftop::engine::open_gguf(rooftop::engine::require_default_model(), false);
    return std::make_unique<rooftop::engine::Tokenizer>(rooftop::engine::Tokenizer::from_gguf(file));
  }();
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (bool special : {false, true}) {
    const auto ids = tok->encode(text, special);
    const std::string back = tok->decode(ids);
    // Plain text (no control tokens recognised) comes back byte for byte, less the bytes the
    // vocabulary has no token for (dropped by design, as llama.cpp does).
    if (special) continue;
    std::string expected;
    for (char ch : text)
      if (tok->byte_has_token(static_cast<uint8_t>(ch))) expected += ch;
    if (back != expected) {
      std::fprintf(stderr, "round trip changed %zu bytes into %zu (expected %zu)\n", text.size(), back.size(), expected.size());
      std::abort();
    }
  }
  return 0;
}
