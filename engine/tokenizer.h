// The two tokenizers of llama.cpp's GGUFs, built from the file's vocabulary:
// - "gpt2": byte-level BPE (SmolLM2, Llama 3, Qwen): pre-tokenized pieces, merges applied by rank;
// - "llama": SentencePiece-style (Gemma, Llama 2): spaces become U+2581, adjacent pieces merge while the merged
//   text is a token, highest score first; what never forms a token falls back to its bytes' <0xXX> tokens.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gguf/gguf.h"
#include "engine/pretokenizer.h"

namespace rooftop::engine {

// SmolLM2-Instruct's default system prompt (from its chat template).
inline constexpr const char* kSmolLM2SystemPrompt = "You are a helpful AI assistant named SmolLM, trained by Hugging Face";

class Tokenizer {
 public:
  // Reads tokenizer.ggml.{model,pre,tokens,merges|scores,token_type,bos_token_id,eos_token_id,add_bos_token,
  // add_space_prefix}. InputError if the model is neither "gpt2" nor "llama" or the vocabulary is inconsistent.
  static Tokenizer from_gguf(const GgufFile& g);
  // The same, moving the vocabulary's strings out of g's metadata instead of copying them (g keeps an empty
  // tokenizer.ggml.tokens): one copy of a large vocabulary in memory, not two. rooftop run uses it.
  static Tokenizer take_from_gguf(GgufFile& g);

  // Token ids of `text` (no BOS: see prompt_ids). parse_special: control tokens written in the text
  // (<|im_start|>, <start_of_turn>...) become their ids; otherwise they are ordinary text. User-defined tokens
  // (Gemma's runs of newlines or tabs) always match, as in llama.cpp.
  std::vector<int32_t> encode(std::string_view text, bool parse_special = false) const;
  // Bytes that have no token of their own (SmolLM2: 0x04 0x06 0x13 0x14 0x16 0x1D, and lead bytes of
  // U+40000..U+BFFFF and non-UTF-8 bytes) are dropped, as llama.cpp does: the model cannot see them.
  bool byte_has_token(uint8_t b) const { return byte_token_[b] >= 0; }
  // The bytes the ids stand for (control tokens give their own text). decode(encode(t)) == t.
  std::string decode(std::span<const int32_t> ids) const;
  std::string piece(int32_t id) const;  // the bytes of one token

  // The ids a prompt runs as: BOS first when the file asks for it (tokenizer.ggml.add_bos_token), then encode().
  std::vector<int32_t> prompt_ids(std::string_view text, bool parse_special) const;

  // The chat prompt for one user turn, ending with the assistant's role marker, in the vocabulary's template:
  // Gemma's turns (<start_of_turn>user ... <end_of_turn>, the system text leading the user turn) when the
  // vocabulary has them; Llama 3's headers (<|start_header_id|>user<|end_header_id|>\n\n ... <|eot_id|>) when it
  // has those; else ChatML (SmolLM2, Qwen). A missing `system` is the template's default (SmolLM2's own system
  // prompt for SmolLM2's vocabulary; none otherwise, as llama.cpp's built-in templates); an empty one leaves it out.
  std::string chat_prompt(std::string_view user, std::optional<std::string_view> system = std::nullopt) const;
  static std::string chatml_prompt(std::string_view user, std::string_view system = kSmolLM2SystemPrompt);
  // A conversation (user and assistant turns in order, the last a user turn) in the same templates, ending with
  // the assistant's role marker; the one-turn forms above are its case of a single user turn.
  struct ChatTurn {
    bool assistant = false;
    std::string_view text;
  };
  std::string chat_prompt(std::span<const ChatTurn> turns, std::optional<std::string_view> system = std::nullopt) const;
  static std::string chatml_prompt(std::span<const ChatTurn> turns, std::string_view system);
  bool gemma_turns() const { return start_of_turn_ >= 0; }
  bool llama3_turns() const { return start_header_ >= 0; }

  int32_t vocab_size() const { return int32_t(tokens_.size()); }
  std::optional<int32_t> find_token(std::string_view vocab_text) const;  // by its vocabulary string
  const std::string& vocab_text(int32_t id) const { return tokens_.at(size_t(id)); }
  bool is_control(int32_t id) const;
  int32_t bos_id() const { return bos_id_; }
  int32_t eos_id() const { return eos_id_; }
  bool add_bos() const { return add_bos_; }
  // Ids that end generation: eos plus <|im_end|>, <|endoftext|>, <end_of_turn>, <|eot_id|> and <|eom_id|> where present.
  const std::vector<int32_t>& stop_ids() const { return stop_ids_; }

 private:
  static Tokenizer build(const GgufFile& g, std::vector<std::string>* take);
  void encode_piece(std::string_view piece, std::vector<int32_t>& out) const;
  void encode_spm(std::string_view text, std::vector<int32_t>& out) const;

  bool spm_ = false;                      // "llama" (SentencePiece-style) rather than "gpt2"
  bool add_bos_ = false, add_space_prefix_ = false;
  std::vector<float> scores_;             // SPM: merge priority of each token (higher first)
  int32_t start_of_turn_ = -1;            // Gemma's chat turn marker, if the vocabulary has it
  int32_t start_header_ = -1;             // Llama 3's <|start_header_id|>, if the vocabulary has it
  PreTokenizer pre_ = PreTokenizer::gpt2;
  std::vector<std::string> tokens_;       // vocabulary strings (byte-mapped form)
  std::vector<int32_t> types_;            // 1 normal, 2 unknown, 3 control, 4 user-defined, 5 unused, 6 byte
  // Ids sorted by their vocabulary string (equal strings: lower id first, which find_token returns): a binary
  // search costs 4 bytes per token where a hash map cost ~50 (13 MB for Gemma's 262,144 tokens).
  std::vector<int32_t> sorted_ids_;
  struct Merge {
    int32_t rank;
    int32_t result;
  };
  std::unordered_map<uint64_t, Merge> merges_;  // (left id << 32 | right id) -> rank and merged id
  int32_t byte_token_[256] = {};                // id of each single byte's token (SPM: its <0xXX> token)
  std::vector<int32_t> specials_;               // control/user-defined ids matched in text, longest first
  std::vector<int32_t> special_first_[256];     // specials_ by first byte (same order)
  int32_t bos_id_ = -1, eos_id_ = -1;
  std::vector<int32_t> stop_ids_;
};

}  // namespace rooftop::engine
