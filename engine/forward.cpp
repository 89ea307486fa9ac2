// Llama layers: x += Wo attn(rope(Wq n(x)), rope(Wk n(x)), Wv n(x)); x += Wd (silu(Wg n(x)) * Wu n(x)).
// Gemma 3 adds: x0 = sqrt(D) embed; q and k heads RMS-normed before RoPE; Wo's and Wd's outputs RMS-normed
// before the residual add; gelu instead of silu; local layers attend to the last W positions only.
#include "engine/forward.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "base/errors.h"
#include "kernels/cpu/fused.h"

namespace rooftop::engine {

using kernels::WeightView;

namespace {

// The stage clock (Forward::set_stage_clock): each lap adds the time since the previous lap (or since the clock
// started) to one stage; without a target it reads no clock.
class StageClock {
 public:
  explicit StageClock(PassStages* stages) : stages_(stages) {
    if (stages_) mark_ = Clock::now();
  }
  void lap(double PassStages::*stage) {
    if (!stages_) return;
    const Clock::time_point t = Clock::now();
    stages_->*stage += std::chrono::duration<double>(t - mark_).count();
    mark_ = t;
  }

 private:
  using Clock = std::chrono::steady_clock;
  PassStages* stages_;
  Clock::time_point mark_;
};

}  // namespace

Forward::Forward(const LlamaModel& model, int64_t capacity, kernels::ThreadPool& pool, int64_t sequences)
    : model_(model), pool_(pool) {
  if (sequences < 1) throw InternalError("Forward: at least one sequence");
  const LlamaConfig& c = model.cfg;
  std::vector<int64_t> slots;  // local layers keep only their window (a ring)
  for (int64_t l = 0; l < c.layers; ++l) slots.push_back(c.kv_slots(l, capacity));
  for (int64_t s = 0; s < sequences; ++s) caches_.emplace_back(c.layers, capacity, c.kv_heads, c.head_dim, slots);
}

void Forward::seek(int64_t n) {
  for (KvCache& c : caches_) {
    if (n <= c.length()) c.truncate(n);
    else c.set_length(n);
  }
}

void Forward::check_tokens(std::span<const int32_t> tokens, int64_t seq) const {
  if (seq < 0 || seq >= sequences())
    throw InternalError("Forward: sequence " + std::to_string(seq) + " outside 0.." + std::to_string(sequences() - 1));
  const KvCache& cache_ = caches_[size_t(seq)];
  for (int32_t t : tokens)
    if (t < 0 || t >= model_.cfg.vocab)
      throw InputError("token id " + std::to_string(t) + " is outside the vocabulary (0.." +
                       std::to_string(model_.cfg.vocab - 1) + ")");
  if (cache_.length() + int64_t(tokens.size()) > cache_.capacity())
    throw InputError("prompt and output need " + std::to_string(cache_.length() + int64_t(tokens.size())) +
                     " positions but the context holds " + std::to_string(cache_.capacity()) + " tokens");
}

void Forward::embed(int32_t token, float* out) {
  const WeightView& e = model_.token_embd;
  const int64_t rb = kernels::row_bytes(e.format, e.k);
  kernels::dequantize_row(e.format, e.data + int64_t(token) * rb, {out, size_t(e.k)});
  if (model_.cfg.embed_scale != 1.f)
    for (int64_t i = 0; i < e.k; ++i) out[i] *= model_.cfg.embed_scale;
}

// One token's q (H, d), k and v (Hk, d) in layer l at position pos: the projections' biases (Qwen2), head norms
// (Gemma), RoPE at the layer's base, and the query scale when it is not 1/sqrt(d) (attention applies 1/sqrt(d)).
void Forward::position(int64_t l, float* q, float* k, float* v, int64_t pos) const {
  const LlamaConfig& c = model_.cfg;
  const LayerWeights& w = model_.layers[size_t(l)];
  const size_t d = size_t(c.head_dim);
  auto add = [](float* x, std::span<const float> b) {
    for (size_t i = 0; i < b.size(); ++i) x[i] += b[i];
  };
  add(q, w.q_bias);
  add(k, w.k_bias);
  add(v, w.v_bias);
  if (!w.q_norm.empty())
    for (int64_t h = 0; h < c.heads; ++h) kernels::rmsnorm({q + h * c.head_dim, d}, w.q_norm, c.rms_eps, {q + h * c.head_dim, d});
  if (!w.k_norm.empty())
    for (int64_t h = 0; h < c.kv_heads; ++h) kernels::rmsnorm({k + h * c.head_dim, d}, w.k_norm, c.rms_eps, {k + h * c.head_dim, d});
  const bool local = c.is_local(l);
  const float base = local ? c.rope_base_local : c.rope_base, scale = local ? 1.f : c.rope_freq_scale;
  kernels::rope({q, size_t(c.heads) * d}, c.heads, c.head_dim, pos, base, c.rope_style, scale, model_.rope_freqs);
  kernels::rope({k, size_t(c.kv_heads) * d}, c.kv_heads, c.head_dim, pos, base, c.rope_style, scale, model_.rope_freqs);
  if (c.query_scale > 0) {
    const float f = c.query_scale * std::sqrt(float(c.head_dim));
    for (int64_t i = 0; i < c.heads * c.head_dim; ++i) q[i] *= f;
  }
}

// Decode attention of one token at position pos of `cache` in layer l (its K and V written), over the positions
// it may see: [first_visible, pos]. Those are slots [first, pos] while the layer has not wrapped, else every slot
// of the ring (which holds exactly the window).
void Forward::attend(const KvCache& cache, int64_t l, const float* q, int64_t pos, float* out) {
  const LlamaConfig& c = model_.cfg;
  const int64_t first = c.first_visible(l, pos), qd = c.heads * c.head_dim, visible = pos + 1 - first;
  kernels::KvView v = cache.view(l);
  if (pos < cache.slots(l)) {
    const int64_t skip = first * c.kv_heads * c.head_dim;  // rows before the window
    v.k = static_cast<const float*>(v.k) + skip;
    v.v = static_cast<const float*>(v.v) + skip;
  } else if (visible != cache.slots(l)) {
    throw InternalError("Forward: layer " + std::to_string(l) + " wrapped its " + std::to_string(cache.slots(l)) +
                        " slots but sees " + std::to_string(visible) + " positions");
  }
  kernels::attention_decode({q, size_t(qd)}, c.heads, v, visible, {out, size_t(qd)}, pool_);
}

// out (n, D) = RMSNorm(out) with the layer's post norm (Gemma), then x += out.
void Forward::residual(std::span<const float> post_norm, float* out, int64_t n) {
  const LlamaConfig& c = model_.cfg;
  const size_t D = size_t(c.dim);
  per_token(n, [&](int64_t i) {
    float* o = out + i * c.dim;
    if (!post_norm.empty()) kernels::rmsnorm({o, D}, post_norm, c.rms_eps, {o, D});
    float* x = x_.data() + i * c.dim;
    for (size_t j = 0; j < D; ++j) x[j] += o[j];
  });
}

// fn(i) for tokens i in [0, n), split over the pool (one token alone runs here).
void Forward::per_token(int64_t n, const std::function<void(int64_t)>& fn) const {
  if (n == 1) return fn(0);
  pool_.parallel_for(n, [&](int64_t b, int64_t e, int) {
    for (int64_t i = b; i < e; ++i) fn(i);
  });
}

// h = act(g) * u, split over the pool in 4096-value pieces (a prefill's n x F values are worth both cores).
void Forward::activate(std::span<const float> g, std::span<const float> u, std::span<float> h) const {
  constexpr int64_t kPiece = 4096;
  const int64_t size = int64_t(g.size()), pieces = (size + kPiece - 1) / kPiece;
  pool_.parallel_for(pieces, [&](int64_t b, int64_t e, int) {
    const size_t off = size_t(b * kPiece), len = size_t(std::min(size, e * kPiece) - b * kPiece);
    if (model_.cfg.gelu) kernels::geglu(g.subspan(off, len), u.subspan(off, len), h.subspan(off, len));
    else kernels::swiglu(g.subspan(off, len), u.subspan(off, len), h.subspan(off, len));
  });
}

std::span<const float> Forward::prefill(std::span<const int32_t> tokens, bool all_logits, int64_t seq) {
  if (tokens.empty()) throw InputError("the prompt is empty: at least one token is needed");
  const SeqTokens one[1] = {{seq, tokens}};
  return pass(one, all_logits);
}

std::span<const float> Forward::step(std::span<const SeqTokens> slices) {
  if (slices.empty()) throw InternalError("Forward: a step with no sequences");
  return pass(slices, false);
}

// One pass over the slices' tokens: matmuls over all of them (rows in slice order), attention per sequence.
std::span<const float> Forward::pass(std::span<const SeqTokens> slices, bool all_logits) {
  const LlamaConfig& c = model_.cfg;
  std::vector<int64_t> first_row(slices.size()), pos0(slices.size());
  int64_t n = 0;
  for (size_t s = 0; s < slices.size(); ++s) {
    if (slices[s].tokens.empty()) throw InternalError("Forward: a slice with no tokens");
    check_tokens(slices[s].tokens, slices[s].seq);
    for (size_t r = 0; r < s; ++r)
      if (slices[r].seq == slices[s].seq) throw InternalError("Forward: sequence " + std::to_string(slices[s].seq) + " twice in one step");
    first_row[s] = n;
    pos0[s] = caches_[size_t(slices[s].seq)].length();
    n += int64_t(slices[s].tokens.size());
  }
  const int64_t D = c.dim, qd = c.heads * c.head_dim, kvd = c.kv_heads * c.head_dim, F = c.ffn_dim;
  auto grow = [](std::vector<float>& v, int64_t size) {
    if (int64_t(v.size()) < size) v.resize(size_t(size));
  };
  grow(x_, n * D); grow(xn_, n * D); grow(q_, n * qd); grow(k_, n * kvd); grow(v_, n * kvd);
  grow(att_, n * qd); grow(o_, n * D); grow(g_, n * F); grow(u_, n * F);  // the activation goes into g_ in place
  // Each row's sequence slot and position.
  std::vector<int64_t> row_seq(static_cast<size_t>(n)), row_pos(static_cast<size_t>(n));
  for (size_t s = 0; s < slices.size(); ++s)
    for (int64_t i = 0; i < int64_t(slices[s].tokens.size()); ++i) {
      row_seq[size_t(first_row[s] + i)] = slices[s].seq;
      row_pos[size_t(first_row[s] + i)] = pos0[s] + i;
    }
  StageClock clock(stages_);
  auto lap = [&](double PassStages::*stage) { clock.lap(stage); };
  for (size_t s = 0; s < slices.size(); ++s)
    for (size_t i = 0; i < slices[s].tokens.size(); ++i) embed(slices[s].tokens[i], x_.data() + (first_row[s] + int64_t(i)) * D);
  lap(&PassStages::embed);

  auto span = [](std::vector<float>& v, int64_t size) { return std::span<float>(v.data(), size_t(size)); };
  auto cspan = [](const std::vector<float>& v, int64_t size) { return std::span<const float>(v.data(), size_t(size)); };
  for (int64_t l = 0; l < c.layers; ++l) {
    const LayerWeights& w = model_.layers[size_t(l)];
    per_token(n, [&](int64_t i) {
      kernels::rmsnorm({x_.data() + i * D, size_t(D)}, w.attn_norm, c.rms_eps, {xn_.data() + i * D, size_t(D)});
    });
    lap(&PassStages::norms);
    matmul(w.wq, cspan(xn_, n * D), n, span(q_, n * qd));  // q (n, H*d)
    matmul(w.wk, cspan(xn_, n * D), n, span(k_, n * kvd)); // k (n, Hk*d)
    matmul(w.wv, cspan(xn_, n * D), n, span(v_, n * kvd)); // v (n, Hk*d)
    lap(&PassStages::attn_proj);
    auto store = [&](int64_t i) {
      KvCache& cache = caches_[size_t(row_seq[size_t(i)])];
      std::copy_n(k_.data() + i * kvd, kvd, cache.k_row(l, row_pos[size_t(i)]));
      std::copy_n(v_.data() + i * kvd, kvd, cache.v_row(l, row_pos[size_t(i)]));
    };
    per_token(n, [&](int64_t i) {
      position(l, q_.data() + i * qd, k_.data() + i * kvd, v_.data() + i * kvd, row_pos[size_t(i)]);
    });
    lap(&PassStages::small_ops);
    // Slices of one token (decodes): every one in one parallel region, a worker runs whole sequences.
    std::vector<size_t> singles;
    for (size_t s = 0; s < slices.size(); ++s)
      if (slices[s].tokens.size() == 1) singles.push_back(s);
    if (!singles.empty())
      pool_.parallel_for(int64_t(singles.size()), [&](int64_t b, int64_t e, int) {
        for (int64_t j = b; j < e; ++j) {
          const int64_t i = first_row[singles[size_t(j)]];
          store(i);
          attend(caches_[size_t(row_seq[size_t(i)])], l, q_.data() + i * qd, row_pos[size_t(i)], att_.data() + i * qd);
        }
      });
    for (size_t s = 0; s < slices.size(); ++s) {
      const int64_t m = int64_t(slices[s].tokens.size()), r0 = first_row[s];
      if (m == 1) continue;
      const KvCache& cache = caches_[size_t(slices[s].seq)];
      if (c.first_visible(l, pos0[s] + m - 1) == 0) {
        // causal: token i sees positions [0, pos0 + i]; all (token, head) pairs in one parallel region
        for (int64_t i = 0; i < m; ++i) store(r0 + i);
        kernels::attention_prefill({q_.data() + r0 * qd, size_t(m * qd)}, m, c.heads, cache.view(l), pos0[s],
                                   {att_.data() + r0 * qd, size_t(m * qd)}, pool_);
      } else {  // a sliding window cuts some token's view: token by token, each written to the ring before it attends
        for (int64_t i = r0; i < r0 + m; ++i) {
          store(i);
          attend(cache, l, q_.data() + i * qd, row_pos[size_t(i)], att_.data() + i * qd);
        }
      }
    }
    lap(&PassStages::attention);  // with the KV stores (2 rows a token: small)
    matmul(w.wo, cspan(att_, n * qd), n, span(o_, n * D));  // o (n, D)
    lap(&PassStages::attn_proj);
    residual(w.post_attn_norm, o_.data(), n);
    lap(&PassStages::small_ops);
    per_token(n, [&](int64_t i) {
      kernels::rmsnorm({x_.data() + i * D, size_t(D)}, w.ffn_norm, c.rms_eps, {xn_.data() + i * D, size_t(D)});
    });
    lap(&PassStages::norms);
    matmul(w.gate, cspan(xn_, n * D), n, span(g_, n * F));  // g (n, F)
    matmul(w.up, cspan(xn_, n * D), n, span(u_, n * F));    // u (n, F)
    lap(&PassStages::ffn);
    activate(cspan(g_, n * F), cspan(u_, n * F), span(g_, n * F));  // in place: no third (n, F) buffer
    lap(&PassStages::small_ops);
    matmul(w.down, cspan(g_, n * F), n, span(o_, n * D));  // (n, D)
    lap(&PassStages::ffn);
    residual(w.post_ffn_norm, o_.data(), n);
    lap(&PassStages::small_ops);
  }
  for (size_t s = 0; s < slices.size(); ++s)
    caches_[size_t(slices[s].seq)].set_length(pos0[s] + int64_t(slices[s].tokens.size()));
  // Logits of every row (all_logits, one slice), else of each slice's last token.
  std::vector<int64_t> rows;
  if (all_logits) {
    for (int64_t i = 0; i < n; ++i) rows.push_back(i);
  } else {
    for (size_t s = 0; s < slices.size(); ++s) rows.push_back(first_row[s] + int64_t(slices[s].tokens.size()) - 1);
  }
  const int64_t nr = int64_t(rows.size());
  for (int64_t j = 0; j < nr; ++j)
    kernels::rmsnorm({x_.data() + rows[size_t(j)] * D, size_t(D)}, model_.output_norm, c.rms_eps, {xn_.data() + j * D, size_t(D)});
  grow(logits_, nr * c.vocab);
  if (nr == 1 && !fp32_activations_)
    kernels::gemv(model_.output, cspan(xn_, D), span(logits_, c.vocab), pool_);
  else
    matmul(model_.output, cspan(xn_, nr * D), nr, span(logits_, nr * c.vocab));  // (rows, V)
  lap(&PassStages::lm_head);  // with the output norm
  return {logits_.data(), size_t(nr * c.vocab)};
}

std::span<const float> Forward::decode(int32_t token) {
  const int32_t one[1] = {token};
  check_tokens(one, 0);
  KvCache& cache_ = caches_[0];
  const LlamaConfig& c = model_.cfg;
  const int64_t D = c.dim, qd = c.heads * c.head_dim, kvd = c.kv_heads * c.head_dim, F = c.ffn_dim;
  const int64_t pos = cache_.length();
  auto grow = [](std::vector<float>& v, int64_t size) {
    if (int64_t(v.size()) < size) v.resize(size_t(size));
  };
  grow(x_, D); grow(xn_, D); grow(q_, qd); grow(k_, kvd); grow(v_, kvd); grow(att_, qd); grow(o_, D);
  grow(g_, F); grow(u_, F); grow(h_, F); grow(logits_, c.vocab);
  auto sp = [](std::vector<float>& v, int64_t size) { return std::span<float>(v.data(), size_t(size)); };
  auto cs = [](const std::vector<float>& v, int64_t size) { return std::span<const float>(v.data(), size_t(size)); };
  auto matvec = [&](const WeightView& W, std::span<const float> x, std::span<float> y) {
    if (fp32_activations_) kernels::gemm(W, x, 1, y, pool_);
    else kernels::gemv(W, x, y, pool_);
  };
  StageClock clock(decode_stages_);
  auto lap = [&](double PassStages::*stage) { clock.lap(stage); };
  embed(token, x_.data());  // x (D)
  lap(&PassStages::embed);
  for (int64_t l = 0; l < c.layers; ++l) {
    const LayerWeights& w = model_.layers[size_t(l)];
    kernels::rmsnorm(cs(x_, D), w.attn_norm, c.rms_eps, sp(xn_, D));
    lap(&PassStages::norms);
    if (fp32_activations_) {
      kernels::gemm(w.wq, cs(xn_, D), 1, sp(q_, qd), pool_);
      kernels::gemm(w.wk, cs(xn_, D), 1, {cache_.k_row(l, pos), size_t(kvd)}, pool_);
      kernels::gemm(w.wv, cs(xn_, D), 1, {cache_.v_row(l, pos), size_t(kvd)}, pool_);
    } else {  // q (H*d), k and v (Hk*d) straight into the cache: the rows of the three matrices as one range
      const kernels::GemvTarget qkv[3] = {{&w.wq, q_.data()}, {&w.wk, cache_.k_row(l, pos)}, {&w.wv, cache_.v_row(l, pos)}};
      kernels::gemv_multi(qkv, cs(xn_, D), pool_);
    }
    lap(&PassStages::attn_proj);
    position(l, q_.data(), cache_.k_row(l, pos), cache_.v_row(l, pos), pos);
    lap(&PassStages::small_ops);
    attend(cache_, l, q_.data(), pos, att_.data());
    lap(&PassStages::attention);
    matvec(w.wo, cs(att_, qd), sp(o_, D));
    lap(&PassStages::attn_proj);
    residual(w.post_attn_norm, o_.data(), 1);
    lap(&PassStages::small_ops);
    kernels::rmsnorm(cs(x_, D), w.ffn_norm, c.rms_eps, sp(xn_, D));
    lap(&PassStages::norms);
    if (fp32_activations_) {
      kernels::gemm(w.gate, cs(xn_, D), 1, sp(g_, F), pool_);
      kernels::gemm(w.up, cs(xn_, D), 1, sp(u_, F), pool_);
      activate(cs(g_, F), cs(u_, F), sp(h_, F));
    } else if (c.gelu) {
      const kernels::GemvTarget gu[2] = {{&w.gate, g_.data()}, {&w.up, u_.data()}};
      kernels::gemv_multi(gu, cs(xn_, D), pool_);
      lap(&PassStages::ffn);
      activate(cs(g_, F), cs(u_, F), sp(h_, F));
      lap(&PassStages::small_ops);
    } else {
      kernels::gemv_swiglu(w.gate, w.up, cs(xn_, D), sp(h_, F), pool_);  // h (F) = silu(gate xn) * up xn
    }
    matvec(w.down, cs(h_, F), sp(o_, D));
    lap(&PassStages::ffn);  // gate/up (with the fused SwiGLU, or the fp32 path's activation) and down
    residual(w.post_ffn_norm, o_.data(), 1);
    lap(&PassStages::small_ops);
  }
  cache_.set_length(pos + 1);
  kernels::rmsnorm(cs(x_, D), model_.output_norm, c.rms_eps, sp(xn_, D));
  matvec(model_.output, cs(xn_, D), sp(logits_, c.vocab));  // logits (V)
  lap(&PassStages::lm_head);  // with the output norm
  return {logits_.data(), size_t(c.vocab)};
}

// A matmul of n tokens: below the kernels' GEMM threshold for W's format (kernels::gemm_min_tokens: 9, or the amx
// table's 7-17 by format) the batched GEMV that decode runs (int8 activations where the format has an integer dot,
// each weight row read once per group of tokens), from it the GEMM. The GEMM's own path for so few tokens keeps
// fp32 activations and dequantizes each row: a 2-8 token prompt took 3x its decode step's time (this VM,
// smollm2-360m q4_0: 8 tokens 89 ms against 67 ms for 9 through the GEMM).
void Forward::matmul(const kernels::WeightView& W, std::span<const float> X, int64_t n, std::span<float> Y) const {
  if (!fp32_activations_ && n < kernels::gemm_min_tokens(W.format, W.k)) kernels::gemv_batch(W, X, n, Y, pool_);
  else kernels::gemm(W, X, n, Y, pool_);
}

// The targets' batched GEMVs on the same X, one parallel region per weight format (a file may store q and k in
// one format and v in another: Gemma 3's Q4_K_M file has q5_0 q/k beside q8_0 v).
void Forward::batch_by_format(std::span<const kernels::GemvBatchTarget> targets, std::span<const float> X, int64_t n) const {
  std::vector<kernels::GemvBatchTarget> group;
  std::vector<bool> done(targets.size(), false);
  for (size_t i = 0; i < targets.size(); ++i) {
    if (done[i]) continue;
    group.clear();
    for (size_t j = i; j < targets.size(); ++j)
      if (!done[j] && targets[j].W->format == targets[i].W->format) {
        group.push_back(targets[j]);
        done[j] = true;
      }
    kernels::gemv_batch_multi(group, X, n, pool_);
  }
}

std::span<const float> Forward::decode_batch(std::span<const int32_t> tokens, std::span<const int64_t> seqs) {
  const int64_t n = int64_t(tokens.size());
  if (n < 1 || n > sequences() || (!seqs.empty() && int64_t(seqs.size()) != n))
    throw InternalError("Forward: a batch of " + std::to_string(n) + " tokens for " + std::to_string(sequences()) +
                        " sequences");
  // Row i's sequence slot: seqs[i], else i.
  std::vector<int64_t> slot(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    slot[size_t(i)] = seqs.empty() ? i : seqs[size_t(i)];
    check_tokens(tokens.subspan(size_t(i), 1), slot[size_t(i)]);
    for (int64_t j = 0; j < i; ++j)
      if (slot[size_t(j)] == slot[size_t(i)]) throw InternalError("Forward: sequence " + std::to_string(slot[size_t(i)]) + " twice in one step");
  }
  const LlamaConfig& c = model_.cfg;
  const int64_t D = c.dim, qd = c.heads * c.head_dim, kvd = c.kv_heads * c.head_dim, F = c.ffn_dim;
  auto grow = [](std::vector<float>& v, int64_t size) {
    if (int64_t(v.size()) < size) v.resize(size_t(size));
  };
  grow(x_, n * D); grow(xn_, n * D); grow(q_, n * qd); grow(k_, n * kvd); grow(v_, n * kvd); grow(att_, n * qd);
  grow(o_, n * D); grow(g_, n * F); grow(u_, n * F); grow(h_, n * F); grow(logits_, n * c.vocab);
  auto sp = [](std::vector<float>& v, int64_t off, int64_t size) { return std::span<float>(v.data() + off, size_t(size)); };
  auto cs = [](const std::vector<float>& v, int64_t size) { return std::span<const float>(v.data(), size_t(size)); };
  for (int64_t i = 0; i < n; ++i) embed(tokens[size_t(i)], x_.data() + i * D);  // x (n, D)
  for (int64_t l = 0; l < c.layers; ++l) {
    const LayerWeights& w = model_.layers[size_t(l)];
    per_token(n, [&](int64_t i) { kernels::rmsnorm(sp(x_, i * D, D), w.attn_norm, c.rms_eps, sp(xn_, i * D, D)); });
    // q (n, H*d), k and v (n, Hk*d) of all sequences in one region, each weight block read once
    const kernels::GemvBatchTarget qkv[3] = {{&w.wq, q_.data()}, {&w.wk, k_.data()}, {&w.wv, v_.data()}};
    batch_by_format(qkv, cs(xn_, n * D), n);
    per_token(n, [&](int64_t i) {  // distinct sequences: each worker writes its own cache rows
      KvCache& kv = caches_[size_t(slot[size_t(i)])];
      const int64_t pos = kv.length();
      position(l, q_.data() + i * qd, k_.data() + i * kvd, v_.data() + i * kvd, pos);
      std::copy_n(k_.data() + i * kvd, kvd, kv.k_row(l, pos));
      std::copy_n(v_.data() + i * kvd, kvd, kv.v_row(l, pos));
    });
    // every sequence's attention in one region: a worker runs whole sequences (nested calls run serially)
    pool_.parallel_for(n, [&](int64_t b, int64_t e, int) {
      for (int64_t i = b; i < e; ++i) {
        const KvCache& kv = caches_[size_t(slot[size_t(i)])];
        attend(kv, l, q_.data() + i * qd, kv.length(), att_.data() + i * qd);
      }
    });
    kernels::gemv_batch(w.wo, cs(att_, n * qd), n, sp(o_, 0, n * D), pool_);
    residual(w.post_attn_norm, o_.data(), n);
    per_token(n, [&](int64_t i) { kernels::rmsnorm(sp(x_, i * D, D), w.ffn_norm, c.rms_eps, sp(xn_, i * D, D)); });
    if (c.gelu || w.gate.format != w.up.format) {
      const kernels::GemvBatchTarget gu[2] = {{&w.gate, g_.data()}, {&w.up, u_.data()}};
      batch_by_format(gu, cs(xn_, n * D), n);
      activate(cs(g_, n * F), cs(u_, n * F), sp(h_, 0, n * F));
    } else {
      kernels::gemv_batch_swiglu(w.gate, w.up, cs(xn_, n * D), n, sp(h_, 0, n * F), pool_);  // h (n, F)
    }
    kernels::gemv_batch(w.down, cs(h_, n * F), n, sp(o_, 0, n * D), pool_);
    residual(w.post_ffn_norm, o_.data(), n);
  }
  for (int64_t i = 0; i < n; ++i) {
    KvCache& kv = caches_[size_t(slot[size_t(i)])];
    kv.set_length(kv.length() + 1);
    kernels::rmsnorm(sp(x_, i * D, D), model_.output_norm, c.rms_eps, sp(xn_, i * D, D));
  }
  kernels::gemv_batch(model_.output, cs(xn_, n * D), n, sp(logits_, 0, n * c.vocab), pool_);  // logits (n, V)
  return {logits_.data(), size_t(n * c.vocab)};
}

}  // namespace rooftop::engine
