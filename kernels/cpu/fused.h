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

// Causal prefill attention: q (n, h, d) for tokens at positions [pos0, pos0 + n); token i attends to cached
// positions [0, pos0 + i]; out (n, h, d). All (token, head) pairs in one parallel region. Equal to calling
// attention_decode(q_i, h, kv, pos0 + i + 1) per token, bit for bit.
void attention_prefill(std::span<const float> q, int64_t n, int64_t heads, const KvView& kv, int64_t pos0,
                       std::span<float> out, ThreadPool& pool);

}  // namespace rooftop::kernels
