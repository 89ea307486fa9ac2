// Decode attention for one token over a cached K/V (fp32 or fp16), grouped-query, online softmax.
//
// Per query head: s_j = q . K_j / sqrt(d); out = sum_j softmax(s)_j V_j. Positions are processed in chunks
// of 64 with a running max and running denominator (rescaled when the max grows), so one pass reads K and
// V once. Napkin math: bytes = 2 * t * hk * d * sizeof(kv) per layer, the decode KV read.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/checks.h"
#include "kernels/cpu/dispatch.h"
#include "kernels/cpu/fused.h"
#include "kernels/cpu/half.h"
#include "kernels/cpu/thread_pool.h"

namespace rooftop::kernels {
namespace {

void check_attention(const char* op, std::span<const float> q, int64_t heads, const KvView& kv, int64_t t,
                     std::span<float> out) {
  const std::string o(op);
  if (kv.kv_heads <= 0 || kv.head_dim <= 0)
    throw InputError(o + ": KV cache shape (hk = " + std::to_string(kv.kv_heads) + ", d = " +
                     std::to_string(kv.head_dim) + "); expected hk >= 1 and d >= 1");
  if (heads <= 0 || heads % kv.kv_heads != 0)
    throw InputError(o + ": " + std::to_string(heads) + " query heads for " + std::to_string(kv.kv_heads) +
                     " KV heads; expected a positive multiple of the KV heads");
  if (t <= 0) throw InputError(o + ": cache holds t = " + std::to_string(t) + " positions; expected t >= 1");
  if (kv.k == nullptr || kv.v == nullptr) throw InputError(o + ": K or V cache pointer is null");
  check_size(op, "q (h, d)", int64_t(q.size()), heads * kv.head_dim);
  check_size(op, "out (h, d)", int64_t(out.size()), heads * kv.head_dim);
}

constexpr int64_t kChunk = 64;

void attend_head(const KernelTable& t, const float* q, const KvView& kv, int64_t kvh, int64_t tlen, float* out) {
  const int64_t d = kv.head_dim, stride = kv.kv_heads * d;
  const float scale = 1.0f / std::sqrt(float(d));
  float s[kChunk];
  thread_local std::vector<float> acc;
  acc.assign(size_t(d), 0.0f);
  float run_max = -std::numeric_limits<float>::infinity(), run_sum = 0.0f;
  for (int64_t j0 = 0; j0 < tlen; j0 += kChunk) {
    const int64_t cn = std::min(kChunk, tlen - j0);
    float cmax = -std::numeric_limits<float>::infinity();
    for (int64_t j = 0; j < cn; ++j) {
      const int64_t off = (j0 + j) * stride + kvh * d;
      s[j] = scale * (kv.f16 ? t.dot_f16(static_cast<const uint16_t*>(kv.k) + off, q, d)
                             : t.dot_f32(static_cast<const float*>(kv.k) + off, q, d));
      cmax = std::max(cmax, s[j]);
    }
    const float new_max = std::max(run_max, cmax);
    const float alpha = std::exp(run_max - new_max);  // 0 on the first chunk (exp(-inf))
    if (alpha != 1.0f) {
      for (float& a : acc) a *= alpha;
      run_sum *= alpha;
    }
    run_max = new_max;
    for (int64_t j = 0; j < cn; ++j) {
      const float p = std::exp(s[j] - run_max);
      run_sum += p;
      const int64_t off = (j0 + j) * stride + kvh * d;
      if (kv.f16) t.axpy_f16(p, static_cast<const uint16_t*>(kv.v) + off, acc.data(), d);
      else t.axpy_f32(p, static_cast<const float*>(kv.v) + off, acc.data(), d);
    }
  }
  const float inv = 1.0f / run_sum;
  for (int64_t i = 0; i < d; ++i) out[i] = acc[size_t(i)] * inv;
}

float kv_at(const void* base, bool f16, int64_t i) {
  return f16 ? fp16_to_fp32(static_cast<const uint16_t*>(base)[i]) : static_cast<const float*>(base)[i];
}

}  // namespace

void attention_decode(std::span<const float> q, int64_t heads, const KvView& kv, int64_t t, std::span<float> out,
                      ThreadPool& pool) {
  check_attention("attention_decode", q, heads, kv, t, out);
  const KernelTable& tab = active_kernels();
  const int64_t d = kv.head_dim, group = heads / kv.kv_heads;
  pool.parallel_for(heads, [&](int64_t h0, int64_t h1, int) {
    for (int64_t h = h0; h < h1; ++h) attend_head(tab, q.data() + h * d, kv, h / group, t, out.data() + h * d);
  });
}

void attention_prefill(std::span<const float> q, int64_t n, int64_t heads, const KvView& kv, int64_t pos0,
                       std::span<float> out, ThreadPool& pool) {
  if (n <= 0 || pos0 < 0)
    throw InputError("attention_prefill: n = " + std::to_string(n) + ", pos0 = " + std::to_string(pos0) +
                     "; expected n >= 1 and pos0 >= 0");
  const int64_t hd = heads * kv.head_dim;
  check_attention("attention_prefill", q.first(size_t(std::min<int64_t>(hd, int64_t(q.size())))), heads, kv, pos0 + 1,
                  out.first(size_t(std::min<int64_t>(hd, int64_t(out.size())))));
  check_size("attention_prefill", "q (n, h, d)", int64_t(q.size()), n * hd);
  check_size("attention_prefill", "out (n, h, d)", int64_t(out.size()), n * hd);
  const KernelTable& tab = active_kernels();
  const int64_t d = kv.head_dim, group = heads / kv.kv_heads;
  pool.parallel_for(n * heads, [&](int64_t b, int64_t e, int) {
    for (int64_t idx = b; idx < e; ++idx) {
      const int64_t i = idx / heads, h = idx % heads;
      attend_head(tab, q.data() + i * hd + h * d, kv, h / group, pos0 + i + 1, out.data() + i * hd + h * d);
    }
  });
}

// Two-pass reference: all scores, global max, exponentials, normalized weighted sum (double accumulation).
void attention_decode_ref(std::span<const float> q, int64_t heads, const KvView& kv, int64_t t,
                          std::span<float> out) {
  check_attention("attention_decode_ref", q, heads, kv, t, out);
  const int64_t d = kv.head_dim, hk = kv.kv_heads, group = heads / hk;
  std::vector<double> s(static_cast<size_t>(t));
  for (int64_t h = 0; h < heads; ++h) {
    const int64_t kvh = h / group;
    double mx = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < t; ++j) {
      double dot = 0;
      for (int64_t i = 0; i < d; ++i) dot += double(q[size_t(h * d + i)]) * kv_at(kv.k, kv.f16, (j * hk + kvh) * d + i);
      s[size_t(j)] = dot / std::sqrt(double(d));
      mx = std::max(mx, s[size_t(j)]);
    }
    double sum = 0;
    for (auto& v : s) sum += (v = std::exp(v - mx));
    for (int64_t i = 0; i < d; ++i) {
      double o = 0;
      for (int64_t j = 0; j < t; ++j) o += s[size_t(j)] * kv_at(kv.v, kv.f16, (j * hk + kvh) * d + i);
      out[size_t(h * d + i)] = float(o / sum);
    }
  }
}

}  // namespace rooftop::kernels
