// Fused operations for the forward pass: several GEMVs or attention rows in ONE parallel region (one barrier).
//
// Dimension legend as in kernels.h: k = input features, m = output rows, h = query heads, d = head dim,
// n = tokens, F = feed-forward width.
#pragma once
#include <cstdint>
#include <span>

#include "kernels/cpu/kernels.h"

namespace rooftop::kernels {

// One matrix of a fused GEMV: y (W.m) = W (W.m, k) x.
struct GemvTarget {
  const WeightView* W = nullptr;
  float* y = nullptr;  // (W.m)
};

// Every target's GEMV on the same x (k): the rows of all targets are split as one range over the pool.
// Results equal gemv() on each target bit for bit (same row kernel, same quantized x).
void gemv_multi(std::span<const GemvTarget> targets, std::span<const float> x, ThreadPool& pool);

// h (F) = silu(gate x) * (up x): gate and up rows computed and combined in one parallel region.
// Equal to gemv(gate), gemv(up), swiglu() bit for bit.
void gemv_swiglu(const WeightView& gate, const WeightView& up, std::span<const float> x, std::span<float> h,
                 ThreadPool& pool);

// Batched decode, n tokens (n >= 1): every target's Y (n, W.m) = X (n, k) W^T in one parallel region, each
// weight row read once for all n tokens. Equal to gemv_batch() on each target bit for bit.
struct GemvBatchTarget {
  const WeightView* W = nullptr;
  float* Y = nullptr;  // (n, W.m)
};
void gemv_batch_multi(std::span<const GemvBatchTarget> targets, std::span<const float> X, int64_t n, ThreadPool& pool);

// H (n, F) = silu(X gate^T) * (X up^T) for n tokens in one parallel region. Equal to gemv_batch(gate),
// gemv_batch(up), swiglu() bit for bit.
void gemv_batch_swiglu(const WeightView& gate, const WeightView& up, std::span<const float> X, int64_t n,
                       std::span<float> H, ThreadPool& pool);

// Causal prefill attention: q (n, h, d) for tokens at positions [pos0, pos0 + n); token i attends to cached
// positions [0, pos0 + i]; out (n, h, d). Tiled: (tokens x GQA group heads) query rows against 16-key blocks,
// online softmax, causal mask on the diagonal blocks; tasks (KV head, query tiles i and last - i) balance the
// triangle. Equals attention_decode(q_i, h, kv, pos0 + i + 1) per token up to fp32 summation order (not bit
// for bit); tests bound both against attention_decode_ref.
void attention_prefill(std::span<const float> q, int64_t n, int64_t heads, const KvView& kv, int64_t pos0,
                       std::span<float> out, ThreadPool& pool);

}  // namespace rooftop::kernels
