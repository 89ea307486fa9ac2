// Fuzz target: GGUF bytes through every reader of them: the header parser, the model-spec importer
// (and the analyzer's parameter count), the engine's loader and the tokenizer built from the vocabulary.
// Bad input must end in InputError; anything else (a crash, a hang, another exception) is a finding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/params.h"
#include "base/errors.h"
#include "gguf/gguf.h"
#include "engine/model.h"
#include "engine/tokenizer.h"
#include "models/models.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rooftop;
  engine::GgufFile f;
  try {
    f = engine::parse_gguf(reinterpret_cast<const std::byte*>(data), size, "fuzz.gguf");
  } catch (const InputError&) {
    return 0;
  }
  try {
    const ModelSpec m = models::from_gguf(f);
    (void)count_params(m);
  } catch (const InputError&) {
  }
  try {
    (void)engine::load_llama(f);
  } catch (const InputError&) {
  }
  try {
    const auto tok = engine::Tokenizer::from_gguf(f);
    for (const char* text : {"Hello, world!", "<|im_start|>user\n12345 caf\xc3\xa9 \xf0\x9f\x98\x80"})
      for (int32_t id : tok.encode(text, true)) (void)tok.decode(std::vector<int32_t>{id});
  } catch (const InputError&) {
  }
  return 0;
}
