// ASCII case folding, written once: chip names, format names and model ids are matched case-blind, and GGUF
// tensor types are printed in capitals. Bytes outside ASCII pass through unchanged (no locale).
#pragma once

#include <string>
#include <string_view>

namespace rooftop {

inline std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (auto& ch : out)
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  return out;
}

inline std::string ascii_upper(std::string_view s) {
  std::string out(s);
  for (auto& ch : out)
    if (ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
  return out;
}

}  // namespace rooftop
