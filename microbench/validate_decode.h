// A synthetic llama decode step over random weights with a real model's layer shapes, and its timing.
//
// Dimension legend: H = hidden, h = query heads, hk = KV heads, d = head dim, F = FFN intermediate,
// V = vocab, L = layers, t = cached positions (the context), B = sequences in a batch, P = prompt tokens.
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

// Bytes the synthetic model allocates: all layers' weights, norms, LM head, fp32 KV of `context`
// positions for each of `batch` sequences, and activations of `rows` tokens.
double decode_alloc_bytes(const ModelSpec& m, kernels::WeightFormat f, int64_t context, int64_t batch = 1,
                          int64_t rows = 1);

// Every layer's weights allocated separately (no reuse, so small models are not flattered by caches).
class DecodeModel {
 public:
  // Throws std::invalid_argument when decode_shape_problem(m, f) is non-empty or the spec is not a
  // dense llama-style model (MoE, MLA, non-SwiGLU FFN).
  // The KV cache holds up to `max_context` positions for each of `max_batch` sequences; steps attend
  // over context() of them. Activation buffers hold max(max_batch, max_prompt) token rows.
  DecodeModel(const ModelSpec& m, kernels::WeightFormat f, int64_t max_context, uint32_t seed,
              int64_t max_batch = 1, int64_t max_prompt = 0);
  void set_context(int64_t t);  // 1 <= t <= max_context, else std::invalid_argument
  int64_t context() const { return t_; }
  // One decode step of `batch` sequences (1 <= batch <= max_batch): every layer (rmsnorm, q/k/v,
  // rope, attention of each sequence over its own t positions, o, residual, rmsnorm, gate/up, swiglu,
  // down, residual), final rmsnorm and the LM head. Batch 1 uses gemv; above 1 the batched kernels (weights
  // read once for all sequences), q/k/v and gate/up fused and every sequence's attention in one region, so a
  // layer has 5 parallel regions at any batch, as the engine's batch-1 decode has.
  void step(kernels::ThreadPool& pool, int64_t batch = 1);
  // Prefill of one prompt of `prompt` tokens (1 <= prompt <= min(max_prompt, max_context)): gemm over
  // the P rows, causal attention (token i attends over positions 0..i), logits of the last token.
  void prefill(kernels::ThreadPool& pool, int64_t prompt);
  double weight_bytes_per_token() const;   // matrices + norm vectors (read once per step)
  double kv_read_bytes_per_token() const;  // one sequence: 2 x L x t x hk x d x 4
  double flops_per_token() const;          // 2 x matrix elements + 4 x h x d x t per layer
  // Prefill FLOPs of a P-token prompt: 2 x layer matrix elements x P + causal attention
  // 4 x h x d x P (P + 1) / 2 per layer + the LM head once.
  double prefill_flops(int64_t prompt) const;
  std::span<const float> logits() const { return logits_.span(); }  // (V) of the first sequence

 private:
  struct Layer {
    RandomWeights wq, wk, wv, wo, gate, up, down;  // (h d, H) (hk d, H) (hk d, H) (H, h d) (F, H) (F, H) (H, F)
    AlignedFloats attn_norm, ffn_norm;             // (H)
    AlignedFloats k_cache, v_cache;                // (B, t, hk, d) fp32
  };
  void forward(kernels::ThreadPool& pool, int64_t n, bool prefill);  // n token rows
  ModelSpec m_;
  int64_t t_ = 0, max_t_ = 0, max_b_ = 1, max_p_ = 0, rows_ = 1;
  std::vector<Layer> layers_;
  RandomWeights lm_head_;  // (V, H)
  AlignedFloats out_norm_;
  AlignedFloats x_, xn_, q_, k_, v_, att_, proj_, g_, u_, act_, logits_;  // (rows, dim) each; logits (B, V)
};

// Timing of a decode model: warm-up steps, then samples of whole steps.
struct DecodeTiming {
  Stats step_s;  // seconds per decode step
};
DecodeTiming time_decode(DecodeModel& model, kernels::ThreadPool& pool, int warmup, int repetitions,
                         int64_t batch = 1);
// Seconds per prefill of a `prompt`-token prompt (the time to first token).
Stats time_prefill(DecodeModel& model, kernels::ThreadPool& pool, int64_t prompt, int warmup, int repetitions);

}  // namespace rooftop::microbench
