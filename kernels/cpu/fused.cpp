// Fused GEMVs (q/k/v, gate/up + SwiGLU) and (token x head) prefill attention, one barrier each.
#include "kernels/cpu/fused.h"

#include <cmath>
#include <string>
#include <vector>

#include "kernels/cpu/checks.h"
#include "kernels/cpu/dispatch.h"
#include "kernels/cpu/thread_pool.h"

namespace rooftop::kernels {

void gemv_multi(std::span<const GemvTarget> targets, std::span<const float> x, ThreadPool& pool) {
  if (targets.empty()) return;
  const int64_t k = targets[0].W->k;
  int64_t rows = 0;
  bool q8 = false, q4_1 = false;
  for (const GemvTarget& t : targets) {
    check_weight("gemv_multi", *t.W);
    if (t.W->k != k)
      throw InputError("gemv_multi: matrices of " + std::to_string(t.W->k) + " and " + std::to_string(k) +
                       " columns; expected one input width");
    if (t.y == nullptr) throw InputError("gemv_multi: a target's output pointer is null");
    rows += t.W->m;
    q8 = q8 || gemv_uses_q8_activations(t.W->format);
    q4_1 = q4_1 || t.W->format == WeightFormat::q4_1;
  }
  check_size("gemv_multi", "x", int64_t(x.size()), k);
  const KernelTable& tab = active_kernels();
  thread_local Q8Activations xq_buffer;
  Q8Activations& xq = xq_buffer;  // the caller's buffer, read by every worker
  if (q8) quantize_q8_for(tab, q4_1, x.data(), k, xq);
  pool.parallel_for(rows, [&](int64_t r0, int64_t r1, int) {
    int64_t base = 0;  // first global row of the current target
    for (const GemvTarget& t : targets) {
      const int64_t b = std::max(r0, base), e = std::min(r1, base + t.W->m);
      if (b < e) tab.gemv_rows(*t.W, x.data(), xq, t.y, b - base, e - base);
      base += t.W->m;
    }
  });
}

void gemv_swiglu(const WeightView& gate, const WeightView& up, std::span<const float> x, std::span<float> h,
                 ThreadPool& pool) {
  check_weight("gemv_swiglu", gate);
  check_weight("gemv_swiglu", up);
  if (gate.m != up.m || gate.k != up.k)
    throw InputError("gemv_swiglu: gate (" + std::to_string(gate.m) + ", " + std::to_string(gate.k) + ") and up (" +
                     std::to_string(up.m) + ", " + std::to_string(up.k) + "); expected the same shape");
  check_size("gemv_swiglu", "x", int64_t(x.size()), gate.k);
  check_size("gemv_swiglu", "h", int64_t(h.size()), gate.m);
  const KernelTable& tab = active_kernels();
  thread_local Q8Activations xq_buffer;
  Q8Activations& xq = xq_buffer;
  if (gemv_uses_q8_activations(gate.format) || gemv_uses_q8_activations(up.format))
    quantize_q8_for(tab, gate.format == WeightFormat::q4_1 || up.format == WeightFormat::q4_1, x.data(), gate.k, xq);
  float* hp = h.data();
  pool.parallel_for(gate.m, [&](int64_t r0, int64_t r1, int) {
    thread_local std::vector<float> u;
    if (int64_t(u.size()) < gate.m) u.resize(size_t(gate.m));
    tab.gemv_rows(gate, x.data(), xq, hp, r0, r1);       // gate rows into h
    tab.gemv_rows(up, x.data(), xq, u.data(), r0, r1);   // up rows, same indices
    for (int64_t r = r0; r < r1; ++r) hp[r] = hp[r] / (1.0f + std::exp(-hp[r])) * u[size_t(r)];
  });
}

}  // namespace rooftop::kernels
