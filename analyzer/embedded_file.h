// EmbeddedFile: a data file (YAML card) compiled into the binary by cmake/rooftop.cmake.
#pragma once
#include <cstddef>
#include <string_view>

namespace rooftop {
struct EmbeddedFile {
  std::string_view name;     // base file name, e.g. "h100-sxm.yaml"
  std::string_view content;  // the file's bytes
};
}  // namespace rooftop
