// Fast dequantization of one row through the dispatched SIMD table (bit-exact with dequantize_row_ref).
#include "kernels/cpu/checks.h"
#include "kernels/cpu/dispatch.h"

namespace rooftop::kernels {

void dequantize_row(WeightFormat f, const std::byte* src, std::span<float> dst) {
  row_bytes(f, int64_t(dst.size()));  // validates the format and that dst is whole blocks
  if (src == nullptr && !dst.empty()) throw InternalError("dequantize_row: source is null");
  active_kernels().dequantize(f, src, dst.data(), int64_t(dst.size()));
}

}  // namespace rooftop::kernels
