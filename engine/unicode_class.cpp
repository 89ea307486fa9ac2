// Code point classification by binary search over the generated range tables; UTF-8 decoding.
#include "engine/unicode_class.h"

#include <algorithm>

namespace rooftop::engine {
namespace {
bool in_ranges(const detail::CodeRange* r, size_t n, uint32_t cp) {
  const detail::CodeRange* end = r + n;
  auto it = std::upper_bound(r, end, cp, [](uint32_t c, const detail::CodeRange& x) { return c < x.first; });
  return it != r && cp <= (it - 1)->last;
}
}  // namespace

bool is_letter(uint32_t cp) {
  if (cp < 0x80) return (cp | 0x20) >= 'a' && (cp | 0x20) <= 'z';
  return in_ranges(detail::kLetterRanges, detail::kLetterRanges_count, cp);
}

bool is_number(uint32_t cp) {
  if (cp < 0x80) return cp >= '0' && cp <= '9';
  return in_ranges(detail::kNumberRanges, detail::kNumberRanges_count, cp);
}

bool is_whitespace(uint32_t cp) {
  switch (cp) {
    case 0x09: case 0x0A: case 0x0B: case 0x0C: case 0x0D: case 0x20: case 0x85: case 0xA0: case 0x1680:
    case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000:
      return true;
    default:
      return cp >= 0x2000 && cp <= 0x200A;
  }
}

uint32_t decode_utf8(std::string_view s, size_t i, size_t& len) {
  auto b = [&](size_t k) { return static_cast<uint8_t>(s[i + k]); };
  uint8_t c = b(0);
  len = 1;
  if (c < 0x80) return c;
  size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (n == 0 || c >= 0xF5 || i + n > s.size()) return 0xFFFD;
  uint32_t cp = n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
  for (size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0xFFFD;
    cp = (cp << 6) | (b(k) & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are invalid.
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0xFFFD;
  len = n;
  return cp;
}

}  // namespace rooftop::engine
