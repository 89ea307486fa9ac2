// Fuzz target: arbitrary bytes through the SmolLM2 tokenizer, under its own and Llama 3's pre-tokenizer (encode with and without control tokens,
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

namespace {
// SmolLM2's vocabulary under its own pre-tokenizer, or under `pre` (llama-bpe: Llama 3's regex and ignore_merges).
std::unique_ptr<rooftop::engine::Tokenizer> load(const char* pre) {
  auto file = rooftop::engine::open_gguf(rooftop::engine::require_default_model(), false);
  if (pre) file.metadata.at("tokenizer.ggml.pre").s = pre;
  return std::make_unique<rooftop::engine::Tokenizer>(rooftop::engine::Tokenizer::from_gguf(file));
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::unique_ptr<rooftop::engine::Tokenizer> smollm = load(nullptr), llama3 = load("llama-bpe");
  const std::string text(reinterpret_cast<const char*>(data), size);
  // The Qwen2 pattern's pieces must rebuild the text too (it has no vocabulary here).
  std::string joined;
  for (auto p : rooftop::engine::pretokenize(text, rooftop::engine::PreTokenizer::qwen2)) joined += p;
  if (joined != text) {
    std::fprintf(stderr, "qwen2 pieces do not rebuild the %zu-byte text\n", text.size());
    std::abort();
  }
  for (const auto* tok : {smollm.get(), llama3.get()}) {
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
  }
  return 0;
}
