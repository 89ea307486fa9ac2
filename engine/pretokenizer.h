// The pre-tokenizer: splits text into pieces before BPE (GPT-2's pattern; "smollm" also splits digits).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace rooftop::engine {

enum class PreTokenizer {
  gpt2,    // 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
  smollm,  // \p{N} (each digit alone) first, then the gpt2 pattern on what lies between
};

// Maps GGUF's tokenizer.ggml.pre ("gpt2", "smollm", absent = gpt2); InputError naming the
// supported values for anything else.
PreTokenizer pre_tokenizer_from_name(const std::string& name, const std::string& file);

// The pieces, in order; their concatenation is `text` byte for byte (invalid UTF-8 included).
std::vector<std::string_view> pretokenize(std::string_view text, PreTokenizer kind);

}  // namespace rooftop::engine
