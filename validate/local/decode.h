// The engine's own forward pass (engine::Forward, the code `rooftop run` times) over a synthetic llama with a
// model card's layer shapes, and its timing: what `rooftop validate` measures.
//
// Dimension legend: H = hidden, h = query heads, hk = KV heads, d = head dim, F = FFN intermediate,
// V = vocab, L = layers, t = cached positions (the context), B = sequences in a batch, P = prompt tokens.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/model_spec.h"
#include "engine/forward.h"
#include "engine/model.h"
#include "kernels/cpu/kernels.h"
#include "kernels/cpu/thread_pool.h"
#include "measure/stats.h"

namespace rooftop::validate {

// The engine's shape for a dense llama-style model card (context = max_context).
engine::LlamaConfig llama_config(const ModelSpec& m, int64_t max_context);

// Why a (model, format) pair cannot be built ("" = it can): the engine runs dense llama-style models (SwiGLU
// FFN, no MoE/MLA), and the format's block size must divide every matrix's input width (H, h x d, F).
std::string decode_shape_problem(const ModelSpec& m, kernels::WeightFormat f);

// Bytes the synthetic model allocates: all layers' weights, norms, the embedding and (untied) LM head, fp32 KV
// of `context` positions for each of `batch` sequences, and activations of `rows` tokens.
double decode_alloc_bytes(const ModelSpec& m, kernels::WeightFormat f, int64_t context, int64_t batch = 1,
                          int64_t rows = 1);

// A synthetic llama (engine::synthetic_llama: every layer's weights allocated separately, random, never zero)
// run by engine::Forward with `max_batch` sequences of up to `max_context` positions.
class SyntheticEngine {
 public:
  // Throws std::invalid_argument when decode_shape_problem(m, f) is non-empty, or max_prompt is outside
  // 0..max_context.
  SyntheticEngine(const ModelSpec& m, kernels::WeightFormat f, int64_t max_context, uint32_t seed,
                  kernels::ThreadPool& pool, int64_t max_batch = 1, int64_t max_prompt = 0);
  void set_context(int64_t t);  // 1 <= t <= max_context, else std::invalid_argument
  int64_t context() const { return t_; }
  // One decode step of `batch` sequences (1 <= batch <= max_batch), each at position t - 1 so it attends over
  // t positions: Forward::decode at batch 1, Forward::decode_batch above. The cached positions before t - 1
  // hold what earlier steps wrote (zeros at first): the work per step is that of context t.
  void step(int64_t batch = 1);
  // Prefill of one prompt of `prompt` tokens (1 <= prompt <= max_prompt) from position 0: Forward::prefill.
  void prefill(int64_t prompt);
  std::span<const float> logits() const { return logits_; }  // the last call's logits
  const engine::LlamaModel& model() const { return *model_; }

 private:
  std::unique_ptr<engine::LlamaModel> model_;  // Forward keeps a reference: the model never moves
  std::unique_ptr<engine::Forward> forward_;
  int64_t t_ = 0, max_t_ = 0, max_b_ = 1, max_p_ = 0;
  std::vector<int32_t> tokens_;  // random token ids: the batch's next tokens and the prompt
  std::span<const float> logits_;
};

// Seconds per decode step (warm-up steps, then samples of whole steps).
measure::Stats time_decode(SyntheticEngine& model, int warmup, int repetitions, int64_t batch = 1);
// Seconds per prefill of a `prompt`-token prompt (the time to first token).
measure::Stats time_prefill(SyntheticEngine& model, int64_t prompt, int warmup, int repetitions);

}  // namespace rooftop::validate
