// Multi-token GEMV rows for any token count: tokens in groups of kSmallGemmMaxN over L2-sized row slices.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/cpu/dispatch.h"

namespace rooftop::kernels {

// Y (n, m) entries of weight rows [r0, r1) for X (n, k) W^T, any n >= 1. gemm_small_rows takes at most
// kSmallGemmMaxN tokens; for more, the rows are cut into slices of about 64 KiB of weights and every token
// group passes over a slice while it sits in L2, so W is read from memory once for all n tokens (one
// group per full pass would read it ceil(n / 8) times). xq: n quantized token rows, or nullptr (fp32).
// Each (row, group) runs the same kernel as a single gemm_small_rows call: results do not depend on slicing.
inline void batch_rows(const KernelTable& t, const WeightView& W, const float* X, int64_t n, const Q8Activations* xq,
                       float* Y, int64_t r0, int64_t r1) {
  constexpr int64_t kSliceBytes = 64 << 10;
  const int64_t slice = n <= kSmallGemmMaxN ? r1 - r0 : std::max<int64_t>(1, kSliceBytes / row_bytes(W.format, W.k));
  for (int64_t a = r0; a < r1; a += slice) {
    const int64_t b = std::min(r1, a + slice);
    for (int64_t i0 = 0; i0 < n; i0 += kSmallGemmMaxN)
      t.gemm_small_rows(W, X + i0 * W.k, std::min(kSmallGemmMaxN, n - i0), xq ? xq + i0 : nullptr, Y + i0 * W.m, a, b);
  }
}

// The n token rows of X (n, k) quantized for W's integer-dot kernels into xq[0..n) (resized as needed);
// false (nothing done) for the float formats.
inline bool quantize_rows_for(const KernelTable& t, WeightFormat f, const float* X, int64_t n, int64_t k,
                              std::vector<Q8Activations>& xq) {
  if (!gemv_uses_q8_activations(f)) return false;
  if (int64_t(xq.size()) < n) xq.resize(size_t(n));
  for (int64_t i = 0; i < n; ++i) quantize_q8_for(t, reads_qt16(f), X + i * k, k, xq[size_t(i)]);
  return true;
}

}  // namespace rooftop::kernels
