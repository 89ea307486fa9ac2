// The pre-tokenizer: splits text into pieces before BPE (GPT-2's pattern; "smollm" also splits digits).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace rooftop::engine {

enum class PreTokenizer {
  gpt2,    // 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
  smollm,  // \p{N} (each digit alone) first, then the gpt2 pattern on what lies between
  // Llama 3 (llama.cpp's LLAMA3 pre-type): (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
  // ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
  llama3,
  qwen2,   // the llama3 pattern with \p{N} (one digit per piece) in place of \p{N}{1,3}
};

// Maps GGUF's tokenizer.ggml.pre ("gpt2", "smollm", "llama-bpe" / "llama3" / "llama-v3", "qwen2"; absent = gpt2);
// InputError naming the supported values for anything else.
PreTokenizer pre_tokenizer_from_name(const std::string& name, const std::string& file);

// The pieces, in order; their concatenation is `text` byte for byte (invalid UTF-8 included).
std::vector<std::string_view> pretokenize(std::string_view text, PreTokenizer kind);

}  // namespace rooftop::engine
