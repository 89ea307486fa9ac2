// Attention block kernels written once over a vector traits type V (scalar, AVX2, AVX-512 instantiations).
//
// V provides: W (fp32 lanes), R (register type), zero, set1, load/store (fp32), load_f16 (W halves),
// load_n / load_f16_n (first n < W values, rest 0), add, sub, mul, div, max, fma(a, b, c) = a * b + c,
// hsum, exp (0 for x < -87.3, including -inf), less_select(a, b, x, y) = a < b ? x : y per lane,
// reduce(p) = the W lane-sums of the W vectors at p, p + W, ... as one vector (a transposing reduction).
// Included only by the ISA files; each defines its traits in an anonymous namespace, so every instantiation
// is distinct (no ODR clash between code compiled with different -m flags).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/cpu/attention_tile.h"

namespace rooftop::kernels::attn {

template <class V>
struct Attn {
  using R = typename V::R;
  static constexpr int64_t W = V::W;
  static constexpr int64_t B = kKeyBlock;
  static constexpr int KJ = W >= 16 ? 4 : 2;  // keys per pass of decode_scores (32 registers vs 16)
  static constexpr int CV = W >= 16 ? 4 : 2;  // column vectors per pass of pv_rows
  static_assert(B % W == 0 && B % 4 == 0, "a key block is whole vectors and whole groups of 4 keys");

  static int64_t padded(int64_t d) { return (d + W - 1) / W * W; }

  // SiLU: g / (1 + e^-g); tanh GELU: 0.5 g (1 + tanh z), z = sqrt(2/pi) g (1 + 0.044715 g^2), computed as
  // g / (1 + e^-2z) (the same function). Large negative g: the exp saturates and the result goes to -0.
  static R gate_act(R g, R u, bool gelu) {
    const R one = V::set1(1.0f);
    const R z = gelu ? V::mul(V::mul(V::set1(-2.0f * 0.7978845608028654f), g), V::fma(V::set1(0.044715f), V::mul(g, g), one))
                     : V::sub(V::zero(), g);
    return V::mul(V::div(g, V::add(one, V::exp(z))), u);
  }
  // Every value goes through the vector code (a tail through a zero-padded copy), so results do not depend on how a
  // caller splits a row among threads.
  static void gated(const float* g, const float* u, float* out, int64_t n, bool gelu) {
    int64_t i = 0;
    for (; i + W <= n; i += W) V::store(out + i, gate_act(V::load(g + i), V::load(u + i), gelu));
    if (i < n) {
      float gb[W] = {}, ub[W] = {}, ob[W];
      std::copy(g + i, g + n, gb);
      std::copy(u + i, u + n, ub);
      V::store(ob, gate_act(V::load(gb), V::load(ub), gelu));
      std::copy(ob, ob + (n - i), out + i);
    }
  }

  static R ld(const float* p) { return V::load(p); }
  static R ld(const uint16_t* p) { return V::load_f16(p); }
  static R ld_n(const float* p, int64_t n) { return V::load_n(p, n); }
  static R ld_n(const uint16_t* p, int64_t n) { return V::load_f16_n(p, n); }

  // dst (B, dp) fp32 = cache rows [j0, j0 + nk) (row j at src + j * stride), zero beyond d and for rows >= nk.
  // Prefill copies each K and V block once per query tile: the copy is amortized over the tile's rows.
  template <class T>
  static void load_block(const T* src, int64_t stride, int64_t d, int64_t j0, int64_t nk, float* dst) {
    const int64_t dp = padded(d);
    for (int64_t j = 0; j < B; ++j) {
      float* o = dst + j * dp;
      int64_t c = 0;
      if (j < nk) {
        const T* s = src + (j0 + j) * stride;
        for (; c + W <= d; c += W) V::store(o + c, ld(s + c));
        if (c < d) V::store(o + c, ld_n(s + c, d - c)), c += W;
      }
      for (; c < dp; c += W) V::store(o + c, V::zero());
    }
  }

  // acc (RN rows, dp) += P (RN, nk) Vrows (nk, d); P[r][j] = p[r * rs + j * js], V row j at v + j * vs (fp32
  // or fp16, converted on load; the columns past d read as 0). CV column vectors per pass (RN x CV
  // accumulators: 0.5 loads per FMA at RN = CV = 4, the load ports being the limit, not the FMA units).
  template <int RN, int NC, class T>
  static void pv_cols(const float* p, int64_t rs, int64_t js, int64_t nk, const T* v, int64_t vs, int64_t c,
                      int64_t cn_last, int64_t dp, float* acc) {
    R a[RN][NC];
    #pragma GCC unroll 8
    for (int r = 0; r < RN; ++r)
      #pragma GCC unroll 8
      for (int x = 0; x < NC; ++x) a[r][x] = V::load(acc + r * dp + c + x * W);
    for (int64_t j = 0; j < nk; ++j) {
      R vv[NC];
      #pragma GCC unroll 8
      for (int x = 0; x < NC; ++x)
        vv[x] = x + 1 < NC || cn_last == W ? ld(v + j * vs + c + x * W) : ld_n(v + j * vs + c + x * W, cn_last);
      #pragma GCC unroll 8
      for (int r = 0; r < RN; ++r) {
        const R pr = V::set1(p[r * rs + j * js]);
        #pragma GCC unroll 8
        for (int x = 0; x < NC; ++x) a[r][x] = V::fma(pr, vv[x], a[r][x]);
      }
    }
    #pragma GCC unroll 8
    for (int r = 0; r < RN; ++r)
      #pragma GCC unroll 8
      for (int x = 0; x < NC; ++x) V::store(acc + r * dp + c + x * W, a[r][x]);
  }

  template <int RN, class T>
  static void pv_rows(const float* p, int64_t rs, int64_t js, int64_t nk, const T* v, int64_t vs, int64_t d,
                      float* acc) {
    const int64_t dp = padded(d);
    int64_t c = 0;
    for (; c + CV * W <= d; c += CV * W) pv_cols<RN, CV>(p, rs, js, nk, v, vs, c, W, dp, acc);
    for (; c < d; c += W) pv_cols<RN, 1>(p, rs, js, nk, v, vs, c, std::min(W, d - c), dp, acc);
  }

  template <class T>
  static void pv(const float* p, int64_t rs, int64_t js, int64_t rows, int64_t nk, const T* v, int64_t vs, int64_t d,
                 float* acc) {
    const int64_t dp = padded(d);
    int64_t r = 0;
    for (; r + 4 <= rows; r += 4) pv_rows<4>(p + r * rs, rs, js, nk, v, vs, d, acc + r * dp);
    switch (rows - r) {
      case 3: pv_rows<3>(p + r * rs, rs, js, nk, v, vs, d, acc + r * dp); break;
      case 2: pv_rows<2>(p + r * rs, rs, js, nk, v, vs, d, acc + r * dp); break;
      case 1: pv_rows<1>(p + r * rs, rs, js, nk, v, vs, d, acc + r * dp); break;
      default: break;
    }
  }

  static void scale_row(float* acc, int64_t dp, float alpha) {
    const R a = V::set1(alpha);
    for (int64_t c = 0; c < dp; c += W) V::store(acc + c, V::mul(V::load(acc + c), a));
  }

  // Decode scores of GN rows against the nk keys at k (row j at k + j * ks): per (row, key) a W-lane partial
  // dot (KJ keys x GN rows of independent FMA chains), then one transposing reduction per W keys instead of a
  // horizontal sum per key. s[g][j] for j >= nk is left unspecified (masked by the caller).
  template <int GN, class T>
  static void decode_scores(const float* q, const T* k, int64_t ks, int64_t nk, int64_t d, float* part, float* s) {
    const int64_t dp = padded(d);
    for (int64_t j = 0; j < nk; j += KJ) {
      const T* kp[KJ];
      #pragma GCC unroll 8
      for (int i = 0; i < KJ; ++i) kp[i] = k + std::min(j + i, nk - 1) * ks;  // never past the last key
      R a[GN][KJ];
      #pragma GCC unroll 8
      for (int g = 0; g < GN; ++g)
        #pragma GCC unroll 8
        for (int i = 0; i < KJ; ++i) a[g][i] = V::zero();
      for (int64_t c = 0; c < d; c += W) {
        const int64_t cn = std::min(W, d - c);
        R kk[KJ];
        #pragma GCC unroll 8
        for (int i = 0; i < KJ; ++i) kk[i] = cn == W ? ld(kp[i] + c) : ld_n(kp[i] + c, cn);
        #pragma GCC unroll 8
        for (int g = 0; g < GN; ++g) {
          const R qv = V::load(q + g * dp + c);
          #pragma GCC unroll 8
          for (int i = 0; i < KJ; ++i) a[g][i] = V::fma(qv, kk[i], a[g][i]);
        }
      }
      #pragma GCC unroll 8
      for (int g = 0; g < GN; ++g)
        #pragma GCC unroll 8
        for (int i = 0; i < KJ; ++i) V::store(part + (g * B + j + i) * W, a[g][i]);
    }
    #pragma GCC unroll 8
    for (int g = 0; g < GN; ++g)
      for (int64_t j = 0; j < nk; j += W) V::store(s + g * B + j, V::reduce(part + (g * B + j) * W));
  }

  // One GQA group (g rows) over the nk <= 16 keys at k, v (row j at + j * stride).
  template <class T>
  static void decode_block(const float* q, int64_t g, const T* k, const T* v, int64_t stride, int64_t d, int64_t nk,
                           float* m, float* l, float* acc, float* s, float* part) {
    const int64_t dp = padded(d);
    const float ninf = -std::numeric_limits<float>::infinity();
    int64_t r0 = 0;
    for (; r0 + 4 <= g; r0 += 4) decode_scores<4>(q + r0 * dp, k, stride, nk, d, part, s + r0 * B);
    switch (g - r0) {
      case 3: decode_scores<3>(q + r0 * dp, k, stride, nk, d, part, s + r0 * B); break;
      case 2: decode_scores<2>(q + r0 * dp, k, stride, nk, d, part, s + r0 * B); break;
      case 1: decode_scores<1>(q + r0 * dp, k, stride, nk, d, part, s + r0 * B); break;
      default: break;
    }
    for (int64_t r = 0; r < g; ++r) {  // online softmax over this block, keys >= nk masked
      float* sr = s + r * B;
      float bm = ninf;
      for (int64_t j = 0; j < nk; ++j) bm = std::max(bm, sr[j]);
      for (int64_t j = nk; j < B; ++j) sr[j] = ninf;
      const float mn = std::max(m[r], bm), alpha = std::exp(m[r] - mn);  // 0 on the first block
      R sum = V::zero();
      for (int64_t j = 0; j < B; j += W) {
        const R p = V::exp(V::sub(V::load(sr + j), V::set1(mn)));
        V::store(sr + j, p);
        sum = V::add(sum, p);
      }
      l[r] = l[r] * alpha + V::hsum(sum);
      if (alpha != 1.0f) scale_row(acc + r * dp, dp, alpha);
      m[r] = mn;
    }
    pv(s, B, 1, g, nk, v, stride, d, acc);
  }

  // Prefetch run values of rows [j0, j1) into L2: the hardware prefetchers stop at 4 KiB pages, which a
  // position-major cache crosses every row or two.
  template <class T>
  static void prefetch_rows(const T* base, int64_t stride, int64_t run, int64_t j0, int64_t j1) {
    for (int64_t j = j0; j < j1; ++j) {
      const char* p = reinterpret_cast<const char*>(base + j * stride);
      for (int64_t b = 0; b < run * int64_t(sizeof(T)); b += 64) __builtin_prefetch(p + b, 0, 2);
    }
  }

  template <class T>
  static void decode_span_t(const float* q, int64_t g, int64_t nh, const T* k, const T* v, int64_t stride, int64_t d,
                            int64_t j0, int64_t j1, float* m, float* l, float* acc) {
    const int64_t dp = padded(d), rows = g * nh;
    thread_local std::vector<float> buf;
    buf.resize(size_t(g * B + 4 * B * W));
    float *s = buf.data(), *part = s + g * B;
    // Prefetch one block ahead into L2, one head at a time between the heads' work. Measured on Zen 4 at
    // t = 1024: +20% over one burst per block; two blocks ahead: no gain.
    constexpr int64_t pf = B;
    for (int64_t r = 0; r < rows; ++r) {
      m[r] = -std::numeric_limits<float>::infinity(), l[r] = 0.0f;
      for (int64_t c = 0; c < dp; c += W) V::store(acc + r * dp + c, V::zero());
    }
    for (int64_t jb = j0; jb < j1; jb += B) {
      const int64_t nk = std::min(B, j1 - jb);
      for (int64_t h = 0; h < nh; ++h) {  // the next block of this head, spread over the heads' work
        prefetch_rows(k + h * d, stride, d, std::min(j1, jb + pf), std::min(j1, jb + pf + B));
        prefetch_rows(v + h * d, stride, d, std::min(j1, jb + pf), std::min(j1, jb + pf + B));
        decode_block(q + h * g * dp, g, k + jb * stride + h * d, v + jb * stride + h * d, stride, d, nk, m + h * g,
                     l + h * g, acc + h * g * dp, s, part);
      }
    }
  }

  // KV heads [0, nh) from kv (head i at element offset i * d), each with its g query rows, over keys [j0, j1):
  // per 16-key block all nh heads in turn, so the block's rows (whole 4 KiB pages of a position-major cache)
  // are used while their TLB entries and DRAM pages are open. Reads the cache in place (no copy).
  static void decode_span(const float* q, int64_t g, int64_t nh, const KvHead& kv, int64_t j0, int64_t j1, float* m,
                          float* l, float* acc) {
    if (kv.f16)
      decode_span_t(q, g, nh, static_cast<const uint16_t*>(kv.k), static_cast<const uint16_t*>(kv.v), kv.stride, kv.d,
                    j0, j1, m, l, acc);
    else
      decode_span_t(q, g, nh, static_cast<const float*>(kv.k), static_cast<const float*>(kv.v), kv.stride, kv.d, j0,
                    j1, m, l, acc);
  }

  // Prefill scores S^T (B, rp) for a row-vector pair (RV = 1 or 2 vectors of W rows) and 4 keys at a time:
  // broadcast K[j][c] times the transposed queries qt[c][rows], so no horizontal sums at all.
  template <int RV>
  static void prefill_scores(const float* qt, int64_t rp, const float* kb, int64_t d, int64_t dp, float* st) {
    for (int64_t j = 0; j < B; j += 4) {
      R a[4][RV];
      #pragma GCC unroll 8
      for (int jj = 0; jj < 4; ++jj)
        #pragma GCC unroll 8
        for (int v = 0; v < RV; ++v) a[jj][v] = V::zero();
      for (int64_t c = 0; c < d; ++c) {
        R qv[RV];
        #pragma GCC unroll 8
        for (int v = 0; v < RV; ++v) qv[v] = V::load(qt + c * rp + v * W);
        #pragma GCC unroll 8
        for (int jj = 0; jj < 4; ++jj) {
          const R kk = V::set1(kb[(j + jj) * dp + c]);
          #pragma GCC unroll 8
          for (int v = 0; v < RV; ++v) a[jj][v] = V::fma(kk, qv[v], a[jj][v]);
        }
      }
      #pragma GCC unroll 8
      for (int jj = 0; jj < 4; ++jj)
        #pragma GCC unroll 8
        for (int v = 0; v < RV; ++v) V::store(st + (j + jj) * rp + v * W, a[jj][v]);
    }
  }

  static void prefill_tile(const float* qt, int64_t rp, const float* end, const KvHead& kv, int64_t j1, float* m,
                           float* l, float* acc) {
    const int64_t d = kv.d, dp = padded(d);
    thread_local std::vector<float> buf;
    buf.resize(size_t(2 * B * dp + B * rp + rp));
    float *kb = buf.data(), *vb = kb + B * dp, *st = vb + B * dp, *alpha = st + B * rp;
    const R ninf = V::set1(-std::numeric_limits<float>::infinity());
    for (int64_t jb = 0; jb < j1; jb += B) {
      const int64_t nk = std::min(B, j1 - jb);
      if (kv.f16) {
        load_block(static_cast<const uint16_t*>(kv.k), kv.stride, d, jb, nk, kb);
        load_block(static_cast<const uint16_t*>(kv.v), kv.stride, d, jb, nk, vb);
      } else {
        load_block(static_cast<const float*>(kv.k), kv.stride, d, jb, nk, kb);
        load_block(static_cast<const float*>(kv.v), kv.stride, d, jb, nk, vb);
      }
      int64_t r = 0;
      for (; r + 2 * W <= rp; r += 2 * W) prefill_scores<2>(qt + r, rp, kb, d, dp, st + r);
      if (r < rp) prefill_scores<1>(qt + r, rp, kb, d, dp, st + r);
      for (r = 0; r < rp; r += W) {  // online softmax, W rows per vector; causal mask: key >= end[r]
        const R e = V::load(end + r);
        R bm = ninf;
        for (int64_t j = 0; j < nk; ++j) {
          const R sj = V::less_select(V::set1(float(jb + j)), e, V::load(st + j * rp + r), ninf);
          V::store(st + j * rp + r, sj);
          bm = V::max(bm, sj);
        }
        const R mo = V::load(m + r), mn = V::max(mo, bm), a = V::exp(V::sub(mo, mn));
        R sum = V::zero();
        for (int64_t j = 0; j < nk; ++j) {
          const R p = V::exp(V::sub(V::load(st + j * rp + r), mn));
          V::store(st + j * rp + r, p);
          sum = V::add(sum, p);
        }
        V::store(l + r, V::fma(V::load(l + r), a, sum));
        V::store(m + r, mn);
        V::store(alpha + r, a);
      }
      for (r = 0; r < rp; ++r)
        if (alpha[r] != 1.0f) scale_row(acc + r * dp, dp, alpha[r]);
      pv(st, 1, rp, rp, nk, static_cast<const float*>(vb), dp, dp, acc);
    }
  }
};

}  // namespace rooftop::kernels::attn
