// The llama / gemma3 forward pass over the project's kernels: batched prefill (GEMM) and one-token decode (GEMV).
//
// Dimension legend: n = tokens in the pass, D = width, H/Hk = query/KV heads, d = head dim,
// F = feed-forward width, V = vocabulary.
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "engine/kv_cache.h"
#include "engine/model.h"
#include "kernels/cpu/fused.h"
#include "kernels/cpu/thread_pool.h"

namespace rooftop::engine {

// Seconds a pass (a prefill, or decode steps) spent in each stage, summed over its layers and passes: what
// `rooftop run --explain` sets beside the analyzer's ops (the names are the analyzer's op names). small_ops: RoPE
// (with Gemma's q/k norms), the residual adds (with Gemma's post-norms) and the SwiGLU/GeGLU, which the analyzer
// prices per value among its fixed costs; attention includes the KV stores; lm_head includes the output norm.
// A decode step's fused SwiGLU (gemv_swiglu) counts under ffn.
struct PassStages {
  double embed = 0, norms = 0, attn_proj = 0, attention = 0, ffn = 0, small_ops = 0, lm_head = 0;
  double total() const { return embed + norms + attn_proj + attention + ffn + small_ops + lm_head; }
};

// A step's part for one sequence: its next tokens (a prefill chunk, or one decode token).
struct SeqTokens {
  int64_t seq = 0;
  std::span<const int32_t> tokens;
};

class Forward {
 public:
  // `sequences` independent sequences, each with its own cache of up to `capacity` positions.
  Forward(const LlamaModel& model, int64_t capacity, kernels::ThreadPool& pool, int64_t sequences = 1);

  // Prefill: runs tokens (n) at positions [cache(seq).length(), +n) of sequence `seq` in one batched pass,
  // appends their K/V. Returns the last token's logits (V); with all_logits, every token's logits (n, V).
  std::span<const float> prefill(std::span<const int32_t> tokens, bool all_logits = false, int64_t seq = 0);
  // Decode: one token of sequence 0 at position cache().length(); returns its logits (V).
  std::span<const float> decode(int32_t token);
  // Batched decode: token i (of n <= sequences) is the next token of sequence seqs[i] (empty: sequence i), at
  // its own position; every weight block is read once for all n (gemv_batch), each sequence attends over its own
  // cache. Returns logits (n, V), row i equal to decode() of that sequence alone up to float reassociation (same
  // int8 activations).
  std::span<const float> decode_batch(std::span<const int32_t> tokens, std::span<const int64_t> seqs = {});
  // A mixed step of continuous batching: several sequences' prefill chunks and decode tokens (distinct
  // sequences) in one pass; every matmul runs over all the step's tokens (each weight read once), each token
  // attends over its own sequence's cache. Returns each slice's last token's logits (slices, V). prefill() is
  // the step of one slice.
  std::span<const float> step(std::span<const SeqTokens> slices);

  // fp32 activations in every matmul (decode, short prompts and steps: the GEMM kernel's multi-row path below
  // kSmallGemmMaxN + 1 tokens) instead of int8-quantized activations in the batched GEMV: slower, used to
  // measure what the int8 rounding alone changes (tests).
  void set_fp32_activations(bool on) { fp32_activations_ = on; }
  // Accumulate each prefill's (and each decode() step's) stage times into *prefill (*decode); null: no clock
  // reads. About 13 clock reads a layer.
  void set_stage_clock(PassStages* prefill, PassStages* decode = nullptr) {
    stages_ = prefill;
    decode_stages_ = decode;
  }

  // Drops the cached positions from n on (0 <= n <= cache().length()), so the next decode runs at position n
  // again: repeated decode steps at one fixed context.
  void rewind(int64_t n) { caches_[0].truncate(n); }
  // Empties sequence seq's cache (a finished or preempted sequence's slot, reused by the next).
  void reset(int64_t seq) { caches_.at(size_t(seq)).truncate(0); }
  // Sets every sequence's length to n (0 <= n <= capacity): the next step runs at position n. Positions no pass
  // wrote hold zeros; only for timing steps at a fixed context (rooftop validate's synthetic models).
  void seek(int64_t n);

  const KvCache& cache(int64_t seq = 0) const { return caches_[size_t(seq)]; }
  int64_t sequences() const { return int64_t(caches_.size()); }
  const LlamaModel& model() const { return model_; }

 private:
  void embed(int32_t token, float* out);  // out (D)
  void position(int64_t l, float* q, float* k, float* v, int64_t pos) const;
  void attend(const KvCache& cache, int64_t l, const float* q, int64_t pos, float* out);
  void residual(std::span<const float> post_norm, float* out, int64_t n);
  void activate(std::span<const float> g, std::span<const float> u, std::span<float> h) const;  // h may be g
  void per_token(int64_t n, const std::function<void(int64_t)>& fn) const;
  void batch_by_format(std::span<const kernels::GemvBatchTarget> targets, std::span<const float> X, int64_t n) const;
  void matmul(const kernels::WeightView& W, std::span<const float> X, int64_t n, std::span<float> Y) const;
  void check_tokens(std::span<const int32_t> tokens, int64_t seq) const;
  std::span<const float> pass(std::span<const SeqTokens> slices, bool all_logits);

  const LlamaModel& model_;
  kernels::ThreadPool& pool_;
  std::vector<KvCache> caches_;  // one per sequence
  bool fp32_activations_ = false;
  PassStages* stages_ = nullptr;
  PassStages* decode_stages_ = nullptr;
  // Scratch (sized for the largest n seen).
  std::vector<float> x_, xn_, q_, k_, v_, att_, o_, g_, u_, h_, logits_;
};

}  // namespace rooftop::engine
