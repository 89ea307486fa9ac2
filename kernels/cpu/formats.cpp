// The weight formats the kernels read, and their block geometry from the ggml type table.
#include "kernels/cpu/kernels.h"

#include <string>

#include "base/errors.h"
#include "formats/ggml_types.h"

namespace rooftop::kernels {
namespace {

formats::GgmlTypeInfo info(WeightFormat f) {
  if (!weight_format(static_cast<uint32_t>(f)))
    throw InternalError("unsupported weight format id " + std::to_string(uint32_t(f)) + "; expected one of " +
                        weight_format_names());
  return *formats::ggml_type_info(static_cast<uint32_t>(f));
}

}  // namespace

std::optional<WeightFormat> weight_format(uint32_t ggml_type) {
  for (const WeightFormat f : kWeightFormats)
    if (static_cast<uint32_t>(f) == ggml_type) return f;
  return std::nullopt;
}

std::string weight_format_names() {
  std::string s;
  for (const WeightFormat f : kWeightFormats) s += (s.empty() ? "" : ", ") + std::string(format_name(f));
  return s;
}

const char* format_name(WeightFormat f) { return info(f).name; }
int64_t block_values(WeightFormat f) { return info(f).block_values; }
int64_t block_bytes(WeightFormat f) { return info(f).block_bytes; }

int64_t row_bytes(WeightFormat f, int64_t k) {
  const int64_t bv = block_values(f);
  if (k < 0 || k % bv != 0)
    throw InternalError(std::string("row of ") + std::to_string(k) + " values is not a whole number of " +
                        format_name(f) + " blocks; expected a non-negative multiple of " + std::to_string(bv));
  return k / bv * block_bytes(f);
}

}  // namespace rooftop::kernels
