// Unicode code point classes the pre-tokenizer needs (\p{L}, \p{N}, \s) and a lenient UTF-8 decoder.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rooftop::engine {

bool is_letter(uint32_t cp);      // general category L*
bool is_number(uint32_t cp);      // general category N*
bool is_whitespace(uint32_t cp);  // \s: White_Space characters

// Decodes the code point starting at s[i]; sets len to its byte length (1..4). Invalid or truncated
// sequences decode as one byte with cp = 0xFFFD, so every byte string splits into code points.
uint32_t decode_utf8(std::string_view s, size_t i, size_t& len);

namespace detail {
struct CodeRange {
  uint32_t first, last;
};
extern const CodeRange kLetterRanges[];
extern const size_t kLetterRanges_count;
extern const CodeRange kNumberRanges[];
extern const size_t kNumberRanges_count;
}  // namespace detail

}  // namespace rooftop::engine
