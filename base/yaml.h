// Parsing YAML text (an embedded or user card, a runtime profile, a published-measurement file) with its syntax
// errors reported one way: "FILE:LINE: not valid YAML: <yaml-cpp's message>", exit code 2. Header-only: base
// itself does not link yaml-cpp; the libraries that read YAML do.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>

#include "base/errors.h"

namespace rooftop {

inline YAML::Node parse_yaml(std::string_view text, const std::string& file) {
  try {
    return YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw InputError(file + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML: " + printable(e.msg, 200));
  }
}

}  // namespace rooftop
