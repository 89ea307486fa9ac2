// The pre-tokenizer regexes (GPT-2's, Llama 3's, Qwen2's) written out by hand over UTF-8 code points (no regex engine).
#include "engine/pretokenizer.h"

#include "base/errors.h"
#include "engine/unicode_class.h"

namespace rooftop::engine {
namespace {

struct Cp {
  uint32_t cp;
  size_t byte;  // offset of its first byte in the text
};

bool is_other(uint32_t c) { return !is_whitespace(c) && !is_letter(c) && !is_number(c); }

// Splits cps[b, e) with the GPT-2 pattern; pushes the pieces' code point bounds.
void split_gpt2(const std::vector<Cp>& cps, size_t b, size_t e, std::vector<std::pair<size_t, size_t>>& out) {
  size_t i = b;
  auto at = [&](size_t k) -> uint32_t { return k < e ? cps[k].cp : 0xFFFFFFFFu; };
  auto run = [&](size_t j, bool (*pred)(uint32_t)) {
    while (j < e && pred(cps[j].cp)) ++j;
    return j;
  };
  while (i < e) {
    uint32_t c = cps[i].cp;
    size_t j = i;
    if (c == '\'') {  // 's|'t|'re|'ve|'m|'ll|'d
      uint32_t n1 = at(i + 1), n2 = at(i + 2);
      if (n1 == 's' || n1 == 't' || n1 == 'm' || n1 == 'd') j = i + 2;
      else if ((n1 == 'r' && n2 == 'e') || (n1 == 'v' && n2 == 'e') || (n1 == 'l' && n2 == 'l')) j = i + 3;
    }
    if (j == i) {
      size_t s = (c == ' ' && i + 1 < e) ? i + 1 : i;  // the optional leading space
      uint32_t d = cps[s].cp;
      if (is_letter(d)) j = run(s, is_letter);                       //  ?\p{L}+
      else if (is_number(d)) j = run(s, is_number);                  //  ?\p{N}+
      else if (is_other(d)) j = run(s, is_other);                    //  ?[^\s\p{L}\p{N}]+
    }
    if (j == i) {  // c is whitespace: \s+(?!\S) then \s+
      size_t k = run(i, is_whitespace);
      j = (k < e && k - i > 1) ? k - 1 : k;
    }
    out.emplace_back(i, j);
    i = j;
  }
}

// Splits cps[b, e) with the Llama 3 pattern (max_digits 3) or Qwen2's (1); pushes the pieces' code point bounds.
// Each alternative is tried in the regex's order at the piece's start; the first that matches wins.
void split_llama3(const std::vector<Cp>& cps, size_t b, size_t e, size_t max_digits,
                  std::vector<std::pair<size_t, size_t>>& out) {
  auto at = [&](size_t k) -> uint32_t { return k < e ? cps[k].cp : 0xFFFFFFFFu; };
  auto run = [&](size_t j, bool (*pred)(uint32_t)) {
    while (j < e && pred(cps[j].cp)) ++j;
    return j;
  };
  auto lower = [](uint32_t c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; };
  auto newline = [](uint32_t c) { return c == '\r' || c == '\n'; };
  for (size_t i = b; i < e;) {
    const uint32_t c = cps[i].cp;
    size_t j = i;
    if (c == '\'') {  // (?i:'s|'t|'re|'ve|'m|'ll|'d)
      const uint32_t n1 = lower(at(i + 1)), n2 = lower(at(i + 2));
      if (n1 == 's' || n1 == 't' || n1 == 'm' || n1 == 'd') j = i + 2;
      else if ((n1 == 'r' && n2 == 'e') || (n1 == 'v' && n2 == 'e') || (n1 == 'l' && n2 == 'l')) j = i + 3;
    }
    if (j == i) {
      if (is_letter(c)) j = run(i, is_letter);  // [^\r\n\p{L}\p{N}]?\p{L}+ without its optional character
      else if (!newline(c) && !is_number(c) && i + 1 < e && is_letter(at(i + 1))) j = run(i + 1, is_letter);  // ... with it
      else if (is_number(c)) {  // \p{N}{1,max_digits}
        j = i;
        while (j < e && j - i < max_digits && is_number(cps[j].cp)) ++j;
      } else {
        const size_t s = (c == ' ' && i + 1 < e && is_other(at(i + 1))) ? i + 1 : i;  // ' ?[^\s\p{L}\p{N}]+[\r\n]*'
        if (is_other(cps[s].cp)) {
          j = run(s, is_other);
          while (j < e && newline(cps[j].cp)) ++j;
        }
      }
    }
    if (j == i) {  // c is whitespace
      const size_t k = run(i, is_whitespace);
      size_t last_newline = i;  // \s*[\r\n]+: the whitespace up to its last line break
      for (size_t m = i; m < k; ++m)
        if (newline(cps[m].cp)) last_newline = m + 1;
      if (last_newline > i) j = last_newline;
      else j = (k < e && k - i > 1) ? k - 1 : k;  // \s+(?!\S), else \s+
    }
    out.emplace_back(i, j);
    i = j;
  }
}

}  // namespace

PreTokenizer pre_tokenizer_from_name(const std::string& name, const std::string& file) {
  if (name.empty() || name == "gpt2" || name == "default") return PreTokenizer::gpt2;
  if (name == "smollm") return PreTokenizer::smollm;
  if (name == "llama-bpe" || name == "llama3" || name == "llama-v3") return PreTokenizer::llama3;
  if (name == "qwen2") return PreTokenizer::qwen2;
  throw InputError(file + ": unsupported tokenizer.ggml.pre '" + name +
                   "'; supported: gpt2, smollm, llama-bpe (llama3, llama-v3), qwen2");
}

std::vector<std::string_view> pretokenize(std::string_view text, PreTokenizer kind) {
  std::vector<Cp> cps;
  cps.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    size_t len = 1;
    uint32_t cp = decode_utf8(text, i, len);
    cps.push_back({cp, i});
    i += len;
  }
  std::vector<std::pair<size_t, size_t>> spans;
  if (kind == PreTokenizer::smollm) {
    size_t b = 0;
    for (size_t i = 0; i < cps.size(); ++i) {
      if (!is_number(cps[i].cp)) continue;
      split_gpt2(cps, b, i, spans);
      spans.emplace_back(i, i + 1);
      b = i + 1;
    }
    split_gpt2(cps, b, cps.size(), spans);
  } else if (kind == PreTokenizer::llama3 || kind == PreTokenizer::qwen2) {
    split_llama3(cps, 0, cps.size(), kind == PreTokenizer::llama3 ? 3 : 1, spans);
  } else {
    split_gpt2(cps, 0, cps.size(), spans);
  }
  std::vector<std::string_view> pieces;
  pieces.reserve(spans.size());
  for (auto [a, z] : spans) {
    size_t from = cps[a].byte, to = z < cps.size() ? cps[z].byte : text.size();
    pieces.push_back(text.substr(from, to - from));
  }
  return pieces;
}

}  // namespace rooftop::engine
