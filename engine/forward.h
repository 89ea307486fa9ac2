// The llama forward pass over the project's kernels: batched prefill (GEMM) and one-token decode (GEMV).
//
// Dimension legend: n = tokens in the pass, D = width, H/Hk = query/KV heads, d = head dim,
// F = feed-forward width, V = vocabulary.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "engine/kv_cache.h"
#include "engine/model.h"
#include "kernels/cpu/thread_pool.h"

namespace rooftop::engine {

class Forward {
 public:
  // The cache holds up to `capacity` positions (at most the model's context).
  Forward(const LlamaModel& model, int64_t capacity, kernels::ThreadPool& pool);

  // Prefill: runs tokens (n) at positions [cache.length(), +n) in one batched pass, appends their K/V.
  // Returns the last token's logits (V); with all_logits, every token's logits (n, V).
  std::span<const float> prefill(std::span<const int32_t> tokens, bool all_logits = false);
  // Decode: one token at position cache.length(); returns its logits (V).
  std::span<const float> decode(int32_t token);

  // Decode with fp32 activations (the GEMM kernel on one row) instead of int8-quantized activations in the
  // GEMV: slower, used to measure what the int8 rounding alone changes (tests).
  void set_fp32_activations(bool on) { fp32_activations_ = on; }

  // Drops the cached positions from n on (0 <= n <= cache().length()), so the next decode runs at position n
  // again: repeated decode steps at one fixed context.
  void rewind(int64_t n) { cache_.truncate(n); }

  const KvCache& cache() const { return cache_; }
  const LlamaModel& model() const { return model_; }

 private:
  void embed(int32_t token, float* out);  // out (D)
  void check_tokens(std::span<const int32_t> tokens) const;

  const LlamaModel& model_;
  kernels::ThreadPool& pool_;
  KvCache cache_;
  bool fp32_activations_ = false;
  // Scratch (sized for the largest n seen).
  std::vector<float> x_, xn_, q_, k_, v_, att_, o_, g_, u_, h_, logits_;
};

}  // namespace rooftop::engine
