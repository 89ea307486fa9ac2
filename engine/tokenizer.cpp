// Byte-level BPE: bytes map to printable code points (GPT-2's table), pieces merge by rank.
// SentencePiece-style (llama.cpp's llm_tokenizer_spm): UTF-8 characters merge by vocabulary score.
#include "engine/tokenizer.h"

#include <algorithm>
#include <cstdio>
#include <queue>

#include "base/errors.h"
#include "engine/unicode_class.h"

namespace rooftop::engine {
namespace {

// GPT-2's byte <-> code point table: printable Latin-1 bytes stand for themselves, the other 68
// bytes take the code points 256, 257, ... in byte order.
struct ByteMap {
  uint32_t to_cp[256];
  int16_t from_cp[512];  // code point -> byte, -1 if not a mapped byte
  ByteMap() {
    std::fill(std::begin(from_cp), std::end(from_cp), int16_t(-1));
    uint32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
      to_cp[b] = printable ? uint32_t(b) : next++;
      from_cp[to_cp[b]] = int16_t(b);
    }
  }
};
const ByteMap& byte_map() {
  static const ByteMap m;
  return m;
}

void append_utf8(std::string& s, uint32_t cp) {
  if (cp < 0x80) {
    s += char(cp);
  } else if (cp < 0x800) {
    s += char(0xC0 | (cp >> 6));
    s += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    s += char(0xE0 | (cp >> 12));
    s += char(0x80 | ((cp >> 6) & 0x3F));
    s += char(0x80 | (cp & 0x3F));
  } else {
    s += char(0xF0 | (cp >> 18));
    s += char(0x80 | ((cp >> 12) & 0x3F));
    s += char(0x80 | ((cp >> 6) & 0x3F));
    s += char(0x80 | (cp & 0x3F));
  }
}

const GgufValue& require_array(const GgufFile& g, const std::string& key, GgufType elem) {
  const GgufValue* v = g.find(key);
  if (!v || v->type != GgufType::array || (v->array_size() > 0 && v->elem_type != elem))
    throw InputError(g.path + ": missing or malformed '" + key + "' (expected an array of " + gguf_type_name(elem) +
                     ")");
  return *v;
}

}  // namespace

Tokenizer Tokenizer::from_gguf(const GgufFile& g) { return build(g, nullptr); }

Tokenizer Tokenizer::take_from_gguf(GgufFile& g) {
  require_array(g, "tokenizer.ggml.tokens", GgufType::string);  // checked before anything is moved
  return build(g, &g.metadata.at("tokenizer.ggml.tokens").strings);
}

Tokenizer Tokenizer::build(const GgufFile& g, std::vector<std::string>* take) {
  std::string model = g.get_string("tokenizer.ggml.model").value_or("");
  if (model != "gpt2" && model != "llama")
    throw InputError(g.path + ": tokenizer.ggml.model is '" + model +
                     "'; supported: 'gpt2' (byte-level BPE), 'llama' (SentencePiece-style)");
  Tokenizer t;
  t.spm_ = model == "llama";
  if (!t.spm_) t.pre_ = pre_tokenizer_from_name(g.get_string("tokenizer.ggml.pre").value_or(""), g.path);
  auto flag = [&](const char* key, bool dflt) {
    const GgufValue* v = g.find(key);
    return v && v->type == GgufType::boolean ? v->i != 0 : dflt;
  };
  // llama.cpp's default: BOS for SPM vocabularies and for Llama 3's (<|begin_of_text|>); the file's key decides.
  t.add_bos_ = flag("tokenizer.ggml.add_bos_token", t.spm_ || t.pre_ == PreTokenizer::llama3);
  t.add_space_prefix_ = flag("tokenizer.ggml.add_space_prefix", t.spm_);
  if (take) t.tokens_ = std::move(*take);
  else t.tokens_ = require_array(g, "tokenizer.ggml.tokens", GgufType::string).strings;
  if (t.tokens_.empty() || t.tokens_.size() > size_t(INT32_MAX))
    throw InputError(g.path + ": tokenizer.ggml.tokens has " + std::to_string(t.tokens_.size()) + " entries");
  const int32_t n = int32_t(t.tokens_.size());
  t.types_.assign(size_t(n), 1);
  if (g.find("tokenizer.ggml.token_type")) {
    const auto& types = require_array(g, "tokenizer.ggml.token_type", GgufType::int32).ints;
    if (types.size() != size_t(n))
      throw InputError(g.path + ": tokenizer.ggml.token_type has " + std::to_string(types.size()) +
                       " entries; expected one per token (" + std::to_string(n) + ")");
    for (int32_t i = 0; i < n; ++i) t.types_[size_t(i)] = int32_t(types[size_t(i)]);
  }
  t.sorted_ids_.resize(size_t(n));
  for (int32_t i = 0; i < n; ++i) t.sorted_ids_[size_t(i)] = i;
  std::stable_sort(t.sorted_ids_.begin(), t.sorted_ids_.end(),  // stable: equal strings keep the lower id first
                   [&](int32_t a, int32_t b) { return t.tokens_[size_t(a)] < t.tokens_[size_t(b)]; });

  if (t.spm_) {
    const auto& scores = require_array(g, "tokenizer.ggml.scores", GgufType::float32).floats;
    if (scores.size() != size_t(n))
      throw InputError(g.path + ": tokenizer.ggml.scores has " + std::to_string(scores.size()) +
                       " entries; expected one per token (" + std::to_string(n) + ")");
    t.scores_.assign(scores.begin(), scores.end());
    int found = 0;
    for (int b = 0; b < 256; ++b) {
      char name[8];
      std::snprintf(name, sizeof name, "<0x%02X>", b);
      auto id = t.find_token(name);
      t.byte_token_[b] = id ? *id : -1;
      found += id.has_value();
    }
    if (found != 256)
      throw InputError(g.path + ": the vocabulary has " + std::to_string(found) +
                       " of the 256 <0xXX> byte tokens; a SentencePiece vocabulary needs all of them (byte fallback)");
  } else {
    const ByteMap& bm = byte_map();
    int letters = 0;
    for (int b = 0; b < 256; ++b) {
      std::string s;
      append_utf8(s, bm.to_cp[b]);
      auto id = t.find_token(s);
      t.byte_token_[b] = id ? *id : -1;  // SmolLM2 lacks 21 bytes (6 C0 controls, bytes unused by UTF-8 text)
      if (id && b >= 'a' && b <= 'z') ++letters;
    }
    if (letters != 26) throw InputError(g.path + ": the vocabulary lacks single-byte tokens (not a byte-level BPE vocabulary)");
    const auto& merges = require_array(g, "tokenizer.ggml.merges", GgufType::string).strings;
    t.merges_.reserve(merges.size());
    for (size_t r = 0; r < merges.size(); ++r) {
      const std::string& m = merges[r];
      size_t sp = m.find(' ', 1);  // the left part is never empty
      if (sp == std::string::npos)
        throw InputError(g.path + ": merge " + std::to_string(r) + " '" + m + "' is not 'left right'");
      auto l = t.find_token(std::string_view(m).substr(0, sp));
      auto rt = t.find_token(std::string_view(m).substr(sp + 1));
      auto res = t.find_token(m.substr(0, sp) + m.substr(sp + 1));
      if (!l || !rt || !res) continue;  // a merge whose parts are not tokens can never apply
      uint64_t key = (uint64_t(uint32_t(*l)) << 32) | uint32_t(*rt);
      t.merges_.emplace(key, Merge{int32_t(r), *res});
    }
  }
  for (int32_t i = 0; i < n; ++i)
    if ((t.types_[size_t(i)] == 3 || t.types_[size_t(i)] == 4) && !t.tokens_[size_t(i)].empty()) t.specials_.push_back(i);
  std::stable_sort(t.specials_.begin(), t.specials_.end(), [&](int32_t a, int32_t b) {
    return t.tokens_[size_t(a)].size() > t.tokens_[size_t(b)].size();
  });
  for (int32_t id : t.specials_) t.special_first_[uint8_t(t.tokens_[size_t(id)][0])].push_back(id);
  auto id_of = [&](const char* key) -> int32_t {
    auto v = g.get_int(key);
    return v && *v >= 0 && *v < n ? int32_t(*v) : -1;
  };
  t.bos_id_ = id_of("tokenizer.ggml.bos_token_id");
  t.eos_id_ = id_of("tokenizer.ggml.eos_token_id");
  if (t.eos_id_ >= 0) t.stop_ids_.push_back(t.eos_id_);
  if (auto id = t.find_token("<start_of_turn>"); id && t.is_control(*id)) t.start_of_turn_ = *id;
  if (auto id = t.find_token("<|start_header_id|>"); id && t.is_control(*id)) t.start_header_ = *id;
  for (const char* s : {"<|im_end|>", "<|endoftext|>", "<end_of_turn>", "<|eot_id|>", "<|eom_id|>"})
    if (auto id = t.find_token(s); id && std::find(t.stop_ids_.begin(), t.stop_ids_.end(), *id) == t.stop_ids_.end())
      t.stop_ids_.push_back(*id);
  return t;
}

std::optional<int32_t> Tokenizer::find_token(std::string_view s) const {
  auto it = std::lower_bound(sorted_ids_.begin(), sorted_ids_.end(), s,
                             [&](int32_t id, std::string_view v) { return std::string_view(tokens_[size_t(id)]) < v; });
  if (it == sorted_ids_.end() || tokens_[size_t(*it)] != s) return std::nullopt;
  return *it;
}

bool Tokenizer::is_control(int32_t id) const {
  return id >= 0 && id < vocab_size() && (types_[size_t(id)] == 3 || types_[size_t(id)] == 4);
}

// BPE on one piece: start from its bytes' tokens; repeatedly merge the adjacent pair of lowest rank
// (leftmost first among equals), using a heap of candidate pairs and a linked list of symbols.
void Tokenizer::encode_piece(std::string_view piece, std::vector<int32_t>& out) const {
  const size_t n = piece.size();
  if (n == 0) return;
  if (pre_ == PreTokenizer::llama3) {  // llama.cpp's ignore_merges (Llama 3 vocabularies): a piece that is a token is that token
    const ByteMap& bm = byte_map();
    std::string text;
    for (char ch : piece) append_utf8(text, bm.to_cp[uint8_t(ch)]);
    if (auto whole = find_token(text)) {
      out.push_back(*whole);
      return;
    }
  }
  std::vector<int32_t> id(n);
  std::vector<int32_t> prev(n), next(n);
  for (size_t i = 0; i < n; ++i) {
    id[i] = byte_token_[uint8_t(piece[i])];
    prev[i] = int32_t(i) - 1;
    next[i] = i + 1 < n ? int32_t(i + 1) : -1;
  }
  struct Cand {
    int32_t rank, pos, left, right;
    bool operator>(const Cand& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
  };
  std::priority_queue<Cand, std::vector<Cand>, std::greater<Cand>> heap;
  auto push = [&](int32_t p) {
    if (p < 0 || next[size_t(p)] < 0) return;
    int32_t q = next[size_t(p)];
    auto it = merges_.find((uint64_t(uint32_t(id[size_t(p)])) << 32) | uint32_t(id[size_t(q)]));
    if (it != merges_.end()) heap.push({it->second.rank, p, id[size_t(p)], id[size_t(q)]});
  };
  for (size_t i = 0; i + 1 < n; ++i) push(int32_t(i));
  while (!heap.empty()) {
    Cand c = heap.top();
    heap.pop();
    int32_t p = c.pos, q = next[size_t(p)];
    if (id[size_t(p)] != c.left || q < 0 || id[size_t(q)] != c.right) continue;  // stale candidate
    id[size_t(p)] = merges_.at((uint64_t(uint32_t(c.left)) << 32) | uint32_t(c.right)).result;
    id[size_t(q)] = -1;  // removed
    next[size_t(p)] = next[size_t(q)];
    if (next[size_t(q)] >= 0) prev[size_t(next[size_t(q)])] = p;
    push(prev[size_t(p)]);
    push(p);
  }
  for (int32_t i = 0; i >= 0; i = next[size_t(i)])
    if (id[size_t(i)] >= 0) out.push_back(id[size_t(i)]);  // bytes without a token are dropped
}

// llama.cpp's llm_tokenizer_spm on one text fragment: start from its UTF-8 characters; repeatedly merge the
// adjacent pair whose joined text is a token of the highest score (leftmost among equals); then emit each
// symbol's token, or split it back along its merges, or emit its bytes' <0xXX> tokens.
void Tokenizer::encode_spm(std::string_view text, std::vector<int32_t>& out) const {
  struct Sym {
    size_t off, len;
    int32_t prev, next;
  };
  std::vector<Sym> sym;
  for (size_t off = 0; off < text.size();) {
    const uint8_t b = uint8_t(text[off]);
    const size_t len = std::min<size_t>(b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4, text.size() - off);
    sym.push_back({off, len, int32_t(sym.size()) - 1, int32_t(sym.size()) + 1});
    off += len;
  }
  if (sym.empty()) return;
  sym.back().next = -1;
  struct Bigram {
    float score;
    int32_t left, right;
    size_t len;
    bool operator<(const Bigram& o) const { return score != o.score ? score < o.score : left > o.left; }
  };
  std::priority_queue<Bigram> queue;
  std::unordered_map<std::string_view, std::pair<int32_t, int32_t>> split;  // merged text -> its two symbols
  auto try_pair = [&](int32_t l, int32_t r) {
    if (l < 0 || r < 0) return;
    const std::string_view joined = text.substr(sym[size_t(l)].off, sym[size_t(l)].len + sym[size_t(r)].len);
    auto id = find_token(joined);
    if (!id) return;
    queue.push({scores_[size_t(*id)], l, r, joined.size()});
    split[joined] = {l, r};
  };
  for (int32_t i = 1; i < int32_t(sym.size()); ++i) try_pair(i - 1, i);
  while (!queue.empty()) {
    const Bigram b = queue.top();
    queue.pop();
    Sym &l = sym[size_t(b.left)], &r = sym[size_t(b.right)];
    if (l.len == 0 || r.len == 0 || l.len + r.len != b.len) continue;  // a side was merged since
    l.len += r.len;
    r.len = 0;
    l.next = r.next;
    if (r.next >= 0) sym[size_t(r.next)].prev = b.left;
    try_pair(l.prev, b.left);
    try_pair(b.left, l.next);
  }
  auto emit = [&](auto& self, int32_t i) -> void {
    const std::string_view piece = text.substr(sym[size_t(i)].off, sym[size_t(i)].len);
    if (auto id = find_token(piece)) {
      out.push_back(*id);
      return;
    }
    auto it = split.find(piece);
    if (it == split.end()) {
      for (char c : piece) out.push_back(byte_token_[uint8_t(c)]);
      return;
    }
    const auto [l, r] = it->second;
    self(self, l);
    self(self, r);
  };
  for (int32_t i = 0; i >= 0; i = sym[size_t(i)].next) emit(emit, i);
}

std::vector<int32_t> Tokenizer::encode(std::string_view text, bool parse_special) const {
  std::vector<int32_t> out;
  bool after_special = true;  // SPM: the first fragment, and each one after a special token, gets the space prefix
  auto encode_plain = [&](std::string_view s) {
    if (s.empty()) return;
    if (spm_) {
      std::string escaped = add_space_prefix_ && after_special ? "\xe2\x96\x81" : "";
      for (char ch : s) {
        if (ch == ' ') escaped += "\xe2\x96\x81";  // U+2581, SentencePiece's space
        else escaped += ch;
      }
      encode_spm(escaped, out);
    } else {
      for (std::string_view p : pretokenize(s, pre_)) encode_piece(p, out);
    }
    after_special = false;
  };
  size_t start = 0;
  for (size_t i = 0; i < text.size();) {
    int32_t hit = -1;
    for (int32_t s : special_first_[uint8_t(text[i])])
      if ((parse_special || types_[size_t(s)] == 4) && text.substr(i).starts_with(tokens_[size_t(s)])) {
        hit = s;
        break;
      }
    if (hit < 0) {
      ++i;
      continue;
    }
    encode_plain(text.substr(start, i - start));
    out.push_back(hit);
    after_special = true;
    i += tokens_[size_t(hit)].size();
    start = i;
  }
  encode_plain(text.substr(start));
  return out;
}

std::vector<int32_t> Tokenizer::prompt_ids(std::string_view text, bool parse_special) const {
  std::vector<int32_t> ids;
  if (add_bos_ && bos_id_ >= 0) ids.push_back(bos_id_);
  const std::vector<int32_t> body = encode(text, parse_special);
  ids.insert(ids.end(), body.begin(), body.end());
  return ids;
}

std::string Tokenizer::piece(int32_t id) const {
  if (id < 0 || id >= vocab_size())
    throw InputError("token id " + std::to_string(id) + " is outside the vocabulary (0.." +
                     std::to_string(vocab_size() - 1) + ")");
  const std::string& t = tokens_[size_t(id)];
  if (is_control(id)) return t;
  if (spm_) {
    if (types_[size_t(id)] == 6) {  // <0xXX>
      for (int b = 0; b < 256; ++b)
        if (byte_token_[b] == id) return std::string(1, char(b));
    }
    std::string text;
    for (size_t i = 0; i < t.size(); ++i) {
      if (t.compare(i, 3, "\xe2\x96\x81") == 0) {
        text += ' ';
        i += 2;
      } else {
        text += t[i];
      }
    }
    return text;
  }
  std::string bytes;
  const ByteMap& bm = byte_map();
  for (size_t i = 0; i < t.size();) {
    size_t len = 1;
    uint32_t cp = decode_utf8(t, i, len);
    if (cp < 512 && bm.from_cp[cp] >= 0)
      bytes += char(bm.from_cp[cp]);
    else
      bytes.append(t, i, len);  // not a mapped byte: keep the text as written
    i += len;
  }
  return bytes;
}

std::string Tokenizer::decode(std::span<const int32_t> ids) const {
  std::string s;
  for (int32_t id : ids) s += piece(id);
  return s;
}

std::string Tokenizer::chat_prompt(std::string_view user, std::optional<std::string_view> system) const {
  const ChatTurn one[1] = {{false, user}};
  return chat_prompt(one, system);
}

std::string Tokenizer::chatml_prompt(std::string_view user, std::string_view system) {
  const ChatTurn one[1] = {{false, user}};
  return chatml_prompt(one, system);
}

std::string Tokenizer::chat_prompt(std::span<const ChatTurn> turns, std::optional<std::string_view> system) const {
  if (llama3_turns()) {  // llama.cpp's LLM_CHAT_TEMPLATE_LLAMA_3; BOS comes from prompt_ids (add_bos)
    std::string s;
    auto turn = [&s](std::string_view role, std::string_view text) {
      s += "<|start_header_id|>";
      s += role;
      s += "<|end_header_id|>\n\n";
      s += text;
      s += "<|eot_id|>";
    };
    if (system && !system->empty()) turn("system", *system);
    for (const ChatTurn& t : turns) turn(t.assistant ? "assistant" : "user", t.text);
    return s + "<|start_header_id|>assistant<|end_header_id|>\n\n";
  }
  if (!gemma_turns()) return chatml_prompt(turns, system.value_or(pre_ == PreTokenizer::smollm ? kSmolLM2SystemPrompt : ""));
  // Gemma 3's template: no system role; a system text leads the first user turn, followed by a blank line.
  std::string s;
  bool first_user = true;
  for (const ChatTurn& t : turns) {
    s += t.assistant ? "<start_of_turn>model\n" : "<start_of_turn>user\n";
    if (!t.assistant && first_user && system && !system->empty()) {
      s += *system;
      s += "\n\n";
    }
    first_user = first_user && t.assistant;
    s += t.text;
    s += "<end_of_turn>\n";
  }
  return s + "<start_of_turn>model\n";
}

std::string Tokenizer::chatml_prompt(std::span<const ChatTurn> turns, std::string_view system) {
  std::string s;
  if (!system.empty()) {  // an empty system turn is left out (a user-only conversation)
    s += "<|im_start|>system\n";
    s += system;
    s += "<|im_end|>\n";
  }
  for (const ChatTurn& t : turns) {
    s += t.assistant ? "<|im_start|>assistant\n" : "<|im_start|>user\n";
    s += t.text;
    s += "<|im_end|>\n";
  }
  return s + "<|im_start|>assistant\n";
}

}  // namespace rooftop::engine
