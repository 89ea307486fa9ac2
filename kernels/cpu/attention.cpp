// Decode and causal prefill attention over a cached K/V (fp32 or fp16), grouped-query, online softmax.
//
// Decode (flash-decoding): the h / hk query heads of a GQA group are processed together, so each K and V row
// is read once per group; tasks are (key range x chunk of KV heads), enough of them to keep every thread busy
// for any head count; each returns (max, denominator, unnormalized sum) per head and the ranges are merged
// exactly. Napkin math: bytes = 2 * t * hk * d * sizeof(kv) per layer, the decode KV read.
// Prefill: tiles of (tokens x group heads) query rows against 16-key blocks (attention_simd_inl.h), causal
// mask on the diagonal blocks, tasks (KV head, pair of query tiles i and last - i) of equal work.
// Block kernels per ISA: attention_scalar.cpp, attention_avx2.cpp, attention_avx512.cpp, chosen by active_isa().
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu/attention_tile.h"
#include "kernels/cpu/checks.h"
#include "kernels/cpu/fused.h"
#include "kernels/cpu/half.h"
#include "kernels/cpu/thread_pool.h"

namespace rooftop::kernels {
namespace attn {
namespace {

int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

KvHead head_of(const KvView& kv, int64_t kvh) {
  const int64_t d = kv.head_dim, off = kvh * d;
  KvHead h;
  h.f16 = kv.f16;
  h.k = kv.f16 ? static_cast<const void*>(static_cast<const uint16_t*>(kv.k) + off)
               : static_cast<const void*>(static_cast<const float*>(kv.k) + off);
  h.v = kv.f16 ? static_cast<const void*>(static_cast<const uint16_t*>(kv.v) + off)
               : static_cast<const void*>(static_cast<const float*>(kv.v) + off);
  h.stride = kv.kv_heads * d;
  h.d = d;
  return h;
}

// Decode tasks: min(8, ceil(t / 64)) key ranges (lengths rounded up to 16 keys) times enough chunks of
// consecutive KV heads to make about 8 tasks, so 2..8 threads stay balanced for any head count (the pool
// hands out chunks dynamically). Depends only on (t, hk), not on the thread count, so results do not either.
struct DecodeSplit {
  int64_t span, splits, heads_per_chunk, chunks;
};
DecodeSplit decode_split(int64_t t, int64_t hk) {
  DecodeSplit s;
  const int64_t want = std::clamp<int64_t>((t + 63) / 64, 1, 8);
  s.span = round_up((t + want - 1) / want, kKeyBlock);
  s.splits = (t + s.span - 1) / s.span;
  const int64_t want_chunks = std::min(hk, (8 + s.splits - 1) / s.splits);
  s.heads_per_chunk = (hk + want_chunks - 1) / want_chunks;
  s.chunks = (hk + s.heads_per_chunk - 1) / s.heads_per_chunk;
  return s;
}

}  // namespace

void decode_with(const AttentionKernels& ak, std::span<const float> q, int64_t heads, const KvView& kv, int64_t t,
                 std::span<float> out, ThreadPool& pool) {
  const int64_t d = kv.head_dim, hk = kv.kv_heads, g = heads / hk, dp = round_up(d, ak.lanes);
  // Called inside a parallel region (batched decode runs one sequence per worker), it runs alone on this thread:
  // one range over all keys and all heads in one task, with nothing to merge.
  const DecodeSplit sp = ThreadPool::in_parallel_region() ? DecodeSplit{round_up(t, kKeyBlock), 1, hk, 1} : decode_split(t, hk);
  const float scale = 1.0f / std::sqrt(float(d));
  thread_local std::vector<float> qs, part;
  qs.assign(size_t(heads * dp), 0.0f);  // (h, dp) scaled, zero-padded
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t i = 0; i < d; ++i) qs[size_t(h * dp + i)] = q[size_t(h * d + i)] * scale;
  // Split s's partial for all h heads: m (h), l (h), acc (h, dp); a head chunk writes its rows of it.
  const int64_t per = heads * (dp + 2);
  part.resize(size_t(sp.splits * per));
  float* pbase = part.data();
  const float* qbase = qs.data();
  pool.parallel_for(sp.splits * sp.chunks, [&](int64_t b, int64_t e, int) {
    for (int64_t task = b; task < e; ++task) {
      const int64_t s = task / sp.chunks, h0 = (task % sp.chunks) * sp.heads_per_chunk;
      const int64_t nh = std::min(sp.heads_per_chunk, hk - h0), r0 = h0 * g;
      float* pm = pbase + s * per;
      ak.decode(qbase + r0 * dp, g, nh, head_of(kv, h0), s * sp.span, std::min(t, (s + 1) * sp.span), pm + r0,
                pm + heads + r0, pm + 2 * heads + r0 * dp);
    }
  });
  // Merge the ranges: M = max m_s; out = sum_s e^(m_s - M) acc_s / sum_s e^(m_s - M) l_s.
  for (int64_t r = 0; r < heads; ++r) {
    float mx = -std::numeric_limits<float>::infinity();
    for (int64_t s = 0; s < sp.splits; ++s) mx = std::max(mx, part[size_t(s * per + r)]);
    float* o = out.data() + r * d;
    std::fill(o, o + d, 0.0f);
    float den = 0.0f;
    for (int64_t s = 0; s < sp.splits; ++s) {
      const float* pm = pbase + s * per;
      const float w = std::exp(pm[r] - mx);
      den += w * pm[heads + r];
      const float* acc = pm + 2 * heads + r * dp;
      for (int64_t i = 0; i < d; ++i) o[i] += w * acc[i];
    }
    const float inv = 1.0f / den;
    for (int64_t i = 0; i < d; ++i) o[i] *= inv;
  }
}

void prefill_with(const AttentionKernels& ak, std::span<const float> q, int64_t n, int64_t heads, const KvView& kv,
                  int64_t pos0, std::span<float> out, ThreadPool& pool) {
  const int64_t d = kv.head_dim, hk = kv.kv_heads, g = heads / hk, dp = round_up(d, ak.lanes), hd = heads * d;
  const int64_t tq = std::max<int64_t>(1, std::max<int64_t>(16, 2 * ak.lanes) / g);  // tokens per query tile
  const int64_t tiles = (n + tq - 1) / tq, pairs = (tiles + 1) / 2, rp = round_up(tq * g, ak.lanes);
  const float scale = 1.0f / std::sqrt(float(d));
  auto run_tile = [&](int64_t kvh, int64_t tile) {
    thread_local std::vector<float> buf;
    buf.assign(size_t(rp * dp + 3 * rp + rp * dp), 0.0f);
    float *qt = buf.data(), *end = qt + rp * dp, *m = end + rp, *l = m + rp, *acc = l + rp;
    const int64_t i0 = tile * tq, i1 = std::min(n, i0 + tq), rows = (i1 - i0) * g, j1 = pos0 + i1;
    for (int64_t r = 0; r < rp; ++r) {  // row r = (token i0 + r / g, head kvh * g + r % g); pad rows see all
      m[r] = -std::numeric_limits<float>::infinity();
      if (r >= rows) {
        end[r] = float(j1);
        continue;
      }
      const int64_t i = i0 + r / g, h = kvh * g + r % g;
      end[r] = float(pos0 + i + 1);
      const float* qi = q.data() + i * hd + h * d;
      for (int64_t c = 0; c < d; ++c) qt[c * rp + r] = qi[c] * scale;
    }
    ak.prefill(qt, rp, end, head_of(kv, kvh), j1, m, l, acc);
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t i = i0 + r / g, h = kvh * g + r % g;
      const float inv = 1.0f / l[r];
      float* o = out.data() + i * hd + h * d;
      for (int64_t c = 0; c < d; ++c) o[c] = acc[r * dp + c] * inv;
    }
  };
  pool.parallel_for(hk * pairs, [&](int64_t b, int64_t e, int) {
    for (int64_t task = b; task < e; ++task) {
      const int64_t kvh = task / pairs, p = task % pairs;
      run_tile(kvh, p);
      if (tiles - 1 - p != p) run_tile(kvh, tiles - 1 - p);  // short tile + long tile: equal causal work
    }
  });
}

const AttentionKernels& attention_kernels(Isa isa) {
  static const AttentionKernels s = attention_kernels_scalar(), a2 = attention_kernels_avx2(),
                                a5 = attention_kernels_avx512();
  return isa == Isa::avx512 || isa == Isa::avx512_bf16 || isa == Isa::amx ? a5 : isa == Isa::avx2 ? a2 : s;
}

}  // namespace attn

namespace {

void check_attention(const char* op, std::span<const float> q, int64_t heads, const KvView& kv, int64_t t,
                     std::span<float> out) {
  const std::string o(op);
  if (kv.kv_heads <= 0 || kv.head_dim <= 0)
    throw InternalError(o + ": KV cache shape (hk = " + std::to_string(kv.kv_heads) + ", d = " +
                     std::to_string(kv.head_dim) + "); expected hk >= 1 and d >= 1");
  if (heads <= 0 || heads % kv.kv_heads != 0)
    throw InternalError(o + ": " + std::to_string(heads) + " query heads for " + std::to_string(kv.kv_heads) +
                     " KV heads; expected a positive multiple of the KV heads");
  if (t <= 0) throw InternalError(o + ": cache holds t = " + std::to_string(t) + " positions; expected t >= 1");
  if (kv.k == nullptr || kv.v == nullptr) throw InternalError(o + ": K or V cache pointer is null");
  check_size(op, "q (h, d)", int64_t(q.size()), heads * kv.head_dim);
  check_size(op, "out (h, d)", int64_t(out.size()), heads * kv.head_dim);
}

float kv_at(const void* base, bool f16, int64_t i) {
  return f16 ? fp16_to_fp32(static_cast<const uint16_t*>(base)[i]) : static_cast<const float*>(base)[i];
}

}  // namespace

void attention_decode(std::span<const float> q, int64_t heads, const KvView& kv, int64_t t, std::span<float> out,
                      ThreadPool& pool) {
  check_attention("attention_decode", q, heads, kv, t, out);
  attn::decode_with(attn::attention_kernels(active_isa()), q, heads, kv, t, out, pool);
}

void attention_prefill(std::span<const float> q, int64_t n, int64_t heads, const KvView& kv, int64_t pos0,
                       std::span<float> out, ThreadPool& pool) {
  if (n <= 0 || pos0 < 0)
    throw InternalError("attention_prefill: n = " + std::to_string(n) + ", pos0 = " + std::to_string(pos0) +
                     "; expected n >= 1 and pos0 >= 0");
  const int64_t hd = heads * kv.head_dim;
  check_attention("attention_prefill", q.first(size_t(std::min<int64_t>(hd, int64_t(q.size())))), heads, kv, pos0 + n,
                  out.first(size_t(std::min<int64_t>(hd, int64_t(out.size())))));
  if (pos0 + n > (int64_t(1) << 24))  // the tiles compare positions as fp32, exact up to 2^24
    throw InternalError("attention_prefill: pos0 + n = " + std::to_string(pos0 + n) +
                     " positions; expected at most 16777216");
  check_size("attention_prefill", "q (n, h, d)", int64_t(q.size()), n * hd);
  check_size("attention_prefill", "out (n, h, d)", int64_t(out.size()), n * hd);
  attn::prefill_with(attn::attention_kernels(active_isa()), q, n, heads, kv, pos0, out, pool);
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
