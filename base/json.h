// Reading untrusted JSON: bounded size and nesting, one-line errors, and values described in
// messages without ever printing a hostile value whole.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/errors.h"
#include "base/limits.h"

namespace rooftop {

// Parses `text` (named `name` in messages). InputError when it nests deeper than max_depth
// (checked before parsing, so a 100,000-deep list cannot overflow the stack) or is not valid JSON.
nlohmann::json parse_json(std::string_view text, const std::string& name, int max_depth = limits::kJsonDepth);

// read_text_file (size-limited) then parse_json.
nlohmann::json read_json_file(const std::string& path, const std::string& what);

// A short description of a value for an error message: a scalar as written (cut to 40 characters),
// a list or an object by its kind and size, never its contents.
std::string describe_json(const nlohmann::json& v);

// Deepest nesting of [ and { in `text`, outside strings.
int json_depth(std::string_view text);

}  // namespace rooftop

// Writes each named member of `record` into the JSON object `json_out` under the member's own name, so a
// record's keys are its field names, declared once (nlohmann's field-list macros, as its
// NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE uses them; up to 63 fields). Conditional and renamed keys stay explicit.
#define ROOFTOP_JSON_FIELDS(json_out, record, ...)                               \
  do {                                                                           \
    auto& nlohmann_json_j = (json_out);                                          \
    const auto& nlohmann_json_t = (record);                                      \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, __VA_ARGS__))      \
  } while (0)
