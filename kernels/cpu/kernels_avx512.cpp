// AVX-512 (F/BW/VL/VNNI) kernel table: vpdpbusd int8 dots (GEMV and the quantized formats' prefill GEMM), 6x32 zmm
// fp32 GEMM tile; the rest shared with AVX2.
#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "base/errors.h"
#include "kernels/cpu/blocks.h"
#include "kernels/cpu/count_dispatch.h"
#include "kernels/cpu/q8_activations.h"

#define ROOFTOP_VNNI 1

namespace rooftop::kernels {
namespace {

constexpr int64_t kGemmNR = 32;  // outputs per panel: 2 zmm
constexpr int kGemmMR = 6;       // tokens per tile: 6 x 2 = 12 accumulators
constexpr int64_t kGemmMB = 64;  // weight rows per packed block

// Y (MR, nr <= 32) [+]= the register tile (c0: outputs 0-15, c1: 16-31 of each row), masked to nr outputs.
template <int MR>
inline void store_tile(__m512 c0[MR], __m512 c1[MR], float* Y, int64_t ldy, int nr, bool acc) {
  const __mmask16 m0 = __mmask16(nr >= 16 ? 0xFFFF : (1u << nr) - 1u);
  const __mmask16 m1 = __mmask16(nr >= 32 ? 0xFFFF : nr <= 16 ? 0 : (1u << (nr - 16)) - 1u);
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    float* y = Y + r * ldy;
    if (acc) {
      c0[r] = _mm512_add_ps(c0[r], _mm512_maskz_loadu_ps(m0, y));
      c1[r] = _mm512_add_ps(c1[r], _mm512_maskz_loadu_ps(m1, y + 16));
    }
    _mm512_mask_storeu_ps(y, m0, c0[r]);
    _mm512_mask_storeu_ps(y + 16, m1, c1[r]);
  }
}

// Y (mr, nr) [+]= X (mr, kc; row stride ldx) P^T, P packed (kc, 32).
template <int MR>
void micro_avx512(const float* X, int64_t ldx, const float* P, int64_t kc, float* Y, int64_t ldy, int nr, bool acc) {
  __m512 c0[MR], c1[MR];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) c0[r] = c1[r] = _mm512_setzero_ps();
  for (int64_t p = 0; p < kc; ++p) {
    const __m512 w0 = _mm512_load_ps(P + p * 32), w1 = _mm512_load_ps(P + p * 32 + 16);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const __m512 xb = _mm512_set1_ps(X[r * ldx + p]);
      c0[r] = _mm512_fmadd_ps(xb, w0, c0[r]);
      c1[r] = _mm512_fmadd_ps(xb, w1, c1[r]);
    }
  }
  store_tile<MR>(c0, c1, Y, ldy, nr, acc);
}

void gemm_micro(int mr, const float* X, int64_t ldx, const float* P, int64_t kc, float* Y, int64_t ldy, int nr,
                bool acc) {
  with_count<kGemmMR>(mr, [&]<int MR>() { micro_avx512<MR>(X, ldx, P, kc, Y, ldy, nr, acc); });
}

// Small-n integer GEMV rows of q4_0 (kOffsetKind 1) / q4_1 (2) on 512-bit vectors, defined below.
#define ROOFTOP_ZMM_Q4_MULTI 1
template <int N, class Block, int kOffsetKind>
void row_q4_multi_zmm(const Block* w, const Q8Activations* xq, int64_t nb, float* out, int64_t ldy);
template <int N, class Block>
void row_q4_multi_t16(const Block* w, const Q8Activations* xq, int64_t nb, float* out, int64_t ldy);
}  // namespace
}  // namespace rooftop::kernels

#include "kernels/cpu/x86_kernels_inl.h"

namespace rooftop::kernels {
namespace {

// Sum of the 16 lanes (the library's _mm512_reduce_add_ps trips GCC 12's -Wuninitialized).
inline float hsum512(__m512 v) {
  return hsum(_mm256_add_ps(_mm512_maskz_extractf32x8_ps(0xFF, v, 0), _mm512_maskz_extractf32x8_ps(0xFF, v, 1)));
}

// Per 128-bit lane: [a0 + a1, a2 + a3, b0 + b1, b2 + b3] (vphaddd for 512-bit registers).
inline __m512i hadd_pairs(__m512i a, __m512i b) {
  const __m512 fa = _mm512_castsi512_ps(a), fb = _mm512_castsi512_ps(b);
  return _mm512_add_epi32(_mm512_castps_si512(_mm512_shuffle_ps(fa, fb, 0x88)),
                          _mm512_castps_si512(_mm512_shuffle_ps(fa, fb, 0xDD)));
}

// v[j] holds the 8 int32 partial dots of blocks 2j (low 256 bits) and 2j + 1 (high). Lane i of the result is
// block 2i's total (i < 8), lane 8 + i block 2i + 1's: hsum8x8 on both halves at once.
inline __m512 hsum16x8(const __m512i v[8]) {
  const __m512i ab = hadd_pairs(hadd_pairs(v[0], v[1]), hadd_pairs(v[2], v[3]));
  const __m512i cd = hadd_pairs(hadd_pairs(v[4], v[5]), hadd_pairs(v[6], v[7]));
  const __m512i lo = _mm512_permutex2var_epi64(ab, _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13), cd);
  const __m512i hi = _mm512_permutex2var_epi64(ab, _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15), cd);
  return _mm512_maskz_cvtepi32_ps(0xFFFF, _mm512_add_epi32(lo, hi));
}

// y_t = sum_b dw_b dx_tb dot_tb [- 8 sum_b dw_b sx_tb (q4_0)] [+ sum_b m_b sx_tb (q4_1)], 16 blocks per step:
// each pair of blocks unpacked once into one zmm and dotted with the N tokens' 64 contiguous activation bytes.
template <int N, class Block, int kOffsetKind>
void row_q4_multi_zmm(const Block* w, const Q8Activations* xq, int64_t nb, float* out, int64_t ldy) {
  constexpr size_t kPrefetchBytes = 2048;  // software prefetch distance: the N-token work per block hides less latency
  const __m512i order = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
  __m512 acc[N], off[N];
#pragma GCC unroll 8
  for (int t = 0; t < N; ++t) acc[t] = off[t] = _mm512_setzero_ps();
  int64_t b = 0;
  for (; b + 16 <= nb; b += 16) {
    __m512i u[8];
    uint16_t hd[16], hm[16];
    const char* ahead = reinterpret_cast<const char*>(w + b) + kPrefetchBytes;  // rows are contiguous: may be the next row
    for (size_t c = 0; c < 16 * sizeof(Block); c += 64) _mm_prefetch(ahead + c, _MM_HINT_T0);
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j)
      u[j] = _mm512_mask_broadcast_i64x4(_mm512_maskz_broadcast_i64x4(0x0F, unpack_nibbles(w[b + 2 * j].qs)), 0xF0,
                                         unpack_nibbles(w[b + 2 * j + 1].qs));
    for (int i = 0; i < 16; ++i) {
      std::memcpy(&hd[i], &w[b + i], 2);
      std::memcpy(&hm[i], reinterpret_cast<const std::byte*>(&w[b + i]) + 2, 2);
    }
    const __m512 dw = _mm512_maskz_cvtph_ps(0xFFFF, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(hd)));
    const __m512 mw = kOffsetKind == 2 ? _mm512_maskz_cvtph_ps(0xFFFF, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(hm))) : dw;
#pragma GCC unroll 8
    for (int t = 0; t < N; ++t) {
      const int8_t* q = xq[t].q.data() + 32 * b;
      __m512i p[8];
#pragma GCC unroll 8
      for (int j = 0; j < 8; ++j) p[j] = _mm512_dpbusd_epi32(_mm512_setzero_si512(), u[j], _mm512_loadu_si512(q + 64 * j));
      const __m512 scale = _mm512_maskz_permutexvar_ps(0xFFFF, order, _mm512_mul_ps(dw, _mm512_loadu_ps(xq[t].d.data() + b)));
      acc[t] = _mm512_fmadd_ps(hsum16x8(p), scale, acc[t]);
      off[t] = _mm512_fmadd_ps(mw, _mm512_loadu_ps(xq[t].sum_scaled.data() + b), off[t]);
    }
  }
  float y[N], o[N];
#pragma GCC unroll 8
  for (int t = 0; t < N; ++t) y[t] = hsum512(acc[t]), o[t] = hsum512(off[t]);
  for (; b < nb; ++b) {
    const __m256i u = unpack_nibbles(w[b].qs);
    const float dw = h2f(w[b].d);
    const float mw = kOffsetKind == 2 ? h2f(reinterpret_cast<const uint16_t*>(&w[b])[1]) : dw;
    for (int t = 0; t < N; ++t) {
      y[t] += dw * xq[t].d[size_t(b)] * float(hsum_i32(dot_u8s8(u, load32(xq[t].q.data() + 32 * b))));
      o[t] += mw * xq[t].sum_scaled[size_t(b)];
    }
  }
  for (int t = 0; t < N; ++t) out[t * ldy] = kOffsetKind == 1 ? y[t] - 8.0f * o[t] : y[t] + o[t];
}

// Dwords 5j + c (j = 0..15) of the 80 dwords r[0..4] (16 q4_1 blocks of 5 dwords: d|m, then 4 of nibbles).
inline __m512i gather_q4_1_dwords(const __m512i r[5], int c) {
  alignas(64) int32_t idx[16];
  __mmask16 m1 = 0, m2 = 0;
  for (int j = 0; j < 16; ++j) {
    const int src = 5 * j + c;
    idx[j] = src & 31;
    if (src >= 64) m2 = __mmask16(m2 | (1u << j));
    else if (src >= 32) m1 = __mmask16(m1 | (1u << j));
  }
  const __m512i id = _mm512_load_si512(idx);
  __m512i v = _mm512_permutex2var_epi32(r[0], id, r[1]);
  v = _mm512_mask_blend_epi32(m1, v, _mm512_permutex2var_epi32(r[2], id, r[3]));
  return _mm512_mask_blend_epi32(m2, v, _mm512_maskz_permutexvar_epi32(0xFFFF, id, r[4]));
}

// Words 9j + c and 9j + c + 1 (j = 0..15) of the 144 words in r[0..4] as dword j (16 q4_0 blocks of 9 words: d,
// then 8 of nibbles; an 18-byte block always starts on a word, never on a dword for odd j).
struct Q4_0WordIndex {
  alignas(64) int16_t idx[32];
  __mmask32 m1 = 0, m2 = 0;  // lanes from words 64..127 (r[2], r[3]) and 128.. (r[4])
  constexpr explicit Q4_0WordIndex(int c) : idx{} {
    for (int l = 0; l < 32; ++l) {
      const int src = 9 * (l / 2) + c + (l & 1);
      idx[l] = int16_t(src & 63);
      if (src >= 128) m2 = __mmask32(m2 | (1u << l));
      else if (src >= 64) m1 = __mmask32(m1 | (1u << l));
    }
  }
};
inline __m512i gather_q4_0_words(const __m512i r[5], int c) {
  static const Q4_0WordIndex tab[9] = {Q4_0WordIndex(0), Q4_0WordIndex(1), Q4_0WordIndex(2), Q4_0WordIndex(3),
                                       Q4_0WordIndex(4), Q4_0WordIndex(5), Q4_0WordIndex(6), Q4_0WordIndex(7),
                                       Q4_0WordIndex(8)};
  const Q4_0WordIndex& t = tab[c];
  const __m512i id = _mm512_load_si512(t.idx);
  __m512i v = _mm512_permutex2var_epi16(r[0], id, r[1]);
  v = _mm512_mask_blend_epi16(t.m1, v, _mm512_permutex2var_epi16(r[2], id, r[3]));
  return _mm512_mask_blend_epi16(t.m2, v, _mm512_permutexvar_epi16(id, r[4]));
}

// Leftover blocks (nb % 16) from which row_q4_multi_t16 runs them as one masked 16-lane group instead of one
// 256-bit dot per block and token. Measured on Zen 4 (1 thread, L2-resident 2048 x k, n = 1/4/8): the two tie
// near 6-7 leftover blocks; at 8 the masked group is ~1.1x faster (n = 4, 8), at 10 ~1.2x at every n.
#ifndef ROOFTOP_Q4_1_T16_MIN_PARTIAL
#define ROOFTOP_Q4_1_T16_MIN_PARTIAL 7
#endif
constexpr int64_t kQ4_1T16MinPartial = ROOFTOP_Q4_1_T16_MIN_PARTIAL;

// One group of 16 q4_0 / q4_1 blocks (raw bytes r[0..4]: 288 / 320 bytes) for N tokens: lane j of acc[t] / off[t]
// gains block 16g + j's dot / offset term (q4_1: m * sx; q4_0: -8 d * sx, exact in fp32). kPartial: `lanes` marks the
// blocks that exist; the rest must arrive as zero bytes in r and in qt16, so their dw = mw = 0 and their d /
// sum_scaled lanes (masked loads) are 0: they add exactly 0.
template <int N, bool kPartial, class Block>
inline __attribute__((always_inline)) void q4_t16_group(const __m512i r[5], const Q8Activations* xq, int64_t g,
                                                        __mmask16 lanes, __m512 acc[N], __m512 off[N]) {
  constexpr bool kQ4_0 = std::is_same_v<Block, BlockQ4_0>;
  const auto load16 = [lanes](const float* p) { return kPartial ? _mm512_maskz_loadu_ps(lanes, p) : _mm512_loadu_ps(p); };
  const __m512i m4 = _mm512_set1_epi8(0x0F);
  const __m512i dm = kQ4_0 ? gather_q4_0_words(r, 0) : gather_q4_1_dwords(r, 0);
  const __m512 dw = _mm512_maskz_cvtph_ps(0xFFFF, _mm512_maskz_cvtepi32_epi16(0xFFFF, dm));
  const __m512 mw = kQ4_0 ? _mm512_mul_ps(dw, _mm512_set1_ps(-8.0f))
                          : _mm512_maskz_cvtph_ps(0xFFFF, _mm512_maskz_cvtepi32_epi16(0xFFFF, _mm512_maskz_srli_epi32(0xFFFF, dm, 16)));
  __m512i lo[4], hi[4];
#pragma GCC unroll 4
  for (int s = 0; s < 4; ++s) {
    const __m512i q = kQ4_0 ? gather_q4_0_words(r, 1 + 2 * s) : gather_q4_1_dwords(r, 1 + s);
    lo[s] = _mm512_and_si512(q, m4);
    hi[s] = _mm512_and_si512(_mm512_srli_epi16(q, 4), m4);
  }
#pragma GCC unroll 8
  for (int t = 0; t < N; ++t) {
    const int8_t* x = xq[t].qt16.data() + 512 * g;
    __m512i p0 = _mm512_setzero_si512(), p1 = p0;
#pragma GCC unroll 4
    for (int s = 0; s < 4; ++s) {
      p0 = _mm512_dpbusd_epi32(p0, lo[s], _mm512_loadu_si512(x + 128 * s));
      p1 = _mm512_dpbusd_epi32(p1, hi[s], _mm512_loadu_si512(x + 128 * s + 64));
    }
    const __m512 p = _mm512_maskz_cvtepi32_ps(0xFFFF, _mm512_add_epi32(p0, p1));
    acc[t] = _mm512_fmadd_ps(p, _mm512_mul_ps(dw, load16(xq[t].d.data() + 16 * g)), acc[t]);
    off[t] = _mm512_fmadd_ps(mw, load16(xq[t].sum_scaled.data() + 16 * g), off[t]);
  }
}

// q4_0 / q4_1 rows for N tokens with one int32 lane per block: 16 blocks are transposed so that lane j of 8 registers
// holds block j's nibbles (dword-interleaved like Q8Activations::qt16; q4_0's 18-byte blocks by 16-bit permutes), then 8 vpdpbusd per token give the 16
// block dots with no horizontal reduction. A final partial group (nb % 16 >= kQ4_1T16MinPartial blocks) takes
// the same path with masked loads that stop at the row's last byte; fewer leftover blocks are dotted one by one.
// Needs xq[t].qt16 (interleave_q8_blocks16, zero-padded to whole groups); otherwise the pair kernel.
template <int N, class Block>
void row_q4_multi_t16(const Block* w, const Q8Activations* xq, int64_t nb, float* out, int64_t ldy) {
  constexpr bool kQ4_0 = std::is_same_v<Block, BlockQ4_0>;
  constexpr int64_t kBytes = sizeof(Block);  // 18 (q4_0) or 20 (q4_1)
  static_assert(kBytes == (kQ4_0 ? 18 : 20));
  const int64_t groups = nb / 16, left = nb - 16 * groups;
  const bool partial = left >= kQ4_1T16MinPartial;
  const int64_t groups_read = groups + (partial ? 1 : 0);
  for (int t = 0; t < N; ++t)
    if (int64_t(xq[t].qt16.size()) < groups_read * 512) return row_q4_multi_zmm<N, Block, kQ4_0 ? 1 : 2>(w, xq, nb, out, ldy);
  __m512 acc[N], off[N];
#pragma GCC unroll 8
  for (int t = 0; t < N; ++t) acc[t] = off[t] = _mm512_setzero_ps();
  for (int64_t g = 0; g < groups; ++g) {
    const std::byte* base = reinterpret_cast<const std::byte*>(w + 16 * g);
    _mm_prefetch(reinterpret_cast<const char*>(base) + 2048, _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(base) + 2048 + 64, _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(base) + 2048 + 128, _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(base) + 2048 + 192, _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(base) + 2048 + 256, _MM_HINT_T0);
    __m512i r[5];
    for (int i = 0; i < 4; ++i) r[i] = _mm512_loadu_si512(base + 64 * i);
    // q4_0's 16 blocks end 32 bytes into r[4]: read no further (the row, and the mapping, may end there)
    r[4] = kQ4_0 ? _mm512_maskz_loadu_epi8(__mmask64(0xFFFFFFFFull), base + 256) : _mm512_loadu_si512(base + 256);
    q4_t16_group<N, false, Block>(r, xq, g, 0xFFFF, acc, off);
  }
  if (partial) {  // blocks 16 groups .. nb - 1: kBytes * left bytes, the bytes after them never touched
    const std::byte* base = reinterpret_cast<const std::byte*>(w + 16 * groups);
    const int64_t bytes = kBytes * left;
    __m512i r[5];
    for (int i = 0; i < 5; ++i) {
      const int64_t rem = bytes - 64 * i;
      r[i] = rem <= 0 ? _mm512_setzero_si512()
                      : _mm512_maskz_loadu_epi8(rem >= 64 ? ~__mmask64(0) : (__mmask64(1) << rem) - 1, base + 64 * i);
    }
    q4_t16_group<N, true, Block>(r, xq, groups, __mmask16((1u << left) - 1u), acc, off);
  }
  // leftover blocks one by one: 8 int32 partial dots (exact in fp32) scaled into 8 lanes, no per-block reduction
  __m256 tail[N];
  float o[N];
#pragma GCC unroll 8
  for (int t = 0; t < N; ++t) tail[t] = _mm256_setzero_ps(), o[t] = 0.0f;
  for (int64_t b = groups_read * 16; b < nb; ++b) {
    const __m256i u = unpack_nibbles(w[b].qs);
    const float dw = h2f(w[b].d);
    float mw = -8.0f * dw;
    if constexpr (!kQ4_0) mw = h2f(w[b].m);
#pragma GCC unroll 8
    for (int t = 0; t < N; ++t) {
      const __m256 p = _mm256_cvtepi32_ps(dot_u8s8(u, load32(xq[t].q.data() + 32 * b)));
      tail[t] = _mm256_fmadd_ps(p, _mm256_set1_ps(dw * xq[t].d[size_t(b)]), tail[t]);
      o[t] += mw * xq[t].sum_scaled[size_t(b)];
    }
  }
#pragma GCC unroll 8
  for (int t = 0; t < N; ++t) {  // tail[t] joins the low 8 lanes (upper half zeroed), one reduction per sum
    const __m512 tail512 = _mm512_castpd_ps(_mm512_maskz_broadcast_f64x4(0x0F, _mm256_castps_pd(tail[t])));
    out[t * ldy] = hsum512(_mm512_add_ps(acc[t], tail512)) + (o[t] + hsum512(off[t]));
  }
}

}  // namespace
}  // namespace rooftop::kernels

namespace rooftop::kernels {

// ---- GEMM on bf16 operands: Y (n, m) = X (n, k) W^T with vdpbf16ps ----
// The fp32 GEMM's blocking (kGemmMB rows x kGemmKC columns dequantized once per block, 6-token x 32-output
// register tiles), with both operands rounded to bf16 (round to nearest even): one vdpbf16ps multiplies 32 pairs
// and adds them into 16 fp32 lanes, twice the products of an fp32 FMA. The packed panel holds, for each pair q
// of columns (2q, 2q+1), the 32 outputs' pairs side by side (32-bit words): panel p, pair q, output j at
// (p * kc / 2 + q) * 32 + j. X is rounded once per call into a thread-local (n, k) bf16 copy whose pairs are
// 32-bit words too, broadcast one per token per step. Accumulation stays fp32.
namespace {

template <int MR>
void micro_bf16(const uint32_t* X, int64_t ldx, const uint32_t* P, int64_t kp, float* Y, int64_t ldy, int nr, bool acc) {
  __m512 c0[MR], c1[MR];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) c0[r] = c1[r] = _mm512_setzero_ps();
  for (int64_t q = 0; q < kp; ++q) {
    const __m512bh w0 = (__m512bh)_mm512_load_si512(P + q * 32), w1 = (__m512bh)_mm512_load_si512(P + q * 32 + 16);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const __m512bh xb = (__m512bh)_mm512_set1_epi32(int(X[r * ldx + q]));
      c0[r] = _mm512_dpbf16_ps(c0[r], xb, w0);
      c1[r] = _mm512_dpbf16_ps(c1[r], xb, w1);
    }
  }
  store_tile<MR>(c0, c1, Y, ldy, nr, acc);
}

void micro_bf16_dispatch(int mr, const uint32_t* X, int64_t ldx, const uint32_t* P, int64_t kp, float* Y, int64_t ldy,
                         int nr, bool acc) {
  with_count<kGemmMR>(mr, [&]<int MR>() { micro_bf16<MR>(X, ldx, P, kp, Y, ldy, nr, acc); });
}

// n fp32 values (n even) -> n / 2 words of two bf16 (the lower half holds the even value).
void to_bf16_pairs(const float* src, int64_t n, uint32_t* dst) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    // cvtne2ps(a, b): lanes 0-15 from b, 16-31 from a, so (b, a) = (values i..i+15, i+16..i+31) keeps the order.
    const __m512bh h = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(src + i + 16), _mm512_loadu_ps(src + i));
    _mm512_storeu_si512(dst + i / 2, (__m512i)h);
  }
  for (; i < n; i += 2) {
    const __m512 v = _mm512_maskz_loadu_ps(__mmask16(3), src + i);
    const __m256bh h = _mm512_cvtneps_pbh(v);
    uint32_t w;
    std::memcpy(&w, &h, 4);
    dst[i / 2] = w;
  }
}

struct FreeU32 {
  void operator()(uint32_t* p) const { std::free(p); }
};

void gemm_cols_bf16(const WeightView& W, const float* X, int64_t n, float* Y, int64_t j0, int64_t j1) {
  const int64_t k = W.k, m = W.m, rb = row_bytes(W.format, k), bv = block_values(W.format), bb = block_bytes(W.format);
  if (k % 2 != 0) return gemm_cols_simd(W, X, n, Y, j0, j1);  // odd widths (f32 only) stay in fp32
  thread_local std::unique_ptr<uint32_t, FreeU32> packed_buf(
      static_cast<uint32_t*>(std::aligned_alloc(64, sizeof(uint32_t) * (kGemmMB * kGemmKC / 2 + kGemmKC))));
  thread_local std::vector<float> rowbuf = std::vector<float>(size_t(kGemmKC));
  thread_local std::vector<uint32_t> xb, rowpairs(size_t(kGemmKC / 2));
  // X rounded once per call (each worker its own copy: n x k / 2 words, small next to the weight block work).
  if (int64_t(xb.size()) < n * k / 2) xb.resize(size_t(n * k / 2));
  for (int64_t i = 0; i < n; ++i) to_bf16_pairs(X + i * k, k, xb.data() + i * k / 2);
  uint32_t* packed = packed_buf.get();
  for (int64_t jb = j0; jb < j1; jb += kGemmMB) {
    const int64_t jn = std::min(kGemmMB, j1 - jb), panels = (jn + kGemmNR - 1) / kGemmNR;
    for (int64_t kc0 = 0; kc0 < k; kc0 += kGemmKC) {
      const int64_t kc = std::min(kGemmKC, k - kc0), kp = kc / 2;
      for (int64_t r = 0; r < panels * kGemmNR; ++r) {
        uint32_t* dst = packed + (r / kGemmNR) * kp * kGemmNR + (r % kGemmNR);
        if (r < jn) {
          dequantize_simd(W.format, W.data + (jb + r) * rb + (kc0 / bv) * bb, rowbuf.data(), kc);
          to_bf16_pairs(rowbuf.data(), kc, rowpairs.data());
          for (int64_t q = 0; q < kp; ++q) dst[q * kGemmNR] = rowpairs[size_t(q)];
        } else {
          for (int64_t q = 0; q < kp; ++q) dst[q * kGemmNR] = 0;
        }
      }
      for (int64_t i0 = 0; i0 < n; i0 += kGemmMR) {
        const int mr = int(std::min<int64_t>(kGemmMR, n - i0));
        for (int64_t p = 0; p < panels; ++p) {
          const int nr = int(std::min<int64_t>(kGemmNR, jn - p * kGemmNR));
          micro_bf16_dispatch(mr, xb.data() + i0 * k / 2 + kc0 / 2, k / 2, packed + p * kp * kGemmNR, kp,
                              Y + i0 * m + jb + p * kGemmNR, m, nr, kc0 > 0);
        }
      }
    }
  }
}

}  // namespace

namespace {
struct alignas(64) TileConfig {
  uint8_t palette = 1, start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

constexpr TileConfig tile_config_16x64() {
  TileConfig c;
  for (int i = 0; i < 8; ++i) {
    c.colsb[i] = 64;
    c.rows[i] = 16;
  }
  return c;
}
}  // namespace

void amx_configure_thread() {
  thread_local bool configured = false;
  if (configured) return;
  // In static storage: GCC 12 does not see _tile_loadconfig read its operand and dropped the stores to a local copy
  // (every tile then had 0 rows, and the first tile instruction raised SIGILL).
  static constexpr TileConfig kConfig = tile_config_16x64();
  _tile_loadconfig(&kConfig);
  configured = true;
}

// ---- GEMM on bf16 operands with AMX tiles: Y (n, m) = X (n, k) W^T with TDPBF16PS, for every format ----
// One TDPBF16PS adds a (16 x 32) bf16 tile times a (32 x 16) bf16 tile into a 16 x 16 fp32 tile: 16,384 FLOPs, where
// vdpbf16ps does 64. The kernel computes Y^T: tile C (16 weight rows x 16 tokens) += A (16 weight rows x 32 k values,
// each row as the weights store it, rounded to bf16) . B (16 k-pairs x 16 tokens). So the weights need no transpose,
// only a conversion to bf16 per block of 32 rows x kAmxKC values; X is rearranged once per GEMM (pack_x_bf16) into
// groups of 16 tokens whose k-pair q is one 64-byte row: word (q, t) = (x[t][2q], x[t][2q + 1]). Both operands are
// rounded to bf16 as in gemm_cols_bf16 (same gemm_operand_rounding); sums stay fp32 in the tiles. Tiles 0-3 hold C
// for 2 row tiles x 2 token groups, 4-5 the A tiles, 6-7 the B tiles.
namespace {

// A block of weights converted at once: kAmxRB rows x kAmxKC values (256 KiB of bf16, in L2). Every call reads all
// of X's bf16 copy once per block of rows, so the blocks are as tall as the task (gemm() hands out up to kAmxRB rows).
constexpr int64_t kAmxRB = 256, kAmxKC = 512;

struct FreeU16 {
  void operator()(uint16_t* p) const { std::free(p); }
};

// Every format whose rows split into 32-value steps: the quantized ones too, dequantized to bf16 per block, which
// measured 1.2-1.9x faster than the int8 VNNI GEMM at n = 128 (rooftop_bench gemm/*/n:128, docs/engine-speed.md).
bool amx_takes(WeightFormat, int64_t k) { return k % 32 == 0; }

// Token groups [g0, g1) of X (n, k) into Xv (x_bf16_words(n, k) words); tokens past n are zero.
void pack_x_bf16(const float* X, int64_t n, int64_t k, uint32_t* Xv, int64_t g0, int64_t g1) {
  thread_local std::vector<uint32_t> row;
  if (int64_t(row.size()) < k / 2) row.resize(size_t(k / 2));
  for (int64_t g = g0; g < g1; ++g) {
    uint32_t* group = Xv + g * 16 * (k / 2);
    for (int64_t t = 0; t < 16; ++t) {
      const int64_t i = g * 16 + t;
      if (i < n) to_bf16_pairs(X + i * k, k, row.data());
      else std::fill(row.begin(), row.begin() + k / 2, 0u);
      for (int64_t q = 0; q < k / 2; ++q) group[q * 16 + t] = row[size_t(q)];
    }
  }
}

// C tiles (r, g) of one chunk, r < R row tiles and g < G token groups, kept at acc + (g * 2 + r) * 256 between chunks.
// A: w, the chunk's A tiles (step s, row tile t at (s * 2 + t) * 512); B: xg, the first group's k-pairs of this chunk,
// the next group's group_words later.
template <int R, int G>
void amx_chunk(const uint16_t* w, const uint32_t* xg, int64_t group_words, int64_t steps, float* acc, bool load) {
  if (load) {
    _tile_loadd(0, acc, 64);
    if constexpr (G > 1) _tile_loadd(1, acc + 512, 64);
    if constexpr (R > 1) _tile_loadd(2, acc + 256, 64);
    if constexpr (R > 1 && G > 1) _tile_loadd(3, acc + 768, 64);
  } else {
    _tile_zero(0);
    if constexpr (G > 1) _tile_zero(1);
    if constexpr (R > 1) _tile_zero(2);
    if constexpr (R > 1 && G > 1) _tile_zero(3);
  }
  for (int64_t s = 0; s < steps; ++s) {
    _tile_loadd(4, w + s * 1024, 64);
    if constexpr (R > 1) _tile_loadd(5, w + s * 1024 + 512, 64);
    _tile_loadd(6, xg + s * 256, 64);
    if constexpr (G > 1) _tile_loadd(7, xg + group_words + s * 256, 64);
    _tile_dpbf16ps(0, 4, 6);
    if constexpr (G > 1) _tile_dpbf16ps(1, 4, 7);
    if constexpr (R > 1) _tile_dpbf16ps(2, 5, 6);
    if constexpr (R > 1 && G > 1) _tile_dpbf16ps(3, 5, 7);
  }
  _tile_stored(0, acc, 64);
  if constexpr (G > 1) _tile_stored(1, acc + 512, 64);
  if constexpr (R > 1) _tile_stored(2, acc + 256, 64);
  if constexpr (R > 1 && G > 1) _tile_stored(3, acc + 768, 64);
}

void gemm_cols_xbf16(const WeightView& W, const uint32_t* Xv, int64_t n, float* Y, int64_t j0, int64_t j1) {
  amx_configure_thread();
  const int64_t k = W.k, m = W.m, rb = row_bytes(W.format, k), bv = block_values(W.format), bb = block_bytes(W.format);
  const int64_t groups = (n + 15) / 16, group_words = 16 * (k / 2);
  thread_local std::vector<float> rowbuf, acc;
  thread_local std::unique_ptr<uint16_t, FreeU16> wbuf(
      static_cast<uint16_t*>(std::aligned_alloc(64, sizeof(uint16_t) * kAmxRB * kAmxKC)));
  if (int64_t(rowbuf.size()) < kAmxKC) rowbuf.resize(size_t(kAmxKC));
  uint16_t* wb = wbuf.get();
  for (int64_t jb = j0; jb < j1; jb += kAmxRB) {
    const int64_t rows = std::min(kAmxRB, j1 - jb), pairs = (rows + 31) / 32;
    if (int64_t(acc.size()) < (groups + 1) / 2 * pairs * 1024) acc.resize(size_t((groups + 1) / 2 * pairs * 1024));
    for (int64_t kc0 = 0; kc0 < k; kc0 += kAmxKC) {
      const int64_t kc = std::min(kAmxKC, k - kc0), steps = kc / 32;
      // wb holds the A tiles one after another: row pair p, step s, row tile t at ((p * steps + s) * 2 + t) * 512
      // values, 16 rows x 32 values each (a tile load reads 1 KiB in a row). Rows past the range are zero.
      const int64_t slice_bytes = kc / bv * bb;
      for (int64_t r = 0; r < pairs * 32; ++r) {
        uint16_t* dst = wb + (r / 32) * steps * 1024 + ((r / 16) % 2) * 512 + (r % 16) * 32;
        // The piece kPackPrefetchRows rows ahead (x86_kernels_inl.h); past the block's last row, the next slice's.
        const int64_t ahead = r + kPackPrefetchRows;
        if (ahead < rows) prefetch_lines(W.data + (jb + ahead) * rb + (kc0 / bv) * bb, slice_bytes);
        else if (kc0 + kc < k && ahead - rows < rows)
          prefetch_lines(W.data + (jb + ahead - rows) * rb + ((kc0 + kc) / bv) * bb, std::min(kAmxKC, k - kc0 - kc) / bv * bb);
        if (r < rows) {
          dequantize_simd(W.format, W.data + (jb + r) * rb + (kc0 / bv) * bb, rowbuf.data(), kc);
          for (int64_t s = 0; s < steps; ++s) to_bf16_pairs(rowbuf.data() + s * 32, 32, reinterpret_cast<uint32_t*>(dst + s * 1024));
        } else {
          for (int64_t s = 0; s < steps; ++s) std::fill(dst + s * 1024, dst + s * 1024 + 32, uint16_t(0));
        }
      }
      // Each pair of token groups loads its B tiles from L1 for every row pair of the block.
      for (int64_t g = 0; g < groups; g += 2) {
        const uint32_t* xg = Xv + g * group_words + kc0 / 2 * 16;
        for (int64_t p = 0; p < pairs; ++p) {
          const uint16_t* w = wb + p * steps * 1024;
          float* a = acc.data() + ((g / 2) * pairs + p) * 1024;
          const bool two_rows = p * 32 + 16 < rows, two_groups = g + 1 < groups, load = kc0 > 0;
          if (two_rows && two_groups) amx_chunk<2, 2>(w, xg, group_words, steps, a, load);
          else if (two_rows) amx_chunk<2, 1>(w, xg, group_words, steps, a, load);
          else if (two_groups) amx_chunk<1, 2>(w, xg, group_words, steps, a, load);
          else amx_chunk<1, 1>(w, xg, group_words, steps, a, load);
        }
      }
    }
    for (int64_t i = 0; i < n; ++i) {  // C^T tiles -> Y rows
      const float* c = acc.data() + (i / 32) * pairs * 1024 + ((i / 16) % 2) * 512 + (i % 16);
      for (int64_t r = 0; r < rows; ++r) Y[i * m + jb + r] = c[(r / 32) * 1024 + ((r / 16) % 2) * 256 + (r % 16) * 16];
    }
  }
}

// The tiled GEMM's conversion of every weight to bf16 costs about the same at 1 token as at 16, while GEMV rows
// cost n dot products per weight: the crossover is where n dots outweigh one conversion, earliest for the formats
// whose GEMV rows are slowest per token (floats, q6_k) and latest for the 4-bit legacy blocks whose integer dots are
// cheapest. Measured on this project's AMX VM (Xeon, 2 vCPUs), gemv_batch against gemm at FFN shapes 2560 x 1024
// and 5632 x 2048 with the weights streamed from DRAM (copies cycled past 300 MB, as every real model's are: the
// smallest, SmolLM2-135M, is 3x the cache-resident size), medians of 15 (docs/engine-speed.md, stop 42): the first n
// where the tiled GEMM was as fast on both. With one matrix held in the cache the GEMM wins 2-5 tokens sooner.
// Rows shorter than kAmxLongRowsK (SmolLM2-135M's 576, Gemma 3's 640, at 1536 x 576 and 2048 x 640 the same way) reach
// the crossover sooner: each GEMV row ends in one horizontal reduction per token, which weighs more on a short row.
// SmolLM2-360M's 960 behaves as the long rows (its q4_0 prompt of 12 tokens: 38.6 ms as GEMV rows, 43.3 as the GEMM).
constexpr int64_t kAmxLongRowsK = 768;
int64_t amx_gemm_min_tokens(WeightFormat f, int64_t k) {
  if (!amx_takes(f, k)) return kSmallGemmMaxN + 1;
  const bool long_rows = k >= kAmxLongRowsK;
  switch (f) {
    case WeightFormat::f16: case WeightFormat::bf16: return 7;
    // f32 weights keep fp32 products up to 8 tokens (the tiled GEMM rounds both operands to bf16), though the
    // GEMM was faster from 7 here too.
    case WeightFormat::f32: return kSmallGemmMaxN + 1;
    case WeightFormat::q6_k: return long_rows ? 13 : 9;
    case WeightFormat::q8_0: return long_rows ? 15 : 11;
    case WeightFormat::q5_0: case WeightFormat::q5_1: return long_rows ? 15 : 10;
    case WeightFormat::q4_k: case WeightFormat::q5_k: return long_rows ? 17 : 9;
    case WeightFormat::q4_0: return long_rows ? 21 : 12;
    case WeightFormat::q4_1: return long_rows ? 21 : 13;
  }
  return kSmallGemmMaxN + 1;
}

// gemm_cols without a shared Xv: this call's own copy of X (odd float widths: the vdpbf16ps GEMM).
void gemm_cols_amx(const WeightView& W, const float* X, int64_t n, float* Y, int64_t j0, int64_t j1) {
  if (!amx_takes(W.format, W.k)) return gemm_cols_bf16(W, X, n, Y, j0, j1);
  thread_local std::vector<uint32_t> xv;
  xv.resize(size_t(x_bf16_words(n, W.k)));
  pack_x_bf16(X, n, W.k, xv.data(), 0, (n + 15) / 16);
  gemm_cols_xbf16(W, xv.data(), n, Y, j0, j1);
}

}  // namespace

// ---- GEMM on int8 operands for the integer-quantized formats: Y (n, m) = X (n, k) W^T with vpdpbusd ----
// llama.cpp's way: X is quantized per call to int8 blocks of 32 (the GEMV's q8 activations, x ~= d_a q_a), the
// weights are unpacked to bytes 0..255 without any float work, and one vpdpbusd multiplies 64 byte pairs into 16
// int32 lanes: four times the products of an fp32 FMA, twice those of vdpbf16ps. Every format writes a 32-value
// block as u8 values q with two floats per (row, sub-block): w = s1 q - s2 (q4_0: s1 = d, s2 = 8 d; q4_1: d, -m;
// q5_0: d, 16 d; q5_1: d, -m; q8_0 (q + 128): d, 128 d; q4_k / q5_k: d sc, dmin m; q6_k, sub-blocks of 16:
// d sc, 32 d sc). Then, per sub-block,
//   sum w x ~= s1 d_a dot(q, q_a) - s2 d_a sum(q_a)    (d_a sum(q_a) over a 32-block is Q8Activations::sum_scaled).
// The packed panel: per 32-value block, 8 quads x (32 rows x 4 bytes) = 1,024 bytes, then per sub-block s1 and s2
// (32 floats each): row r's values 4j..4j+3 at byte 128 j + 4 r, so a 512-bit load holds one quad of 16 rows and
// the token's quad is broadcast to every lane.
namespace {

// Bytes per 32-value block of a 32-row panel with `sub` sub-blocks (1: 32 values share a scale; 2: 16 values).
constexpr int64_t q8_panel_block(int sub) { return q8_panel_bytes<kGemmNR>(sub); }
constexpr int64_t kQ8KC = 512;  // k-slice: 16 blocks; 2 panels = 40-48 KiB in L1/L2
constexpr int kQ8MR = 4;        // tokens per register tile
// The zero-masked convert: GCC 12's plain _mm512_cvtepi32_ps reads an undefined register (-Wmaybe-uninitialized).
constexpr __mmask16 kAll = 0xFFFF;

// Row values [kc0, kc0 + kc) (kc0, kc multiples of the format's block) into panel lane `lane`.
void pack_q8_row(WeightFormat f, const std::byte* row, int64_t kc0, int64_t kc, uint8_t* panel, int lane) {
  const __m256i quad_offsets = _mm256_setr_epi32(0, 128, 256, 384, 512, 640, 768, 896);
  const int sub = q8_subblocks(f);
  const int64_t pb = q8_panel_block(sub);
  auto put = [&](int64_t b, __m256i q) {  // the u8 values of block b (32 values) of the slice
    _mm256_i32scatter_epi32(reinterpret_cast<int*>(panel + b * pb + 4 * lane), quad_offsets, q, 1);
  };
  auto scales = [&](int64_t b, int h, float s1, float s2) {  // sub-block h of block b
    float* sc = reinterpret_cast<float*>(panel + b * pb + 1024 + h * 256);
    sc[lane] = s1;
    sc[32 + lane] = s2;
  };
  walk_q8_blocks(f, row, kc0, kc, /*q8_0_biased=*/true, put, scales);
}

// Y (mr, nr <= 32) [+]= the tile over `blocks` 32-value blocks of the panel P (SUB sub-blocks each); token r's
// int8 values at xq[r], its block scales at xd[r] and d_a sum(q_a) per sub-block at xs[r].
template <int MR, int SUB>
void micro_q8(const int8_t* const* xq, const float* const* xd, const float* const* xs, const uint8_t* P,
              int64_t blocks, float* Y, int64_t ldy, int nr, bool acc) {
  constexpr int64_t pbytes = q8_panel_block(SUB);
  __m512 c0[MR], c1[MR];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) c0[r] = c1[r] = _mm512_setzero_ps();
  for (int64_t b = 0; b < blocks; ++b) {
    const uint8_t* pb = P + b * pbytes;
#pragma GCC unroll 2
    for (int h = 0; h < SUB; ++h) {
      __m512i i0[MR], i1[MR];
#pragma GCC unroll 8
      for (int r = 0; r < MR; ++r) i0[r] = i1[r] = _mm512_setzero_si512();
#pragma GCC unroll 8
      for (int j = h * 8 / SUB; j < (h + 1) * 8 / SUB; ++j) {
        const __m512i w0 = _mm512_load_si512(pb + 128 * j), w1 = _mm512_load_si512(pb + 128 * j + 64);
#pragma GCC unroll 8
        for (int r = 0; r < MR; ++r) {
          int32_t quad;
          std::memcpy(&quad, xq[r] + 32 * b + 4 * j, 4);
          const __m512i xb = _mm512_set1_epi32(quad);
          i0[r] = _mm512_dpbusd_epi32(i0[r], w0, xb);
          i1[r] = _mm512_dpbusd_epi32(i1[r], w1, xb);
        }
      }
      const float* s = reinterpret_cast<const float*>(pb + 1024 + 256 * h);
      const __m512 s10 = _mm512_load_ps(s), s11 = _mm512_load_ps(s + 16), s20 = _mm512_load_ps(s + 32),
                   s21 = _mm512_load_ps(s + 48);
#pragma GCC unroll 8
      for (int r = 0; r < MR; ++r) {
        const __m512 da = _mm512_set1_ps(xd[r][b]), sa = _mm512_set1_ps(xs[r][SUB * b + h]);
        c0[r] = _mm512_fmadd_ps(s10, _mm512_mul_ps(_mm512_maskz_cvtepi32_ps(kAll, i0[r]), da), c0[r]);
        c1[r] = _mm512_fmadd_ps(s11, _mm512_mul_ps(_mm512_maskz_cvtepi32_ps(kAll, i1[r]), da), c1[r]);
        c0[r] = _mm512_fnmadd_ps(s20, sa, c0[r]);
        c1[r] = _mm512_fnmadd_ps(s21, sa, c1[r]);
      }
    }
  }
  store_tile<MR>(c0, c1, Y, ldy, nr, acc);
}

// The int8 GEMM on quantized X (KernelTable::gemm_cols_q8), for the formats gemm_q8_format names: gemm_q8_panels
// with 32-row panels.
void gemm_cols_q8_core(const WeightView& W, const Q8Activations* xq, const float* sum16, int64_t n, float* Y,
                       int64_t j0, int64_t j1) {
  auto micro = [sub = q8_subblocks(W.format)](int mr, auto... args) {
    with_count<kQ8MR>(mr, [&]<int MR>() {
      if (sub == 2) micro_q8<MR, 2>(args...);
      else micro_q8<MR, 1>(args...);
    });
  };
  gemm_q8_panels<kGemmNR, kGemmMB, kQ8KC, kQ8MR>(W, xq, sum16, n, Y, j0, j1, pack_q8_row, micro);
}

}  // namespace

KernelTable make_avx512_kernels() {
  KernelTable t = make_x86_table("avx512");
  t.q4_reads_qt16 = true;  // row_q4_multi_t16<1>: ~1.5x the pair kernel's q4_1 GEMV speed
  t.gemm_cols = gemm_cols_int8<gemm_cols_q8_core, gemm_cols_simd>;
  t.gemm_uses_q8 = gemm_q8_format;
  t.gemm_cols_q8 = gemm_cols_q8_core;
  return t;
}

KernelTable make_avx512_bf16_kernels() {
  KernelTable t = make_avx512_kernels();
  t.name = "avx512_bf16";
  t.gemm_cols = gemm_cols_int8<gemm_cols_q8_core, gemm_cols_bf16>;
  t.gemm_operand_rounding = 0x1p-8;
  return t;
}

KernelTable make_amx_kernels() {
  KernelTable t = make_avx512_bf16_kernels();
  t.name = "amx";
  t.gemm_cols = gemm_cols_amx;
  t.gemm_uses_q8 = nullptr;  // no int8 GEMM: the quantized formats take bf16 operands too
  t.gemm_cols_q8 = nullptr;
  t.gemm_uses_xbf16 = amx_takes;
  t.pack_x_bf16 = pack_x_bf16;
  t.gemm_cols_xbf16 = gemm_cols_xbf16;
  t.gemm_cols_per_task = kAmxRB;
  t.gemm_min_tokens = amx_gemm_min_tokens;
  return t;
}
}  // namespace rooftop::kernels
