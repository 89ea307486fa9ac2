// Prefill GEMM Y (n, m) = X (n, k) W^T: weight rows split over the pool in panels dequantized once per call.
//
// Napkin math: 2*n*m*k FLOPs; each weight byte is read once and each panel reused across all n tokens,
// so for n >= ~64 the kernel is compute-bound (FMA throughput), unlike the decode GEMV.
// Below the table's gemm_min_tokens (9 by default) panel packing would dominate, so gemm and gemv_batch run a
// multi-RHS GEMV instead: each weight row (block) is loaded once and applied to a group of up to 8 tokens; time
// ~ W.bytes() / bandwidth until the n-fold dot work catches up (measured: q4_1 14336x4096 gemv_batch n=4 ~1.25x
// one gemv).
#include <algorithm>
#include <vector>

#include "kernels/cpu/batch_rows.h"
#include "kernels/cpu/checks.h"
#include "kernels/cpu/dispatch.h"
#include "kernels/cpu/q8_activations.h"
#include "kernels/cpu/thread_pool.h"

namespace rooftop::kernels {

namespace {
void check_gemm(const char* op, const WeightView& W, std::span<const float> X, int64_t n, std::span<float> Y) {
  check_weight(op, W);
  if (n < 0) throw InternalError(std::string(op) + ": token count n = " + std::to_string(n) + "; expected n >= 0");
  check_size(op, "X (n, k)", int64_t(X.size()), n * W.k);
  check_size(op, "Y (n, m)", int64_t(Y.size()), n * W.m);
}
}  // namespace

// A GEMM's tasks (gemm_cols_per_task rows each, a packed block) are claimed one at a time: the last claim then leaves
// the other threads at most one block of waiting, where 4 chunks per thread left up to a quarter of a thread's rows
// (a 2048-row matrix is 22 blocks of 96).
constexpr int64_t kTaskChunks = 1 << 14;

void gemm(const WeightView& W, std::span<const float> X, int64_t n, std::span<float> Y, ThreadPool& pool) {
  check_gemm("gemm", W, X, n, Y);
  if (n == 0 || W.m == 0) return;
  if (W.k == 0) {
    std::fill(Y.begin(), Y.end(), 0.0f);
    return;
  }
  const KernelTable& t = active_kernels();
  // Decode-sized batch: multi-RHS GEMV rows, no panel packing. Their fp32 activations dequantize every row, so
  // beyond kSmallGemmMaxN tokens the tiled GEMM is faster for every format; the int8 GEMV rows that beat it
  // further (below gemm_min_tokens) are gemv_batch's.
  if (n < std::min(gemm_min_tokens(t, W.format, W.k), kSmallGemmMaxN + 1)) {
    const float* xp = X.data();
    float* yp = Y.data();
    pool.parallel_for(W.m, [&](int64_t r0, int64_t r1, int) { batch_rows(t, W, xp, n, nullptr, yp, r0, r1); });
    return;
  }
  const int64_t per = t.gemm_cols_per_task, tasks = (W.m + per - 1) / per;
  const float* xp = X.data();
  float* yp = Y.data();
  if (t.gemm_cols_q8 && t.gemm_uses_q8(W.format)) {
    // The int8 GEMM: X quantized once, its tokens split over the pool, then the columns.
    thread_local std::vector<Q8Activations> xq_buffer;
    thread_local std::vector<float> sum16_buffer;
    std::vector<Q8Activations>& xq = xq_buffer;
    std::vector<float>& sum16 = sum16_buffer;
    if (int64_t(xq.size()) < n) xq.resize(size_t(n));
    if (int8_gemm_sums16(W.format)) sum16.resize(size_t(n * W.k / 16));
    pool.parallel_for(n, [&](int64_t i0, int64_t i1, int) {
      quantize_tokens_for_int8_gemm(t.quantize_q8, W.format, xp, i0, i1, W.k, xq.data(), sum16.data());
    });
    pool.parallel_for(
        tasks, [&](int64_t b, int64_t e, int) { t.gemm_cols_q8(W, xq.data(), sum16.data(), n, yp, b * per, std::min(W.m, e * per)); },
        kTaskChunks);
    return;
  }
  if (t.gemm_cols_xbf16 && t.gemm_uses_xbf16(W.format, W.k)) {
    // The AMX GEMM: X rounded to bf16 token groups once, the groups split over the pool, then the columns.
    thread_local std::vector<uint32_t> xv_buffer;
    std::vector<uint32_t>& xv = xv_buffer;
    xv.resize(size_t(x_bf16_words(n, W.k)));
    pool.parallel_for((n + 15) / 16, [&](int64_t g0, int64_t g1, int) { t.pack_x_bf16(xp, n, W.k, xv.data(), g0, g1); });
    // Tall tasks (each reads all of X once), but at least two per thread: a multiple of 32 rows up to per.
    const int64_t rows = std::clamp<int64_t>((W.m / (2 * int64_t(pool.size())) + 31) / 32 * 32, 32, per);
    pool.parallel_for(
        (W.m + rows - 1) / rows,
        [&](int64_t b, int64_t e, int) { t.gemm_cols_xbf16(W, xv.data(), n, yp, b * rows, std::min(W.m, e * rows)); }, kTaskChunks);
    return;
  }
  pool.parallel_for(tasks, [&](int64_t b, int64_t e, int) { t.gemm_cols(W, xp, n, yp, b * per, std::min(W.m, e * per)); },
                    kTaskChunks);
}

int64_t gemm_min_tokens(WeightFormat f, int64_t k) { return gemm_min_tokens(active_kernels(), f, k); }

void gemv_batch(const WeightView& W, std::span<const float> X, int64_t n, std::span<float> Y, ThreadPool& pool) {
  check_gemm("gemv_batch", W, X, n, Y);
  if (n == 0 || W.m == 0) return;
  const KernelTable& t = active_kernels();
  thread_local std::vector<Q8Activations> xq_buffer;  // reused across calls; read by every worker by reference
  std::vector<Q8Activations>& xq = xq_buffer;
  const bool q8 = quantize_rows_for(t, W.format, X.data(), n, W.k, xq);
  const float* xp = X.data();
  float* yp = Y.data();
  // One parallel region for all n tokens: each worker's rows are read once (batch_rows slices them).
  pool.parallel_for(W.m, [&](int64_t r0, int64_t r1, int) { batch_rows(t, W, xp, n, q8 ? xq.data() : nullptr, yp, r0, r1); });
}

void gemm_ref(const WeightView& W, std::span<const float> X, int64_t n, std::span<float> Y) {
  check_gemm("gemm_ref", W, X, n, Y);
  std::vector<float> row(size_t(W.k));
  const int64_t rb = row_bytes(W.format, W.k);
  for (int64_t j = 0; j < W.m; ++j) {
    dequantize_blocks_ref(W.format, W.data + j * rb, row.data(), W.k);
    for (int64_t i = 0; i < n; ++i) {
      double s = 0;
      for (int64_t p = 0; p < W.k; ++p) s += double(X[size_t(i * W.k + p)]) * double(row[size_t(p)]);
      Y[size_t(i * W.m + j)] = float(s);
    }
  }
}

}  // namespace rooftop::kernels
