// Llama layers: x += Wo attn(rope(Wq n(x)), rope(Wk n(x)), Wv n(x)); x += Wd (silu(Wg n(x)) * Wu n(x)).
#include "engine/forward.h"

#include "base/errors.h"
#include "kernels/cpu/fused.h"

namespace rooftop::engine {

using kernels::WeightView;

Forward::Forward(const LlamaModel& model, int64_t capacity, kernels::ThreadPool& pool, int64_t sequences)
    : model_(model), pool_(pool) {
  if (sequences < 1) throw InternalError("Forward: at least one sequence");
  for (int64_t s = 0; s < sequences; ++s)
    caches_.emplace_back(model.cfg.layers, capacity, model.cfg.kv_heads, model.cfg.head_dim);
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
}

std::span<const float> Forward::prefill(std::span<const int32_t> tokens, bool all_logits, int64_t seq) {
  check_tokens(tokens, seq);
  KvCache& cache_ = caches_[size_t(seq)];
  const LlamaConfig& c = model_.cfg;
  const int64_t n = int64_t(tokens.size());
  if (n == 0) throw InputError("the prompt is empty: at least one token is needed");
  const int64_t D = c.dim, qd = c.heads * c.head_dim, kvd = c.kv_heads * c.head_dim, F = c.ffn_dim;
  const int64_t pos0 = cache_.length();
  auto grow = [](std::vector<float>& v, int64_t size) {
    if (int64_t(v.size()) < size) v.resize(size_t(size));
  };
  grow(x_, n * D); grow(xn_, n * D); grow(q_, n * qd); grow(k_, n * kvd); grow(v_, n * kvd);
  grow(att_, n * qd); grow(o_, n * D); grow(g_, n * F); grow(u_, n * F); grow(h_, n * F);
  for (int64_t i = 0; i < n; ++i) embed(tokens[size_t(i)], x_.data() + i * D);  // x (n, D)

  auto span = [](std::vector<float>& v, int64_t size) { return std::span<float>(v.data(), size_t(size)); };
  auto cspan = [](const std::vector<float>& v, int64_t size) { return std::span<const float>(v.data(), size_t(size)); };
  for (int64_t l = 0; l < c.layers; ++l) {
    const LayerWeights& w = model_.layers[size_t(l)];
    for (int64_t i = 0; i < n; ++i)
      kernels::rmsnorm({x_.data() + i * D, size_t(D)}, w.attn_norm, c.rms_eps, {xn_.data() + i * D, size_t(D)});
    kernels::gemm(w.wq, cspan(xn_, n * D), n, span(q_, n * qd), pool_);  // q (n, H*d)
    kernels::gemm(w.wk, cspan(xn_, n * D), n, span(k_, n * kvd), pool_); // k (n, Hk*d)
    kernels::gemm(w.wv, cspan(xn_, n * D), n, span(v_, n * kvd), pool_); // v (n, Hk*d)
    for (int64_t i = 0; i < n; ++i) {
      kernels::rope({q_.data() + i * qd, size_t(qd)}, c.heads, c.head_dim, pos0 + i, c.rope_base);
      kernels::rope({k_.data() + i * kvd, size_t(kvd)}, c.kv_heads, c.head_dim, pos0 + i, c.rope_base);
      std::copy_n(k_.data() + i * kvd, kvd, cache_.k_row(l, pos0 + i));
      std::copy_n(v_.data() + i * kvd, kvd, cache_.v_row(l, pos0 + i));
    }
    // causal: token i sees positions [0, pos0 + i]; all (token, head) pairs in one parallel region
    kernels::attention_prefill(cspan(q_, n * qd), n, c.heads, cache_.view(l), pos0, span(att_, n * qd), pool_);
    kernels::gemm(w.wo, cspan(att_, n * qd), n, span(o_, n * D), pool_);  // o (n, D)
    for (int64_t j = 0; j < n * D; ++j) x_[size_t(j)] += o_[size_t(j)];
    for (int64_t i = 0; i < n; ++i)
      kernels::rmsnorm({x_.data() + i * D, size_t(D)}, w.ffn_norm, c.rms_eps, {xn_.data() + i * D, size_t(D)});
    kernels::gemm(w.gate, cspan(xn_, n * D), n, span(g_, n * F), pool_);  // g (n, F)
    kernels::gemm(w.up, cspan(xn_, n * D), n, span(u_, n * F), pool_);    // u (n, F)
    kernels::swiglu(cspan(g_, n * F), cspan(u_, n * F), span(h_, n * F));
    kernels::gemm(w.down, cspan(h_, n * F), n, span(o_, n * D), pool_);  // (n, D)
    for (int64_t j = 0; j < n * D; ++j) x_[size_t(j)] += o_[size_t(j)];
  }
  cache_.set_length(pos0 + n);
  const int64_t first = all_logits ? 0 : n - 1, rows = n - first;
  for (int64_t i = first; i < n; ++i)
    kernels::rmsnorm({x_.data() + i * D, size_t(D)}, model_.output_norm, c.rms_eps,
                     {xn_.data() + (i - first) * D, size_t(D)});
  grow(logits_, rows * c.vocab);
  if (rows == 1)
    kernels::gemv(model_.output, cspan(xn_, D), span(logits_, c.vocab), pool_);
  else
    kernels::gemm(model_.output, cspan(xn_, rows * D), rows, span(logits_, rows * c.vocab), pool_);  // (rows, V)
  return {logits_.data(), size_t(rows * c.vocab)};
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
  embed(token, x_.data());  // x (D)
  for (int64_t l = 0; l < c.layers; ++l) {
    const LayerWeights& w = model_.layers[size_t(l)];
    kernels::rmsnorm(cs(x_, D), w.attn_norm, c.rms_eps, sp(xn_, D));
    if (fp32_activations_) {
      kernels::gemm(w.wq, cs(xn_, D), 1, sp(q_, qd), pool_);
      kernels::gemm(w.wk, cs(xn_, D), 1, {cache_.k_row(l, pos), size_t(kvd)}, pool_);
      kernels::gemm(w.wv, cs(xn_, D), 1, {cache_.v_row(l, pos), size_t(kvd)}, pool_);
    } else {  // q (H*d), k and v (Hk*d) straight into the cache: the rows of the three matrices as one range
      const kernels::GemvTarget qkv[3] = {{&w.wq, q_.data()}, {&w.wk, cache_.k_row(l, pos)}, {&w.wv, cache_.v_row(l, pos)}};
      kernels::gemv_multi(qkv, cs(xn_, D), pool_);
    }
    kernels::rope(sp(q_, qd), c.heads, c.head_dim, pos, c.rope_base);
    kernels::rope({cache_.k_row(l, pos), size_t(kvd)}, c.kv_heads, c.head_dim, pos, c.rope_base);
    kernels::attention_decode(cs(q_, qd), c.heads, cache_.view(l), pos + 1, sp(att_, qd), pool_);
    matvec(w.wo, cs(att_, qd), sp(o_, D));
    for (int64_t j = 0; j < D; ++j) x_[size_t(j)] += o_[size_t(j)];
    kernels::rmsnorm(cs(x_, D), w.ffn_norm, c.rms_eps, sp(xn_, D));
    if (fp32_activations_) {
      kernels::gemm(w.gate, cs(xn_, D), 1, sp(g_, F), pool_);
      kernels::gemm(w.up, cs(xn_, D), 1, sp(u_, F), pool_);
      kernels::swiglu(cs(g_, F), cs(u_, F), sp(h_, F));
    } else {
      kernels::gemv_swiglu(w.gate, w.up, cs(xn_, D), sp(h_, F), pool_);  // h (F) = silu(gate xn) * up xn
    }
    matvec(w.down, cs(h_, F), sp(o_, D));
    for (int64_t j = 0; j < D; ++j) x_[size_t(j)] += o_[size_t(j)];
  }
  cache_.set_length(pos + 1);
  kernels::rmsnorm(cs(x_, D), model_.output_norm, c.rms_eps, sp(xn_, D));
  matvec(model_.output, cs(xn_, D), sp(logits_, c.vocab));  // logits (V)
  return {logits_.data(), size_t(c.vocab)};
}

std::span<const float> Forward::decode_batch(std::span<const int32_t> tokens) {
  const int64_t n = int64_t(tokens.size());
  if (n < 1 || n > sequences())
    throw InternalError("Forward: a batch of " + std::to_string(n) + " tokens for " + std::to_string(sequences()) +
                        " sequences");
  for (int64_t i = 0; i < n; ++i) check_tokens(tokens.subspan(size_t(i), 1), i);
  const LlamaConfig& c = model_.cfg;
  const int64_t D = c.dim, qd = c.heads * c.head_dim, kvd = c.kv_heads * c.head_dim, F = c.ffn_dim;
  auto grow = [](std::vector<float>& v, int64_t size) {
    if (int64_t(v.size()) < size) v.resize(size_t(size));
  };
  grow(x_, n * D); grow(xn_, n * D); grow(q_, n * qd); grow(k_, n * kvd); grow(v_, n * kvd); grow(att_, n * qd);
  grow(o_, n * D); grow(h_, n * F); grow(logits_, n * c.vocab);
  auto sp = [](std::vector<float>& v, int64_t off, int64_t size) { return std::span<float>(v.data() + off, size_t(size)); };
  auto cs = [](const std::vector<float>& v, int64_t size) { return std::span<const float>(v.data(), size_t(size)); };
  for (int64_t i = 0; i < n; ++i) embed(tokens[size_t(i)], x_.data() + i * D);  // x (n, D)
  for (int64_t l = 0; l < c.layers; ++l) {
    const LayerWeights& w = model_.layers[size_t(l)];
    for (int64_t i = 0; i < n; ++i) kernels::rmsnorm(sp(x_, i * D, D), w.attn_norm, c.rms_eps, sp(xn_, i * D, D));
    // q (n, H*d), k and v (n, Hk*d) of all sequences in one region, each weight block read once
    const kernels::GemvBatchTarget qkv[3] = {{&w.wq, q_.data()}, {&w.wk, k_.data()}, {&w.wv, v_.data()}};
    kernels::gemv_batch_multi(qkv, cs(xn_, n * D), n, pool_);
    for (int64_t i = 0; i < n; ++i) {
      KvCache& kv = caches_[size_t(i)];
      const int64_t pos = kv.length();
      kernels::rope(sp(q_, i * qd, qd), c.heads, c.head_dim, pos, c.rope_base);
      kernels::rope(sp(k_, i * kvd, kvd), c.kv_heads, c.head_dim, pos, c.rope_base);
      std::copy_n(k_.data() + i * kvd, kvd, kv.k_row(l, pos));
      std::copy_n(v_.data() + i * kvd, kvd, kv.v_row(l, pos));
    }
    // every sequence's attention in one region: a worker runs whole sequences (nested calls run serially)
    pool_.parallel_for(n, [&](int64_t b, int64_t e, int) {
      for (int64_t i = b; i < e; ++i) {
        const KvCache& kv = caches_[size_t(i)];
        kernels::attention_decode(sp(q_, i * qd, qd), c.heads, kv.view(l), kv.length() + 1, sp(att_, i * qd, qd), pool_);
      }
    });
    kernels::gemv_batch(w.wo, cs(att_, n * qd), n, sp(o_, 0, n * D), pool_);
    for (int64_t j = 0; j < n * D; ++j) x_[size_t(j)] += o_[size_t(j)];
    for (int64_t i = 0; i < n; ++i) kernels::rmsnorm(sp(x_, i * D, D), w.ffn_norm, c.rms_eps, sp(xn_, i * D, D));
    kernels::gemv_batch_swiglu(w.gate, w.up, cs(xn_, n * D), n, sp(h_, 0, n * F), pool_);  // h (n, F)
    kernels::gemv_batch(w.down, cs(h_, n * F), n, sp(o_, 0, n * D), pool_);
    for (int64_t j = 0; j < n * D; ++j) x_[size_t(j)] += o_[size_t(j)];
  }
  for (int64_t i = 0; i < n; ++i) {
    KvCache& kv = caches_[size_t(i)];
    kv.set_length(kv.length() + 1);
    kernels::rmsnorm(sp(x_, i * D, D), model_.output_norm, c.rms_eps, sp(xn_, i * D, D));
  }
  kernels::gemv_batch(model_.output, cs(xn_, n * D), n, sp(logits_, 0, n * c.vocab), pool_);  // logits (n, V)
  return {logits_.data(), size_t(n * c.vocab)};
}

}  // namespace rooftop::engine
