// GPT-2's pre-tokenizer regex written out by hand over UTF-8 code points (no regex engine).
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

}  // namespace

PreTokenizer pre_tokenizer_from_name(const std::string& name, const std::string& file) {
  if (name.empty() || name == "gpt2" || name == "default") return PreTokenizer::gpt2;
  if (name == "smollm") return PreTokenizer::smollm;
  throw InputError(file + ": unsupported tokenizer.ggml.pre '" + name + "'; supported: gpt2, smollm");
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
