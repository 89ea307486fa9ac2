// InputError: bad input from a user or a file (exit code 2 at the CLI), with one clear line of text.
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rooftop {

// Thrown for anything the user can fix: unknown ids, out-of-range numbers, malformed files.
// The message is one line: what was wrong, what was expected, the nearest valid choices.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Up to `max` candidates closest to `name` (edit distance, then shared prefix), best first.
std::vector<std::string> closest_matches(std::string_view name, const std::vector<std::string>& candidates,
                                         size_t max = 3);

// "unknown chip 'h100'; closest: h100-sxm, h200, a100-80g" style message helper.
std::string unknown_id_message(std::string_view what, std::string_view name,
                               const std::vector<std::string>& candidates);

}  // namespace rooftop
