// A synthetic llama decode step over random weights with a real model's layer shapes, and its timing.
//
// Dimension legend: H = hidden, h = query heads, hk = KV heads, d = head dim, F = FFN intermediate,
// V = vocab, L = layers, t = cached positions (the context).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/model_spec.h"
#include "kernels/cpu/kernels.h"
#include "kernels/cpu/thread_pool.h"
#include "microbench/buffer.h"
#include "microbench/random_weights.h"
#include "microbench/stats.h"

namespace rooftop::microbench {

// Why a (model, format) pair cannot be built with these kernels ("" = it can): the format's block
// size must divide every matrix's input width (H, h x d, F).
std::string decode_shape_problem(const ModelSpec& m, kernels::WeightFormat f);

// Bytes the synthetic step allocates: all layers' weights, norms, LM head, fp32 KV of `context` positions.
double decode_alloc_bytes(const ModelSpec& m, kernels::WeightFormat f, int64_t context);

// Every layer's weights allocated separately (no reuse, so small models are not flattered by caches).
class DecodeModel {
 public:
  // Throws std::invalid_argument when decode_shape_problem(m, f) is non-empty or the spec is not a
  // dense llama-style model (MoE, MLA, non-SwiGLU FFN).
  // The KV cache holds up to `max_context` positions; steps attend over context() of them.
  DecodeModel(const ModelSpec& m, kernels::WeightFormat f, int64_t max_context, uint32_t seed);
  void set_context(int64_t t);  // 1 <= t <= max_context, else std::invalid_argument
  int64_t context() const { return t_; }
  // One decode step at batch 1: every layer (rmsnorm, q/k/v, rope, attention over t positions, o,
  // residual, rmsnorm, gate/up, swiglu, down, residual), final rmsnorm and the LM head.
  void step(kernels::ThreadPool& pool);
  double weight_bytes_per_token() const;   // matrices + norm vectors
  double kv_read_bytes_per_token() const;  // 2 x L x t x hk x d x 4
  double flops_per_token() const;          // 2 x matrix elements + 4 x h x d x t per layer
  std::span<const float> logits() const { return logits_.span(); }  // (V) after step()

 private:
  struct Layer {
    RandomWeights wq, wk, wv, wo, gate, up, down;  // (h d, H) (hk d, H) (hk d, H) (H, h d) (F, H) (F, H) (H, F)
    AlignedFloats attn_norm, ffn_norm;             // (H)
    AlignedFloats k_cache, v_cache;                // (t, hk, d) fp32
  };
  ModelSpec m_;
  int64_t t_ = 0, max_t_ = 0;
  std::vector<Layer> layers_;
  RandomWeights lm_head_;  // (V, H)
  AlignedFloats out_norm_;
  AlignedFloats x_, xn_, q_, k_, v_, att_, proj_, g_, u_, act_, logits_;
};

// Timing of a decode model: warm-up steps, then samples of whole steps.
struct DecodeTiming {
  Stats step_s;  // seconds per decode step
};
DecodeTiming time_decode(DecodeModel& model, kernels::ThreadPool& pool, int warmup, int repetitions);

}  // namespace rooftop::microbench
