// The synthetic engine: a model card's shape built in memory and run by the engine's forward pass.
#include "validate/local/decode.h"

#include <algorithm>
#include <random>
#include <stdexcept>

#include "engine/synthetic.h"
#include "measure/timer.h"

namespace rooftop::validate {

using kernels::WeightFormat;

engine::LlamaConfig llama_config(const ModelSpec& m, int64_t max_context) {
  engine::LlamaConfig c;
  c.layers = m.layers;
  c.dim = m.hidden;
  c.heads = m.heads;
  c.kv_heads = m.kv_heads;
  c.head_dim = m.head_dim;
  c.ffn_dim = m.ffn;
  c.vocab = m.vocab;
  c.context = max_context;
  c.rope_base = static_cast<float>(m.rope_theta);
  return c;
}

std::string decode_shape_problem(const ModelSpec& m, WeightFormat f) {
  if (m.moe || m.mla || m.ffn_kind != FfnKind::swiglu)
    return m.id + ": only dense llama-style models (SwiGLU FFN, no MoE/MLA) are built";
  if (auto why = engine::synthetic_shape_problem(llama_config(m, 1), f); !why.empty()) return m.id + ": " + why;
  return "";
}

double decode_alloc_bytes(const ModelSpec& m, WeightFormat f, int64_t context, int64_t batch, int64_t rows) {
  const double H = static_cast<double>(m.hidden), qd = static_cast<double>(m.heads * m.head_dim),
               kvd = static_cast<double>(m.kv_heads * m.head_dim), F = static_cast<double>(m.ffn);
  auto matrix = [&](double rows_m, int64_t k) { return rows_m * static_cast<double>(kernels::row_bytes(f, k)); };
  double layer = matrix(qd, m.hidden) + 2 * matrix(kvd, m.hidden) + matrix(H, m.heads * m.head_dim) +
                 2 * matrix(F, m.hidden) + matrix(H, m.ffn);
  layer += 2.0 * H * 4;                                      // norms
  layer += 2.0 * static_cast<double>(batch * context) * kvd * 4;  // K and V, fp32, per sequence
  double bytes = layer * static_cast<double>(m.layers);
  bytes += (m.tied_embeddings ? 1.0 : 2.0) * matrix(static_cast<double>(m.vocab), m.hidden);  // embedding, LM head
  const double widths = 3.0 * H + 2.0 * qd + 2.0 * kvd + 3.0 * F;
  bytes += 4.0 * static_cast<double>(std::max(rows, batch)) * widths + 4.0 * static_cast<double>(batch * m.vocab);
  return bytes;
}

SyntheticEngine::SyntheticEngine(const ModelSpec& m, WeightFormat f, int64_t max_context, uint32_t seed,
                                 kernels::ThreadPool& pool, int64_t max_batch, int64_t max_prompt)
    : t_(max_context), max_t_(max_context), max_b_(max_batch), max_p_(max_prompt) {
  if (auto why = decode_shape_problem(m, f); !why.empty()) throw std::invalid_argument(why);
  if (max_context < 1) throw std::invalid_argument("decode context must be >= 1");
  if (max_batch < 1) throw std::invalid_argument("decode batch must be >= 1");
  if (max_prompt < 0 || max_prompt > max_context)
    throw std::invalid_argument("prompt length must be in 0..max_context (" + std::to_string(max_context) + ")");
  model_ = std::make_unique<engine::LlamaModel>(
      engine::synthetic_llama(llama_config(m, max_context), f, m.tied_embeddings, seed));
  forward_ = std::make_unique<engine::Forward>(*model_, max_context, pool, max_batch);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> token(0, static_cast<int32_t>(m.vocab - 1));
  tokens_.resize(static_cast<size_t>(std::max(max_batch, max_prompt)));
  for (auto& t : tokens_) t = token(rng);
}

void SyntheticEngine::set_context(int64_t t) {
  if (t < 1 || t > max_t_)
    throw std::invalid_argument("decode context " + std::to_string(t) + " outside 1.." + std::to_string(max_t_));
  t_ = t;
}

void SyntheticEngine::step(int64_t batch) {
  if (batch < 1 || batch > max_b_)
    throw std::invalid_argument("decode batch " + std::to_string(batch) + " outside 1.." + std::to_string(max_b_));
  forward_->seek(t_ - 1);
  logits_ = batch == 1 ? forward_->decode(tokens_[0])
                       : forward_->decode_batch(std::span<const int32_t>(tokens_).first(static_cast<size_t>(batch)));
}

void SyntheticEngine::prefill(int64_t prompt) {
  if (prompt < 1 || prompt > max_p_)
    throw std::invalid_argument("prompt " + std::to_string(prompt) + " outside 1.." + std::to_string(max_p_));
  forward_->seek(0);
  logits_ = forward_->prefill(std::span<const int32_t>(tokens_).first(static_cast<size_t>(prompt)));
}

namespace {
// The timer settings both engine timings use: samples of at least 5 ms.
measure::TimerOptions engine_timer(int warmup, int repetitions) {
  measure::TimerOptions opt;
  opt.warmup = warmup;
  opt.repetitions = repetitions;
  opt.min_sample_s = 5e-3;
  return opt;
}
}  // namespace

measure::Stats time_decode(SyntheticEngine& model, int warmup, int repetitions, int64_t batch) {
  return measure::time_per_call([&] { model.step(batch); }, engine_timer(warmup, repetitions));
}

measure::Stats time_prefill(SyntheticEngine& model, int64_t prompt, int warmup, int repetitions) {
  return measure::time_per_call([&] { model.prefill(prompt); }, engine_timer(warmup, repetitions));
}

}  // namespace rooftop::validate
