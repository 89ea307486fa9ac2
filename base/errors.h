// The two kinds of failure the CLI maps to exit codes: InputError (bad input, exit 2) and
// InternalError (the project's own bug, exit 1).
#pragma once
#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>

namespace rooftop {

// Thrown for anything the user can fix: unknown ids, out-of-range numbers, malformed files.
// The message is one line: what was wrong, what was expected, the nearest valid choices.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Thrown where the project's own code broke an invariant (a shape mismatch between two of its own
// functions, say): the user cannot fix it, so the CLI reports "internal error" and exits 1.
struct InternalError : std::logic_error {
  using std::logic_error::logic_error;
};

// Untrusted text as it may appear in a one-line message: at most `max` bytes (then "..."), control
// bytes shown as '?'. Never put a value read from a file into a message without it.
inline std::string printable(std::string_view s, size_t max = 40) {
  std::string v(s.substr(0, std::min(s.size(), max)));
  for (auto& ch : v)
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = '?';
  return s.size() > max ? v + "..." : v;
}

}  // namespace rooftop
