// Names of the ggml tensor types, for error messages (the table itself is constexpr in ggml_types.h).
#include "formats/ggml_types.h"

namespace rooftop::formats {

std::string ggml_type_names() {
  std::string s;
  for (const auto& t : kGgmlTypes) {
    if (!s.empty()) s += ", ";
    s += t.name;
  }
  return s;
}

}  // namespace rooftop::formats
