// The synthetic decode step: a llama layer's op sequence over random weights, all layers allocated.
#include "microbench/validate_decode.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "kernels/cpu/fused.h"
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

double decode_alloc_bytes(const ModelSpec& m, WeightFormat f, int64_t context, int64_t batch, int64_t rows) {
  double bytes = 0;
  for (auto& s : layer_shapes(m).mk) bytes += static_cast<double>(s[0]) * kernels::row_bytes(f, s[1]);
  bytes += 2.0 * m.hidden * 4;                                           // norms
  bytes += 2.0 * batch * context * m.kv_heads * m.head_dim * 4;          // K and V, fp32, per sequence
  bytes *= static_cast<double>(m.layers);
  bytes += static_cast<double>(m.vocab) * kernels::row_bytes(f, m.hidden);  // LM head
  const double widths = 3.0 * m.hidden + 2.0 * m.heads * m.head_dim + 2.0 * m.kv_heads * m.head_dim + 3.0 * m.ffn;
  bytes += 4.0 * static_cast<double>(std::max(rows, batch)) * widths + 4.0 * batch * m.vocab;  // activations, logits
  return bytes;
}

DecodeModel::DecodeModel(const ModelSpec& m, WeightFormat f, int64_t max_context, uint32_t seed, int64_t max_batch,
                         int64_t max_prompt)
    : m_(m), t_(max_context), max_t_(max_context), max_b_(max_batch), max_p_(max_prompt) {
  if (auto why = decode_shape_problem(m, f); !why.empty()) throw std::invalid_argument(why);
  if (max_context < 1) throw std::invalid_argument("decode context must be >= 1");
  if (max_batch < 1) throw std::invalid_argument("decode batch must be >= 1");
  if (max_prompt < 0 || max_prompt > max_context)
    throw std::invalid_argument("prompt length must be in 0..max_context (" + std::to_string(max_context) + ")");
  rows_ = std::max(max_batch, max_prompt);
  const auto shapes = layer_shapes(m);
  const int64_t kvd = m.kv_heads * m.head_dim;
  const int64_t cache = max_batch * max_context * kvd;
  for (int64_t l = 0; l < m.layers; ++l) {
    auto w = [&](int i) {
      return random_weights(f, shapes.mk[i][0], shapes.mk[i][1], seed + static_cast<uint32_t>(l * 16 + i));
    };
    const auto s = seed + static_cast<uint32_t>(l * 16);
    layers_.push_back({w(0), w(1), w(2), w(3), w(4), w(5), w(6), AlignedFloats(m.hidden, s + 7),
                       AlignedFloats(m.hidden, s + 8), AlignedFloats(cache, s + 9), AlignedFloats(cache, s + 10)});
  }
  lm_head_ = random_weights(f, m.vocab, m.hidden, seed + 1000003u);
  out_norm_ = AlignedFloats(m.hidden, seed + 11);
  const int64_t R = rows_;
  x_ = AlignedFloats(R * m.hidden, seed + 12);
  xn_ = AlignedFloats(R * m.hidden, 1);
  q_ = AlignedFloats(R * m.heads * m.head_dim, 2);
  att_ = AlignedFloats(R * m.heads * m.head_dim, 3);
  k_ = AlignedFloats(R * kvd, 4);
  v_ = AlignedFloats(R * kvd, 5);
  proj_ = AlignedFloats(R * m.hidden, 6);
  g_ = AlignedFloats(R * m.ffn, 7);
  u_ = AlignedFloats(R * m.ffn, 8);
  act_ = AlignedFloats(R * m.ffn, 9);
  logits_ = AlignedFloats(max_batch * m.vocab, 10);
}

void DecodeModel::set_context(int64_t t) {
  if (t < 1 || t > max_t_)
    throw std::invalid_argument("decode context " + std::to_string(t) + " outside 1.." + std::to_string(max_t_));
  t_ = t;
}

namespace {

// y (n, m) = x (n, k) W^T: GEMV for one row (the decode kernel); a batched decode step uses the engine's
// multi-RHS GEMV (int8 activations, weights read once per 8 tokens); prefill uses the fp32 GEMM.
void matmul(const kernels::WeightView& W, AlignedFloats& x, int64_t n, AlignedFloats& y, kernels::ThreadPool& pool,
            bool prefill) {
  const auto xs = x.span().subspan(0, static_cast<size_t>(n * W.k));
  const auto ys = y.span().subspan(0, static_cast<size_t>(n * W.m));
  if (n == 1) kernels::gemv(W, xs, ys, pool);
  else if (prefill) kernels::gemm(W, xs, n, ys, pool);
  else kernels::gemv_batch(W, xs, n, ys, pool);
}

std::span<float> row(AlignedFloats& a, int64_t i, int64_t width) {
  return a.span().subspan(static_cast<size_t>(i * width), static_cast<size_t>(width));
}

}  // namespace

void DecodeModel::forward(kernels::ThreadPool& pool, int64_t n, bool prefill) {
  constexpr float kEps = 1e-5f;
  const int64_t H = m_.hidden, qd = m_.heads * m_.head_dim, kvd = m_.kv_heads * m_.head_dim, F = m_.ffn;
  const auto theta = static_cast<float>(m_.rope_theta);
  for (auto& L : layers_) {
    for (int64_t i = 0; i < n; ++i) kernels::rmsnorm(row(x_, i, H), L.attn_norm.span(), kEps, row(xn_, i, H));
    if (n == 1 && !prefill) {  // one region for q, k and v, as the engine's decode does
      const kernels::GemvTarget t[] = {{&L.wq.view, q_.data()}, {&L.wk.view, k_.data()}, {&L.wv.view, v_.data()}};
      kernels::gemv_multi(t, xn_.span().subspan(0, static_cast<size_t>(H)), pool);
    } else if (!prefill) {  // batched decode: q, k and v of all n sequences in one region, weights read once
      const kernels::GemvBatchTarget t[] = {{&L.wq.view, q_.data()}, {&L.wk.view, k_.data()}, {&L.wv.view, v_.data()}};
      kernels::gemv_batch_multi(t, xn_.span().subspan(0, static_cast<size_t>(n * H)), n, pool);
    } else {
      matmul(L.wq.view, xn_, n, q_, pool, prefill);
      matmul(L.wk.view, xn_, n, k_, pool, prefill);
      matmul(L.wv.view, xn_, n, v_, pool, prefill);
    }
    for (int64_t i = 0; i < n; ++i) {
      // Decode: row i is sequence i's new token at position t - 1; prefill: token i of sequence 0.
      const int64_t seq = prefill ? 0 : i, pos = prefill ? i : t_ - 1;
      kernels::rope(row(q_, i, qd), m_.heads, m_.head_dim, pos, theta);
      kernels::rope(row(k_, i, kvd), m_.kv_heads, m_.head_dim, pos, theta);
      std::memcpy(L.k_cache.data() + (seq * max_t_ + pos) * kvd, k_.data() + i * kvd, sizeof(float) * kvd);
      std::memcpy(L.v_cache.data() + (seq * max_t_ + pos) * kvd, v_.data() + i * kvd, sizeof(float) * kvd);
    }
    auto attend = [&](int64_t i, kernels::ThreadPool& p) {  // sequence i's token over its own t positions
      const kernels::KvView kv{L.k_cache.data() + i * max_t_ * kvd, L.v_cache.data() + i * max_t_ * kvd, false,
                               m_.kv_heads, m_.head_dim};
      kernels::attention_decode(row(q_, i, qd), m_.heads, kv, t_, row(att_, i, qd), p);
    };
    if (!prefill && n == 1) attend(0, pool);
    else if (!prefill)  // one region for all sequences (each worker runs whole sequences; nested calls are serial)
      pool.parallel_for(n, [&](int64_t b, int64_t e, int) {
        for (int64_t i = b; i < e; ++i) attend(i, pool);
      });
    if (prefill) {  // all (token, head) pairs of the causal prompt in one parallel region, as the engine does
      const kernels::KvView kv{L.k_cache.data(), L.v_cache.data(), false, m_.kv_heads, m_.head_dim};
      kernels::attention_prefill(q_.span().subspan(0, static_cast<size_t>(n * qd)), n, m_.heads, kv, 0,
                                 att_.span().subspan(0, static_cast<size_t>(n * qd)), pool);
    }
    matmul(L.wo.view, att_, n, proj_, pool, prefill);
    for (int64_t i = 0; i < n * H; ++i) x_.data()[i] += proj_.data()[i];
    for (int64_t i = 0; i < n; ++i) kernels::rmsnorm(row(x_, i, H), L.ffn_norm.span(), kEps, row(xn_, i, H));
    const auto nf = static_cast<size_t>(n * F);
    if (n == 1 && !prefill) {  // gate, up and SwiGLU in one region, as the engine's decode does
      kernels::gemv_swiglu(L.gate.view, L.up.view, xn_.span().subspan(0, static_cast<size_t>(H)), act_.span().subspan(0, nf), pool);
    } else if (!prefill) {
      kernels::gemv_batch_swiglu(L.gate.view, L.up.view, xn_.span().subspan(0, static_cast<size_t>(n * H)), n,
                                 act_.span().subspan(0, nf), pool);
    } else {
      matmul(L.gate.view, xn_, n, g_, pool, prefill);
      matmul(L.up.view, xn_, n, u_, pool, prefill);
      kernels::swiglu(g_.span().subspan(0, nf), u_.span().subspan(0, nf), act_.span().subspan(0, nf));
    }
    matmul(L.down.view, act_, n, proj_, pool, prefill);
    for (int64_t i = 0; i < n * H; ++i) x_.data()[i] += proj_.data()[i];
  }
  // Logits: every sequence's token at decode, only the prompt's last token at prefill.
  const int64_t first = prefill ? n - 1 : 0, count = prefill ? 1 : n;
  for (int64_t i = 0; i < count; ++i) kernels::rmsnorm(row(x_, first + i, H), out_norm_.span(), kEps, row(xn_, i, H));
  matmul(lm_head_.view, xn_, count, logits_, pool, prefill);
  // Keep the residual stream bounded across repeated steps (every step starts from a unit-RMS input).
  for (int64_t i = 0; i < n; ++i) kernels::rmsnorm(row(x_, i, H), out_norm_.span(), kEps, row(x_, i, H));
}

void DecodeModel::step(kernels::ThreadPool& pool, int64_t batch) {
  if (batch < 1 || batch > max_b_)
    throw std::invalid_argument("decode batch " + std::to_string(batch) + " outside 1.." + std::to_string(max_b_));
  forward(pool, batch, false);
}

void DecodeModel::prefill(kernels::ThreadPool& pool, int64_t prompt) {
  if (prompt < 1 || prompt > max_p_)
    throw std::invalid_argument("prompt " + std::to_string(prompt) + " outside 1.." + std::to_string(max_p_));
  forward(pool, prompt, true);
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

double DecodeModel::prefill_flops(int64_t prompt) const {
  double elements = 0;
  for (auto& s : layer_shapes(m_).mk) elements += static_cast<double>(s[0]) * s[1];
  const double P = static_cast<double>(prompt);
  const double attention = 4.0 * m_.heads * m_.head_dim * P * (P + 1) / 2;
  return static_cast<double>(m_.layers) * (2.0 * elements * P + attention) + 2.0 * m_.vocab * m_.hidden;
}

double DecodeModel::flops_per_token() const {
  double elements = 0;
  for (auto& s : layer_shapes(m_).mk) elements += static_cast<double>(s[0]) * s[1];
  const double attention = 4.0 * m_.heads * m_.head_dim * t_;
  return static_cast<double>(m_.layers) * (2.0 * elements + attention) + 2.0 * m_.vocab * m_.hidden;
}

DecodeTiming time_decode(DecodeModel& model, kernels::ThreadPool& pool, int warmup, int repetitions, int64_t batch) {
  TimerOptions opt;
  opt.warmup = warmup;
  opt.repetitions = repetitions;
  opt.min_sample_s = 5e-3;
  return {time_per_call([&] { model.step(pool, batch); }, opt)};
}

Stats time_prefill(DecodeModel& model, kernels::ThreadPool& pool, int64_t prompt, int warmup, int repetitions) {
  TimerOptions opt;
  opt.warmup = warmup;
  opt.repetitions = repetitions;
  opt.min_sample_s = 5e-3;
  return time_per_call([&] { model.prefill(pool, prompt); }, opt);
}

}  // namespace rooftop::microbench
