// parse_json, read_json_file, describe_json: see json.h.
#include "base/json.h"

#include "base/errors.h"
#include "base/files.h"

namespace rooftop {

int json_depth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char ch : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (ch == '\\') escaped = true;
      else if (ch == '"') in_string = false;
      continue;
    }
    if (ch == '"') in_string = true;
    else if (ch == '[' || ch == '{') deepest = std::max(deepest, ++depth);
    else if ((ch == ']' || ch == '}') && depth > 0) --depth;
  }
  return deepest;
}

nlohmann::json parse_json(std::string_view text, const std::string& name, int max_depth) {
  if (int d = json_depth(text); d > max_depth)
    throw InputError(name + ": JSON nested " + std::to_string(d) + " levels deep; expected at most " +
                     std::to_string(max_depth));
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(name + ": invalid JSON: " + printable(e.what(), 200));
  }
}

nlohmann::json read_json_file(const std::string& path, const std::string& what) {
  return parse_json(read_text_file(path, what), path);
}

std::string describe_json(const nlohmann::json& v) {
  if (v.is_array()) return "a list of " + std::to_string(v.size());
  if (v.is_object()) return "an object of " + std::to_string(v.size()) + " keys";
  return printable(v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace rooftop
