// Fused GEMVs (q/k/v, gate/up + SwiGLU) and (token x head) prefill attention, one barrier each.
#include "kernels/cpu/fused.h"

#include <cmath>
#include <string>
#include <vector>

#include "kernels/cpu/attention_tile.h"
#include "kernels/cpu/batch_rows.h"
#include "kernels/cpu/checks.h"
#include "kernels/cpu/dispatch.h"
#include "kernels/cpu/thread_pool.h"

namespace rooftop::kernels {

void gemv_multi(std::span<const GemvTarget> targets, std::span<const float> x, ThreadPool& pool) {
  if (targets.empty()) return;
  const int64_t k = targets[0].W->k;
  int64_t rows = 0;
  bool q8 = false, q4 = false;
  for (const GemvTarget& t : targets) {
    check_weight("gemv_multi", *t.W);
    if (t.W->k != k)
      throw InternalError("gemv_multi: matrices of " + std::to_string(t.W->k) + " and " + std::to_string(k) +
                       " columns; expected one input width");
    if (t.y == nullptr) throw InternalError("gemv_multi: a target's output pointer is null");
    rows += t.W->m;
    q8 = q8 || gemv_uses_q8_activations(t.W->format);
    q4 = q4 || reads_qt16(t.W->format);
  }
  check_size("gemv_multi", "x", int64_t(x.size()), k);
  const KernelTable& tab = active_kernels();
  thread_local Q8Activations xq_buffer;
  Q8Activations& xq = xq_buffer;  // the caller's buffer, read by every worker
  if (q8) quantize_q8_for(tab, q4, x.data(), k, xq);
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
    throw InternalError("gemv_swiglu: gate (" + std::to_string(gate.m) + ", " + std::to_string(gate.k) + ") and up (" +
                     std::to_string(up.m) + ", " + std::to_string(up.k) + "); expected the same shape");
  check_size("gemv_swiglu", "x", int64_t(x.size()), gate.k);
  check_size("gemv_swiglu", "h", int64_t(h.size()), gate.m);
  const KernelTable& tab = active_kernels();
  thread_local Q8Activations xq_buffer;
  Q8Activations& xq = xq_buffer;
  if (gemv_uses_q8_activations(gate.format) || gemv_uses_q8_activations(up.format))
    quantize_q8_for(tab, reads_qt16(gate.format) || reads_qt16(up.format), x.data(), gate.k, xq);
  float* hp = h.data();
  pool.parallel_for(gate.m, [&](int64_t r0, int64_t r1, int) {
    thread_local std::vector<float> u;
    if (int64_t(u.size()) < gate.m) u.resize(size_t(gate.m));
    tab.gemv_rows(gate, x.data(), xq, hp, r0, r1);       // gate rows into h
    tab.gemv_rows(up, x.data(), xq, u.data(), r0, r1);   // up rows, same indices
    attn::attention_kernels(active_isa()).gated(hp + r0, u.data() + r0, hp + r0, r1 - r0, false);  // as swiglu()
  });
}

namespace {
void check_batch_input(const char* op, const WeightView& W, std::span<const float> X, int64_t n) {
  if (n < 1) throw InternalError(std::string(op) + ": token count n = " + std::to_string(n) + "; expected n >= 1");
  check_size(op, "X (n, k)", int64_t(X.size()), n * W.k);
}
}  // namespace

void gemv_batch_multi(std::span<const GemvBatchTarget> targets, std::span<const float> X, int64_t n, ThreadPool& pool) {
  if (targets.empty()) return;
  const WeightView& first = *targets[0].W;
  int64_t rows = 0;
  for (const GemvBatchTarget& t : targets) {
    check_weight("gemv_batch_multi", *t.W);
    if (t.W->k != first.k || t.W->format != first.format)
      throw InternalError("gemv_batch_multi: matrices of " + std::to_string(t.W->k) + " and " + std::to_string(first.k) +
                       " columns (" + format_name(t.W->format) + ", " + format_name(first.format) +
                       "); expected one input width and one format");
    if (t.Y == nullptr) throw InternalError("gemv_batch_multi: a target's output pointer is null");
    rows += t.W->m;
  }
  check_batch_input("gemv_batch_multi", first, X, n);
  const KernelTable& tab = active_kernels();
  thread_local std::vector<Q8Activations> xq_buffer;
  std::vector<Q8Activations>& xq = xq_buffer;
  const bool q8 = quantize_rows_for(tab, first.format, X.data(), n, first.k, xq);
  pool.parallel_for(rows, [&](int64_t r0, int64_t r1, int) {
    int64_t base = 0;
    for (const GemvBatchTarget& t : targets) {
      const int64_t b = std::max(r0, base), e = std::min(r1, base + t.W->m);
      if (b < e) batch_rows(tab, *t.W, X.data(), n, q8 ? xq.data() : nullptr, t.Y, b - base, e - base);
      base += t.W->m;
    }
  });
}

void gemv_batch_swiglu(const WeightView& gate, const WeightView& up, std::span<const float> X, int64_t n,
                       std::span<float> H, ThreadPool& pool) {
  check_weight("gemv_batch_swiglu", gate);
  check_weight("gemv_batch_swiglu", up);
  if (gate.m != up.m || gate.k != up.k || gate.format != up.format)
    throw InternalError("gemv_batch_swiglu: gate (" + std::to_string(gate.m) + ", " + std::to_string(gate.k) + ", " +
                     format_name(gate.format) + ") and up (" + std::to_string(up.m) + ", " + std::to_string(up.k) +
                     ", " + format_name(up.format) + "); expected the same shape and format");
  check_batch_input("gemv_batch_swiglu", gate, X, n);
  check_size("gemv_batch_swiglu", "H (n, F)", int64_t(H.size()), n * gate.m);
  const KernelTable& tab = active_kernels();
  thread_local std::vector<Q8Activations> xq_buffer;
  std::vector<Q8Activations>& xq = xq_buffer;
  const bool q8 = quantize_rows_for(tab, gate.format, X.data(), n, gate.k, xq);
  const int64_t F = gate.m;
  float* hp = H.data();
  pool.parallel_for(F, [&](int64_t r0, int64_t r1, int) {
    thread_local std::vector<float> u;  // (n, F): this worker's rows of up
    if (int64_t(u.size()) < n * F) u.resize(size_t(n * F));
    batch_rows(tab, gate, X.data(), n, q8 ? xq.data() : nullptr, hp, r0, r1);
    batch_rows(tab, up, X.data(), n, q8 ? xq.data() : nullptr, u.data(), r0, r1);
    for (int64_t i = 0; i < n; ++i)  // as swiglu()
      attn::attention_kernels(active_isa()).gated(hp + i * F + r0, u.data() + i * F + r0, hp + i * F + r0, r1 - r0, false);
  });
}

}  // namespace rooftop::kernels
