// Decode GEMV y (m) = W (m, k) x (k): rows split over the pool; quantized rows dotted without expanding W.
//
// Napkin math: a decode GEMV reads every weight byte once, so time >= W.bytes() / memory bandwidth;
// q4_0/q4_1/q8_0/q4_k multiply int8 activations (x quantized once per call, 32 values per block) so the
// arithmetic per weight byte stays below the bandwidth roof.
#include <vector>

#include "kernels/cpu/checks.h"
#include "kernels/cpu/dispatch.h"
#include "kernels/cpu/thread_pool.h"

namespace rooftop::kernels {

void gemv(const WeightView& W, std::span<const float> x, std::span<float> y, ThreadPool& pool) {
  check_weight("gemv", W);
  check_size("gemv", "x", int64_t(x.size()), W.k);
  check_size("gemv", "y", int64_t(y.size()), W.m);
  const KernelTable& t = active_kernels();
  thread_local Q8Activations xq_buffer;  // reused across calls: no allocation once warm
  Q8Activations& xq = xq_buffer;         // a reference, so workers read the caller's buffer, not their own
  if (gemv_uses_q8_activations(W.format)) quantize_q8_for(t, reads_qt16(W.format), x.data(), W.k, xq);
  const float* xp = x.data();
  float* yp = y.data();
  pool.parallel_for(W.m, [&](int64_t r0, int64_t r1, int) { t.gemv_rows(W, xp, xq, yp, r0, r1); });
}

void gemv_ref(const WeightView& W, std::span<const float> x, std::span<float> y) {
  check_weight("gemv_ref", W);
  check_size("gemv_ref", "x", int64_t(x.size()), W.k);
  check_size("gemv_ref", "y", int64_t(y.size()), W.m);
  std::vector<float> row(size_t(W.k));
  const int64_t rb = row_bytes(W.format, W.k);
  for (int64_t r = 0; r < W.m; ++r) {
    dequantize_blocks_ref(W.format, W.data + r * rb, row.data(), W.k);
    double s = 0;  // double accumulation: the reference is more accurate than any kernel under test
    for (int64_t i = 0; i < W.k; ++i) s += double(row[size_t(i)]) * double(x[size_t(i)]);
    y[size_t(r)] = float(s);
  }
}

}  // namespace rooftop::kernels
