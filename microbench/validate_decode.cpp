// The synthetic decode step: a llama layer's op sequence over random weights, all layers allocated.
#include "microbench/validate_decode.h"

#include <cstring>
#include <stdexcept>

#include "microbench/timer.h"

namespace rooftop::microbench {
namespace {

using kernels::WeightFormat;

// The (m, k) shapes of one layer's matrices: q, k, v, o, gate, up, down.
struct LayerShapes {
  int64_t mk[7][2];
};
LayerShapes layer_shapes(const ModelSpec& m) {
  const int64_t H = m.hidden, qd = m.heads * m.head_dim, kvd = m.kv_heads * m.head_dim, F = m.ffn;
  return {{{qd, H}, {kvd, H}, {kvd, H}, {H, qd}, {F, H}, {F, H}, {H, F}}};
}

std::span<float> sp(AlignedFloats& a) { return a.span(); }

}  // namespace

std::string decode_shape_problem(const ModelSpec& m, WeightFormat f) {
  if (m.moe || m.mla || m.ffn_kind != FfnKind::swiglu)
    return m.id + ": only dense llama-style models (SwiGLU FFN, no MoE/MLA) are built";
  if (m.hidden <= 0 || m.layers <= 0 || m.heads <= 0 || m.kv_heads <= 0 || m.head_dim <= 0 || m.ffn <= 0 ||
      m.vocab <= 0 || m.heads % m.kv_heads != 0)
    return m.id + ": incomplete shape (hidden, layers, heads, kv_heads, head_dim, ffn, vocab)";
  const int64_t block = kernels::block_values(f);
  for (int64_t k : {m.hidden, m.heads * m.head_dim, m.ffn})
    if (k % block != 0)
      return m.id + " in " + kernels::format_name(f) + ": input width " + std::to_string(k) +
             " is not a multiple of the format's block of " + std::to_string(block);
  return "";
}

double decode_alloc_bytes(const ModelSpec& m, WeightFormat f, int64_t context) {
  double bytes = 0;
  for (auto& s : layer_shapes(m).mk) bytes += static_cast<double>(s[0]) * kernels::row_bytes(f, s[1]);
  bytes += 2.0 * m.hidden * 4;                                  // norms
  bytes += 2.0 * context * m.kv_heads * m.head_dim * 4;          // K and V, fp32
  bytes *= static_cast<double>(m.layers);
  bytes += static_cast<double>(m.vocab) * kernels::row_bytes(f, m.hidden) + 4.0 * m.vocab;  // LM head + logits
  return bytes;
}

DecodeModel::DecodeModel(const ModelSpec& m, WeightFormat f, int64_t max_context, uint32_t seed)
    : m_(m), t_(max_context), max_t_(max_context) {
  if (auto why = decode_shape_problem(m, f); !why.empty()) throw std::invalid_argument(why);
  if (max_context < 1) throw std::invalid_argument("decode context must be >= 1");
  const int64_t context = max_context;
  const auto shapes = layer_shapes(m);
  const int64_t kvd = m.kv_heads * m.head_dim;
  for (int64_t l = 0; l < m.layers; ++l) {
    auto w = [&](int i) {
      return random_weights(f, shapes.mk[i][0], shapes.mk[i][1], seed + static_cast<uint32_t>(l * 16 + i));
    };
    const auto s = seed + static_cast<uint32_t>(l * 16);
    layers_.push_back({w(0), w(1), w(2), w(3), w(4), w(5), w(6), AlignedFloats(m.hidden, s + 7),
                       AlignedFloats(m.hidden, s + 8), AlignedFloats(context * kvd, s + 9),
                       AlignedFloats(context * kvd, s + 10)});
  }
  lm_head_ = random_weights(f, m.vocab, m.hidden, seed + 1000003u);
  out_norm_ = AlignedFloats(m.hidden, seed + 11);
  x_ = AlignedFloats(m.hidden, seed + 12);
  xn_ = AlignedFloats(m.hidden, 1);
  q_ = AlignedFloats(m.heads * m.head_dim, 2);
  att_ = AlignedFloats(m.heads * m.head_dim, 3);
  k_ = AlignedFloats(kvd, 4);
  v_ = AlignedFloats(kvd, 5);
  proj_ = AlignedFloats(m.hidden, 6);
  g_ = AlignedFloats(m.ffn, 7);
  u_ = AlignedFloats(m.ffn, 8);
  act_ = AlignedFloats(m.ffn, 9);
  logits_ = AlignedFloats(m.vocab, 10);
}

void DecodeModel::set_context(int64_t t) {
  if (t < 1 || t > max_t_)
    throw std::invalid_argument("decode context " + std::to_string(t) + " outside 1.." + std::to_string(max_t_));
  t_ = t;
}

void DecodeModel::step(kernels::ThreadPool& pool) {
  constexpr float kEps = 1e-5f;
  const int64_t pos = t_ - 1;  // the new token's K/V go to the last cached position
  const int64_t kvd = m_.kv_heads * m_.head_dim;
  const auto theta = static_cast<float>(m_.rope_theta);
  for (auto& L : layers_) {
    kernels::rmsnorm(x_.span(), L.attn_norm.span(), kEps, sp(xn_));
    kernels::gemv(L.wq.view, xn_.span(), sp(q_), pool);
    kernels::gemv(L.wk.view, xn_.span(), sp(k_), pool);
    kernels::gemv(L.wv.view, xn_.span(), sp(v_), pool);
    kernels::rope(sp(q_), m_.heads, m_.head_dim, pos, theta);
    kernels::rope(sp(k_), m_.kv_heads, m_.head_dim, pos, theta);
    std::memcpy(L.k_cache.data() + pos * kvd, k_.data(), sizeof(float) * kvd);
    std::memcpy(L.v_cache.data() + pos * kvd, v_.data(), sizeof(float) * kvd);
    const kernels::KvView kv{L.k_cache.data(), L.v_cache.data(), false, m_.kv_heads, m_.head_dim};
    kernels::attention_decode(q_.span(), m_.heads, kv, t_, sp(att_), pool);
    kernels::gemv(L.wo.view, att_.span(), sp(proj_), pool);
    for (int64_t i = 0; i < m_.hidden; ++i) x_.data()[i] += proj_.data()[i];
    kernels::rmsnorm(x_.span(), L.ffn_norm.span(), kEps, sp(xn_));
    kernels::gemv(L.gate.view, xn_.span(), sp(g_), pool);
    kernels::gemv(L.up.view, xn_.span(), sp(u_), pool);
    kernels::swiglu(g_.span(), u_.span(), sp(act_));
    kernels::gemv(L.down.view, act_.span(), sp(proj_), pool);
    for (int64_t i = 0; i < m_.hidden; ++i) x_.data()[i] += proj_.data()[i];
  }
  kernels::rmsnorm(x_.span(), out_norm_.span(), kEps, sp(xn_));
  kernels::gemv(lm_head_.view, xn_.span(), sp(logits_), pool);
  // Keep the residual stream bounded across repeated steps (every step starts from a unit-RMS input).
  kernels::rmsnorm(x_.span(), out_norm_.span(), kEps, sp(x_));
}

double DecodeModel::weight_bytes_per_token() const {
  double bytes = static_cast<double>(lm_head_.view.bytes()) + 4.0 * m_.hidden;
  for (const auto& L : layers_)
    for (const auto* w : {&L.wq, &L.wk, &L.wv, &L.wo, &L.gate, &L.up, &L.down})
      bytes += static_cast<double>(w->view.bytes());
  return bytes + 2.0 * 4.0 * m_.hidden * m_.layers;
}

double DecodeModel::kv_read_bytes_per_token() const {
  return 2.0 * 4.0 * static_cast<double>(m_.layers) * t_ * m_.kv_heads * m_.head_dim;
}

double DecodeModel::flops_per_token() const {
  double elements = 0;
  for (auto& s : layer_shapes(m_).mk) elements += static_cast<double>(s[0]) * s[1];
  const double attention = 4.0 * m_.heads * m_.head_dim * t_;
  return static_cast<double>(m_.layers) * (2.0 * elements + attention) + 2.0 * m_.vocab * m_.hidden;
}

DecodeTiming time_decode(DecodeModel& model, kernels::ThreadPool& pool, int warmup, int repetitions) {
  TimerOptions opt;
  opt.warmup = warmup;
  opt.repetitions = repetitions;
  opt.min_sample_s = 5e-3;
  return {time_per_call([&] { model.step(pool); }, opt)};
}

}  // namespace rooftop::microbench
