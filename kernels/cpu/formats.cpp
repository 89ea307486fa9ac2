// The weight formats the kernels read, and their block geometry from the ggml type table.
#include "kernels/cpu/kernels.h"

#include <array>
#include <string>

#include "base/errors.h"
#include "formats/ggml_types.h"

namespace rooftop::kernels {
namespace {

// The ggml table's rows for the kernels' formats, indexed by ggml id (built at compile time): the geometry
// functions below run in the kernels' inner loops (a row's bytes per packed panel), so a lookup is one load.
constexpr uint32_t kMaxId = 40;
struct Geometry {
  const char* name = nullptr;  // nullptr: not a format the kernels read
  int64_t values = 0, bytes = 0;
};
constexpr std::array<Geometry, kMaxId> kGeometry = [] {
  std::array<Geometry, kMaxId> g{};
  for (const WeightFormat f : kWeightFormats) {
    const auto t = *formats::ggml_type_info(static_cast<uint32_t>(f));
    g[static_cast<uint32_t>(f)] = {t.name, t.block_values, t.block_bytes};
  }
  return g;
}();

const Geometry& info(WeightFormat f) {
  const uint32_t id = static_cast<uint32_t>(f);
  if (id >= kMaxId || !kGeometry[id].name)
    throw InternalError("unsupported weight format id " + std::to_string(id) + "; expected one of " +
                        weight_format_names());
  return kGeometry[id];
}

}  // namespace

std::optional<WeightFormat> weight_format(uint32_t ggml_type) {
  if (ggml_type >= kMaxId || !kGeometry[ggml_type].name) return std::nullopt;
  return static_cast<WeightFormat>(ggml_type);
}

std::string weight_format_names() {
  std::string s;
  for (const WeightFormat f : kWeightFormats) s += (s.empty() ? "" : ", ") + std::string(format_name(f));
  return s;
}

const char* format_name(WeightFormat f) { return info(f).name; }
int64_t block_values(WeightFormat f) { return info(f).values; }
int64_t block_bytes(WeightFormat f) { return info(f).bytes; }

int64_t row_bytes(WeightFormat f, int64_t k) {
  const int64_t bv = block_values(f);
  if (k < 0 || k % bv != 0)
    throw InternalError(std::string("row of ") + std::to_string(k) + " values is not a whole number of " +
                        format_name(f) + " blocks; expected a non-negative multiple of " + std::to_string(bv));
  return k / bv * block_bytes(f);
}

}  // namespace rooftop::kernels
