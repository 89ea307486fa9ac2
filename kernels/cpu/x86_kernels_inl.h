// Shared x86 SIMD kernels (256-bit vectors), included by kernels_avx2.cpp and kernels_avx512.cpp, which
// compile them with their own ISA flags. Everything has internal linkage so the copies never merge.
//
// The including file defines first, inside namespace rooftop::kernels::{anonymous}:
//   ROOFTOP_VNNI (0 or 1): int8 dots with AVX512-VNNI vpdpbusd instead of AVX2 maddubs + madd;
//   kGemmNR, kGemmMR and gemm_micro(mr, X, ldx, P, kc, Y, ldy, nr, accumulate): the GEMM register tile;
//   kGemmMB: weight rows per packed block (a multiple of kGemmNR and of 8).
// Dimension legend: k = values per weight row, m = rows, n = tokens, kc = k-slice of a packed panel.
#pragma once
#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <cstddef>
#include <cstring>
#include <memory>
#include <vector>

#include "kernels/cpu/blocks.h"
#include "kernels/cpu/count_dispatch.h"
#include "kernels/cpu/dispatch.h"

namespace rooftop::kernels {
namespace {

inline float h2f(uint16_t h) { return _cvtsh_ss(h); }

inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

inline int hsum_i32(__m256i v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
  return _mm_cvtsi128_si32(s);
}

// 16 bytes of packed nibbles -> 32 bytes 0..15: low nibbles (elements 0..15), then high (16..31).
inline __m256i unpack_nibbles(const uint8_t* qs) {
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(qs));
  const __m128i mask = _mm_set1_epi8(0x0F);
  return _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(b, 4), mask), _mm_and_si128(b, mask));
}

inline __m256i load32(const void* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }

// Software prefetch of the `bytes` that a row kernel reads kPrefetchAhead bytes after `p` (into L1). The decode
// GEMVs stream each row front to back from DRAM; for the formats whose row kernels spend many instructions per
// byte (q4_k, q6_k, q8_0) the hardware prefetcher did not run far enough ahead: TinyLlama-1.1B Q4_K_M decode went
// from 16-18 to 25-26 tok/s with it (docs/engine-speed.md).
constexpr size_t kPrefetchAhead = 1024;
// Prefetches [p, p + bytes) into L1, one request per cache line.
inline void prefetch_lines(const void* p, int64_t bytes) {
  const char* c = static_cast<const char*>(p);
  for (int64_t l = 0; l < bytes; l += 64) _mm_prefetch(c + l, _MM_HINT_T0);
}
inline void prefetch_ahead(const void* p, size_t bytes) {
  prefetch_lines(static_cast<const char*>(p) + kPrefetchAhead, int64_t(bytes));
}
// The GEMMs pack a k-slice of a block of rows: short pieces a whole row apart, more streams than any hardware
// prefetcher follows, so without help each piece came from DRAM at full latency (2048 x 8192 q4_0, 32 tokens, weights
// from DRAM: 3.65 ms, 1.97 with the weights in the cache). The pack loops prefetch the piece this many rows ahead
// (one row's piece packs in about a DRAM latency): 2.19 ms (docs/engine-speed.md, stop 43).
constexpr int64_t kPackPrefetchRows = 8;

// 32 bits -> 32 bytes, byte i = 0xFF where bit i is set: byte i / 8 of the word broadcast to lanes 8(i/8)..,
// then each lane tests its own bit.
inline __m256i bits_to_bytes(uint32_t bits) {
  const __m256i pick = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                        2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
  const __m256i bit = _mm256_set1_epi64x(int64_t(0x8040201008040201ull));
  const __m256i b = _mm256_shuffle_epi8(_mm256_set1_epi32(int(bits)), pick);
  return _mm256_cmpeq_epi8(_mm256_and_si256(b, bit), bit);
}

// A q5_0 / q5_1 block's 32 values 0..31 in element order: the nibbles with their fifth bits.
template <class Block>
inline __m256i unpack_q5(const Block& b) {
  return _mm256_or_si256(unpack_nibbles(b.qs), _mm256_and_si256(bits_to_bytes(q5_high_bits(b.qh)), _mm256_set1_epi8(0x10)));
}

// 8 int32 lanes, each the sum of 4 products u8 * s8 (u in 0..255, s in -127..127; no saturation for our ranges).
inline __m256i dot_u8s8(__m256i u, __m256i s) {
#if ROOFTOP_VNNI
  return _mm256_dpbusd_epi32(_mm256_setzero_si256(), u, s);
#else
  return _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1));
#endif
}

// 32 int8 -> 4 x 8 floats (exact).
inline void i8x32_to_f32(__m256i v, __m256 out[4]) {
  const __m128i lo = _mm256_castsi256_si128(v), hi = _mm256_extracti128_si256(v, 1);
  out[0] = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(lo));
  out[1] = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(lo, 8)));
  out[2] = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(hi));
  out[3] = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(hi, 8)));
}

// ---- dequantization: the same float operations, in the same order, as dequantize_ref.cpp ----

void dequant_q4_0_simd(const BlockQ4_0* b, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += 32) {
    __m256 f[4];
    i8x32_to_f32(_mm256_sub_epi8(unpack_nibbles(b[i].qs), _mm256_set1_epi8(8)), f);
    const __m256 d = _mm256_set1_ps(h2f(b[i].d));
    for (int g = 0; g < 4; ++g) _mm256_storeu_ps(y + 8 * g, _mm256_mul_ps(f[g], d));
  }
}

void dequant_q4_1_simd(const BlockQ4_1* b, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += 32) {
    __m256 f[4];
    i8x32_to_f32(unpack_nibbles(b[i].qs), f);
    const __m256 d = _mm256_set1_ps(h2f(b[i].d)), m = _mm256_set1_ps(h2f(b[i].m));
    for (int g = 0; g < 4; ++g) _mm256_storeu_ps(y + 8 * g, _mm256_add_ps(_mm256_mul_ps(f[g], d), m));
  }
}

void dequant_q5_0_simd(const BlockQ5_0* b, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += 32) {
    __m256 f[4];
    i8x32_to_f32(_mm256_sub_epi8(unpack_q5(b[i]), _mm256_set1_epi8(16)), f);
    const __m256 d = _mm256_set1_ps(h2f(b[i].d));
    for (int g = 0; g < 4; ++g) _mm256_storeu_ps(y + 8 * g, _mm256_mul_ps(f[g], d));
  }
}

void dequant_q5_1_simd(const BlockQ5_1* b, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += 32) {
    __m256 f[4];
    i8x32_to_f32(unpack_q5(b[i]), f);
    const __m256 d = _mm256_set1_ps(h2f(b[i].d)), m = _mm256_set1_ps(h2f(b[i].m));
    for (int g = 0; g < 4; ++g) _mm256_storeu_ps(y + 8 * g, _mm256_add_ps(_mm256_mul_ps(f[g], d), m));
  }
}

void dequant_q8_0_simd(const BlockQ8_0* b, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += 32) {
    __m256 f[4];
    i8x32_to_f32(load32(b[i].qs), f);
    const __m256 d = _mm256_set1_ps(h2f(b[i].d));
    for (int g = 0; g < 4; ++g) _mm256_storeu_ps(y + 8 * g, _mm256_mul_ps(f[g], d));
  }
}

// Chunk c (64 values) of a q4_k block as bytes: sub-block 2c in lo (low nibbles), 2c + 1 in hi (high nibbles).
inline void unpack_q4_k_chunk(const BlockQ4K& b, int c, __m256i& lo, __m256i& hi) {
  const __m256i mask = _mm256_set1_epi8(0x0F), qw = load32(b.qs + 32 * c);
  lo = _mm256_and_si256(qw, mask);
  hi = _mm256_and_si256(_mm256_srli_epi16(qw, 4), mask);
}

// q5_k chunk c (sub-blocks 2c, 2c + 1): the 5-bit values of both, 32 bytes each.
inline void unpack_q5_k_chunk(const BlockQ5K& b, int c, __m256i& lo, __m256i& hi) {
  const __m256i mask = _mm256_set1_epi8(0x0F), one = _mm256_set1_epi8(1);
  const __m256i q = load32(b.qs + 32 * c), h = load32(b.qh);
  const __m256i h0 = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 2 * c), one), 4);
  const __m256i h1 = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 2 * c + 1), one), 4);
  lo = _mm256_or_si256(_mm256_and_si256(q, mask), h0);
  hi = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(q, 4), mask), h1);
}

// q4_K / q5_K blocks to floats, 64 values (two sub-blocks, `unpack`'s lo and hi) at a time: d sc q - dmin m.
template <class Block, class Unpack>
void dequant_kquant_simd(const Block* b, float* y, int64_t nb, Unpack unpack) {
  for (int64_t i = 0; i < nb; ++i) {
    const float d = h2f(b[i].d), dmin = h2f(b[i].dmin);
    for (int c = 0; c < 4; ++c, y += 64) {
      uint8_t sc0, m0, sc1, m1;
      q4k_scale_min(b[i].scales, 2 * c, sc0, m0);
      q4k_scale_min(b[i].scales, 2 * c + 1, sc1, m1);
      __m256i qlo, qhi;
      unpack(b[i], c, qlo, qhi);
      __m256 lo[4], hi[4];
      i8x32_to_f32(qlo, lo);
      i8x32_to_f32(qhi, hi);
      const __m256 d0 = _mm256_set1_ps(d * float(sc0)), mm0 = _mm256_set1_ps(dmin * float(m0));
      const __m256 d1 = _mm256_set1_ps(d * float(sc1)), mm1 = _mm256_set1_ps(dmin * float(m1));
      for (int g = 0; g < 4; ++g) {
        _mm256_storeu_ps(y + 8 * g, _mm256_sub_ps(_mm256_mul_ps(d0, lo[g]), mm0));
        _mm256_storeu_ps(y + 32 + 8 * g, _mm256_sub_ps(_mm256_mul_ps(d1, hi[g]), mm1));
      }
    }
  }
}

inline __m256i load8_u8_to_i32(const uint8_t* p) {
  return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
}

void dequant_q6_k_simd(const BlockQ6K* b, float* y, int64_t nb) {
  const __m256i m4 = _mm256_set1_epi32(0xF), m2 = _mm256_set1_epi32(3), off = _mm256_set1_epi32(32);
  for (int64_t i = 0; i < nb; ++i) {
    const float d = h2f(b[i].d);
    const uint8_t* ql = b[i].ql;
    const uint8_t* qh = b[i].qh;
    const int8_t* sc = b[i].scales;
    for (int half = 0; half < 2; ++half, y += 128, ql += 64, qh += 32, sc += 8) {
      for (int l = 0; l < 32; l += 8) {
        const int s = l / 16;
        const __m256i a = load8_u8_to_i32(ql + l), c = load8_u8_to_i32(ql + l + 32), h = load8_u8_to_i32(qh + l);
        const __m256i q1 = _mm256_sub_epi32(
            _mm256_or_si256(_mm256_and_si256(a, m4), _mm256_slli_epi32(_mm256_and_si256(h, m2), 4)), off);
        const __m256i q2 = _mm256_sub_epi32(
            _mm256_or_si256(_mm256_and_si256(c, m4),
                            _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(h, 2), m2), 4)), off);
        const __m256i q3 = _mm256_sub_epi32(
            _mm256_or_si256(_mm256_srli_epi32(a, 4),
                            _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(h, 4), m2), 4)), off);
        const __m256i q4 = _mm256_sub_epi32(
            _mm256_or_si256(_mm256_srli_epi32(c, 4), _mm256_slli_epi32(_mm256_srli_epi32(h, 6), 4)), off);
        _mm256_storeu_ps(y + l, _mm256_mul_ps(_mm256_set1_ps(d * float(sc[s])), _mm256_cvtepi32_ps(q1)));
        _mm256_storeu_ps(y + l + 32, _mm256_mul_ps(_mm256_set1_ps(d * float(sc[s + 2])), _mm256_cvtepi32_ps(q2)));
        _mm256_storeu_ps(y + l + 64, _mm256_mul_ps(_mm256_set1_ps(d * float(sc[s + 4])), _mm256_cvtepi32_ps(q3)));
        _mm256_storeu_ps(y + l + 96, _mm256_mul_ps(_mm256_set1_ps(d * float(sc[s + 6])), _mm256_cvtepi32_ps(q4)));
      }
    }
  }
}

void dequantize_simd(WeightFormat f, const std::byte* src, float* dst, int64_t k) {
  const int64_t nb = k / block_values(f);
  switch (f) {
    case WeightFormat::f32: std::memcpy(dst, src, size_t(k) * 4); return;
    case WeightFormat::f16: {
      const uint16_t* h = reinterpret_cast<const uint16_t*>(src);
      int64_t i = 0;
      for (; i + 8 <= k; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(h + i))));
      for (; i < k; ++i) dst[i] = h2f(h[i]);
      return;
    }
    case WeightFormat::bf16: {
      const uint16_t* h = reinterpret_cast<const uint16_t*>(src);
      int64_t i = 0;
      for (; i + 8 <= k; i += 8) {
        const __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(h + i)));
        _mm256_storeu_ps(dst + i, _mm256_castsi256_ps(_mm256_slli_epi32(w, 16)));
      }
      for (; i < k; ++i) {
        const uint32_t bits = uint32_t(h[i]) << 16;
        std::memcpy(dst + i, &bits, 4);
      }
      return;
    }
    case WeightFormat::q4_0: return dequant_q4_0_simd(reinterpret_cast<const BlockQ4_0*>(src), dst, nb);
    case WeightFormat::q4_1: return dequant_q4_1_simd(reinterpret_cast<const BlockQ4_1*>(src), dst, nb);
    case WeightFormat::q5_0: return dequant_q5_0_simd(reinterpret_cast<const BlockQ5_0*>(src), dst, nb);
    case WeightFormat::q5_1: return dequant_q5_1_simd(reinterpret_cast<const BlockQ5_1*>(src), dst, nb);
    case WeightFormat::q8_0: return dequant_q8_0_simd(reinterpret_cast<const BlockQ8_0*>(src), dst, nb);
    case WeightFormat::q4_k: return dequant_kquant_simd(reinterpret_cast<const BlockQ4K*>(src), dst, nb, unpack_q4_k_chunk);
    case WeightFormat::q5_k: return dequant_kquant_simd(reinterpret_cast<const BlockQ5K*>(src), dst, nb, unpack_q5_k_chunk);
    case WeightFormat::q6_k: return dequant_q6_k_simd(reinterpret_cast<const BlockQ6K*>(src), dst, nb);
  }
}

// ---- activations to q8 blocks (identical to quantize_activations_q8_ref) ----

void quantize_q8_simd(const float* x, int64_t k, Q8Activations& xq) {
  xq.resize(k);
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  for (int64_t b = 0; b < k / 32; ++b) {
    __m256 v[4];
    for (int g = 0; g < 4; ++g) v[g] = _mm256_loadu_ps(x + 32 * b + 8 * g);
    __m256 mx = _mm256_max_ps(_mm256_max_ps(_mm256_and_ps(v[0], abs_mask), _mm256_and_ps(v[1], abs_mask)),
                              _mm256_max_ps(_mm256_and_ps(v[2], abs_mask), _mm256_and_ps(v[3], abs_mask)));
    __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(mx), _mm256_extractf128_ps(mx, 1));
    m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
    m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
    const float amax = _mm_cvtss_f32(m4);
    const float d = amax / 127.0f, id = d != 0 ? 1.0f / d : 0.0f;
    const __m256 vid = _mm256_set1_ps(id);
    __m256i q[4];
    for (int g = 0; g < 4; ++g) q[g] = _mm256_cvtps_epi32(_mm256_mul_ps(v[g], vid));
    const int sum = hsum_i32(_mm256_add_epi32(_mm256_add_epi32(q[0], q[1]), _mm256_add_epi32(q[2], q[3])));
    const __m256i p = _mm256_packs_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(xq.q.data() + 32 * b), _mm256_permutevar8x32_epi32(p, order));
    xq.d[size_t(b)] = d;
    xq.sum_scaled[size_t(b)] = d * float(sum);
  }
}

// ---- float dot products and axpy (GEMV of f32/f16/bf16 rows, attention) ----

inline __m256 load_f32x8(const float* p) { return _mm256_loadu_ps(p); }

inline __m256 load_f16x8(const uint16_t* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

inline __m256 load_bf16x8(const uint16_t* p) {
  const __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}

inline float f32_value(float v) { return v; }

inline float bf16_value(uint16_t v) {
  const uint32_t bits = uint32_t(v) << 16;
  float w;
  std::memcpy(&w, &bits, 4);
  return w;
}

// sum a[i] * b[i] for a row stored as T (f32, f16 or bf16): 8 lanes per load (`load8`), four accumulators to
// hide the FMA latency, the tail element by element (`value`).
template <class T, class Load8, class Value>
float dot_simd(const T* a, const float* b, int64_t n, Load8 load8, Value value) {
  __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = _mm256_fmadd_ps(load8(a + i), _mm256_loadu_ps(b + i), s0);
    s1 = _mm256_fmadd_ps(load8(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
    s2 = _mm256_fmadd_ps(load8(a + i + 16), _mm256_loadu_ps(b + i + 16), s2);
    s3 = _mm256_fmadd_ps(load8(a + i + 24), _mm256_loadu_ps(b + i + 24), s3);
  }
  for (; i + 8 <= n; i += 8) s0 = _mm256_fmadd_ps(load8(a + i), _mm256_loadu_ps(b + i), s0);
  float s = hsum(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
  for (; i < n; ++i) s += value(a[i]) * b[i];
  return s;
}

float dot_f32_simd(const float* a, const float* b, int64_t n) { return dot_simd(a, b, n, load_f32x8, f32_value); }
float dot_f16_simd(const uint16_t* a, const float* b, int64_t n) { return dot_simd(a, b, n, load_f16x8, h2f); }
float dot_bf16_simd(const uint16_t* a, const float* b, int64_t n) { return dot_simd(a, b, n, load_bf16x8, bf16_value); }

// y += a x for x stored as T.
template <class T, class Load8, class Value>
void axpy_simd(float a, const T* x, float* y, int64_t n, Load8 load8, Value value) {
  const __m256 va = _mm256_set1_ps(a);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_fmadd_ps(va, load8(x + i), _mm256_loadu_ps(y + i)));
  for (; i < n; ++i) y[i] += a * value(x[i]);
}

void axpy_f32_simd(float a, const float* x, float* y, int64_t n) { axpy_simd(a, x, y, n, load_f32x8, f32_value); }
void axpy_f16_simd(float a, const uint16_t* x, float* y, int64_t n) { axpy_simd(a, x, y, n, load_f16x8, h2f); }

// ---- integer-dot GEMV rows: sum over blocks of dw * dx * (int dot) + the block's min/offset term ----

// Lane i = sum of the 8 int32 lanes of v[i], as floats: one reduction per 8 blocks instead of one
// broadcast-multiply-add per block.
inline __m256 hsum8x8(const __m256i v[8]) {
  const __m256i ab = _mm256_hadd_epi32(_mm256_hadd_epi32(v[0], v[1]), _mm256_hadd_epi32(v[2], v[3]));
  const __m256i cd = _mm256_hadd_epi32(_mm256_hadd_epi32(v[4], v[5]), _mm256_hadd_epi32(v[6], v[7]));
  // ab = [v0..v3 low-half sums | v0..v3 high-half sums], cd likewise for v4..v7
  const __m256i lo = _mm256_permute2x128_si256(ab, cd, 0x20), hi = _mm256_permute2x128_si256(ab, cd, 0x31);
  return _mm256_cvtepi32_ps(_mm256_add_epi32(lo, hi));
}

// The fp16 field at byte `offset` of 8 consecutive blocks of `stride` bytes, as floats.
inline __m256 load_fp16_field8(const void* blocks, size_t stride, size_t offset) {
  const uint8_t* p = static_cast<const uint8_t*>(blocks) + offset;
  uint16_t h[8];
  for (int i = 0; i < 8; ++i) std::memcpy(&h[i], p + i * stride, 2);
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(h)));
}

// Integer-dot row over 32-value blocks. Dot(w, b, qx) gives block b's 8-lane int32 dot; y is made from the
// scaled-dot sum and the sum of dw * dx * sum(qx) (q4_0, q5_0: offset kind 1) or m * dx * sum(qx) (q4_1, q5_1: 2).
// y = sum_b dw_b dx_b dot_b  [- kBias sum_b dw_b sx_b  (kind 1; kBias 8 or 16)]  [+ sum_b m_b sx_b  (kind 2)]
template <class Block, int kOffsetKind, class Dot, int kBias = 8>
float row_q32_simd(const Block* w, const Q8Activations& xq, int64_t nb, Dot dot) {
  const int8_t* q = xq.q.data();
  const float* dx = xq.d.data();
  const float* sx = xq.sum_scaled.data();
  __m256 acc = _mm256_setzero_ps(), off = _mm256_setzero_ps();
  int64_t b = 0;
  for (; b + 8 <= nb; b += 8) {
    prefetch_ahead(w + b, 8 * sizeof(Block));
    __m256i p[8];
    for (int i = 0; i < 8; ++i) p[i] = dot(w[b + i], q + 32 * (b + i));
    const __m256 dw = load_fp16_field8(w + b, sizeof(Block), 0);
    acc = _mm256_fmadd_ps(hsum8x8(p), _mm256_mul_ps(dw, _mm256_loadu_ps(dx + b)), acc);
    if constexpr (kOffsetKind == 1) off = _mm256_fmadd_ps(dw, _mm256_loadu_ps(sx + b), off);
    if constexpr (kOffsetKind == 2) off = _mm256_fmadd_ps(load_fp16_field8(w + b, sizeof(Block), 2), _mm256_loadu_ps(sx + b), off);
  }
  float y = hsum(acc), o = hsum(off);
  for (; b < nb; ++b) {
    const float dw = h2f(w[b].d);
    y += dw * dx[b] * float(hsum_i32(dot(w[b], q + 32 * b)));
    if constexpr (kOffsetKind == 1) o += dw * sx[b];
    if constexpr (kOffsetKind == 2) o += h2f(reinterpret_cast<const uint16_t*>(&w[b])[1]) * sx[b];
  }
  if constexpr (kOffsetKind == 1) return y - float(kBias) * o;
  return y + o;
}

float row_q4_0_simd(const BlockQ4_0* w, const Q8Activations& xq, int64_t nb) {
  return row_q32_simd<BlockQ4_0, 1>(w, xq, nb, [](const BlockQ4_0& blk, const int8_t* qx) {
    return dot_u8s8(unpack_nibbles(blk.qs), load32(qx));
  });
}

float row_q4_1_simd(const BlockQ4_1* w, const Q8Activations& xq, int64_t nb) {
  static_assert(offsetof(BlockQ4_1, m) == 2);
  return row_q32_simd<BlockQ4_1, 2>(w, xq, nb, [](const BlockQ4_1& blk, const int8_t* qx) {
    return dot_u8s8(unpack_nibbles(blk.qs), load32(qx));
  });
}

float row_q5_0_simd(const BlockQ5_0* w, const Q8Activations& xq, int64_t nb) {
  const auto dot = [](const BlockQ5_0& blk, const int8_t* qx) { return dot_u8s8(unpack_q5(blk), load32(qx)); };
  return row_q32_simd<BlockQ5_0, 1, decltype(dot), 16>(w, xq, nb, dot);
}

float row_q5_1_simd(const BlockQ5_1* w, const Q8Activations& xq, int64_t nb) {
  static_assert(offsetof(BlockQ5_1, m) == 2);
  return row_q32_simd<BlockQ5_1, 2>(w, xq, nb, [](const BlockQ5_1& blk, const int8_t* qx) {
    return dot_u8s8(unpack_q5(blk), load32(qx));
  });
}

// Signed x signed through the unsigned-signed dot: |w| * (x with w's sign).
inline __m256i dot_s8s8(__m256i w, __m256i x) { return dot_u8s8(_mm256_abs_epi8(w), _mm256_sign_epi8(x, w)); }

float row_q8_0_simd(const BlockQ8_0* w, const Q8Activations& xq, int64_t nb) {
  return row_q32_simd<BlockQ8_0, 0>(w, xq, nb, [](const BlockQ8_0& blk, const int8_t* qx) {
    return dot_s8s8(load32(blk.qs), load32(qx));
  });
}

// The 8 six-bit scales and 8 six-bit mins of a q4_k / q5_k block as 8 int32 lanes each (q4k_scale_min for all j at
// once): bytes 0-3 & 63 are sc0-3, bytes 4-7 & 63 m0-3; sc4-7 = low nibbles of bytes 8-11 | top bits of bytes 0-3,
// m4-7 = high nibbles of bytes 8-11 | top bits of bytes 4-7.
inline void q4k_scales_mins(const uint8_t s[12], __m256i& sc, __m256i& m) {
  uint32_t u[3];
  std::memcpy(u, s, 12);
  constexpr uint32_t k6 = 0x3f3f3f3f, k4 = 0x0f0f0f0f, k2 = 0x03030303;
  const uint32_t sc_lo = u[0] & k6, m_lo = u[1] & k6;
  const uint32_t sc_hi = (u[2] & k4) | (((u[0] >> 6) & k2) << 4), m_hi = ((u[2] >> 4) & k4) | (((u[1] >> 6) & k2) << 4);
  sc = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(int64_t(uint64_t(sc_lo) | uint64_t(sc_hi) << 32)));
  m = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(int64_t(uint64_t(m_lo) | uint64_t(m_hi) << 32)));
}

// q4_k / q5_k rows: per chunk c of 64 values, Unpack(block, c, lo, hi) gives sub-blocks 2c and 2c + 1 as bytes;
// each sub-block's integer dot times d * scale_j * dx_j, less dmin * min_j * dx_j * sum(qx). The 8 factors
// d * scale_j * dx_j of a block are one vector (scales decoded together), each broadcast to its sub-block's dot by a
// lane permute; the min terms accumulate as a vector; four accumulators keep the FMA chains short.
template <class Block, class Unpack>
float row_kquant_simd(const Block* w, const Q8Activations& xq, int64_t nb, Unpack unpack) {
  __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
  __m256 mins = _mm256_setzero_ps();  // lanes j: dmin * m_j * dx_j * sum(qx_j), summed over blocks
  for (int64_t b = 0; b < nb; ++b) {
    const int8_t* q = xq.q.data() + b * kQkValues;
    prefetch_ahead(w + b, sizeof(Block));
    __m256i sc, m;
    q4k_scales_mins(w[b].scales, sc, m);
    const __m256 f = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(h2f(w[b].d)), _mm256_cvtepi32_ps(sc)),
                                   _mm256_loadu_ps(xq.d.data() + b * 8));
    mins = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_set1_ps(h2f(w[b].dmin)), _mm256_cvtepi32_ps(m)),
                           _mm256_loadu_ps(xq.sum_scaled.data() + b * 8), mins);
#pragma GCC unroll 4
    for (int c = 0; c < 4; ++c) {
      __m256i lo, hi;
      unpack(w[b], c, lo, hi);
      const __m256i p0 = dot_u8s8(lo, load32(q + 64 * c)), p1 = dot_u8s8(hi, load32(q + 64 * c + 32));
      const __m256 f0 = _mm256_permutevar8x32_ps(f, _mm256_set1_epi32(2 * c));
      const __m256 f1 = _mm256_permutevar8x32_ps(f, _mm256_set1_epi32(2 * c + 1));
      acc[(2 * c) & 3] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p0), f0, acc[(2 * c) & 3]);
      acc[(2 * c + 1) & 3] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p1), f1, acc[(2 * c + 1) & 3]);
    }
  }
  return hsum(_mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3]))) - hsum(mins);
}

float row_q4_k_simd(const BlockQ4K* w, const Q8Activations& xq, int64_t nb) {
  return row_kquant_simd(w, xq, nb, [](const BlockQ4K& blk, int c, __m256i& lo, __m256i& hi) {
    unpack_q4_k_chunk(blk, c, lo, hi);
  });
}

float row_q5_k_simd(const BlockQ5K* w, const Q8Activations& xq, int64_t nb) {
  return row_kquant_simd(w, xq, nb, [](const BlockQ5K& blk, int c, __m256i& lo, __m256i& hi) {
    unpack_q5_k_chunk(blk, c, lo, hi);
  });
}

// q6_k: per 32 values (one activation block, two sub-blocks of 16 with int8 scales),
// sum(sc * (q - 32) * qx) = madd(maddubs(q, qx) - maddubs(32, qx), [sc_a x 8, sc_b x 8]); int16 stays in range
// (|(q - 32) * qx| pairs <= 2 * 32 * 127).
// q6_k rows: per 32 values, the 6-bit values (minus 32) dotted with the int8 activations in int16 pairs, the two
// 16-value sub-block scales applied by madd; the block's 8 factors d * dx_i are one vector, each broadcast by a
// lane permute; four accumulators.
// Half h (128 values) of a q6_k block as four vectors of 32 six-bit values (0..63): low nibbles from ql, the two high
// bits from qh.
inline void unpack_q6_k_half(const BlockQ6K& b, int half, __m256i q[4]) {
  const __m256i m4 = _mm256_set1_epi8(0x0F), m30 = _mm256_set1_epi8(0x30);
  const __m256i ql0 = load32(b.ql + 64 * half), ql1 = load32(b.ql + 64 * half + 32);
  const __m256i qh = load32(b.qh + 32 * half);
  q[0] = _mm256_or_si256(_mm256_and_si256(ql0, m4), _mm256_and_si256(_mm256_slli_epi16(qh, 4), m30));
  q[1] = _mm256_or_si256(_mm256_and_si256(ql1, m4), _mm256_and_si256(_mm256_slli_epi16(qh, 2), m30));
  q[2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql0, 4), m4), _mm256_and_si256(qh, m30));
  q[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql1, 4), m4), _mm256_and_si256(_mm256_srli_epi16(qh, 2), m30));
}

float row_q6_k_simd(const BlockQ6K* w, const Q8Activations& xq, int64_t nb) {
  const __m256i k32 = _mm256_set1_epi8(32);
  __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
  for (int64_t b = 0; b < nb; ++b) {
    prefetch_ahead(w + b, sizeof(BlockQ6K));
    const __m256 f = _mm256_mul_ps(_mm256_set1_ps(h2f(w[b].d)), _mm256_loadu_ps(xq.d.data() + b * 8));
#pragma GCC unroll 2
    for (int half = 0; half < 2; ++half) {
      __m256i q[4];
      unpack_q6_k_half(w[b], half, q);
      const int8_t* sc = w[b].scales + 8 * half;
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {
        const __m256i x = load32(xq.q.data() + 32 * (b * 8 + half * 4 + i));
        const __m256i p16 = _mm256_sub_epi16(_mm256_maddubs_epi16(q[i], x), _mm256_maddubs_epi16(k32, x));
        const __m256i s16 = _mm256_set_m128i(_mm_set1_epi16(sc[2 * i + 1]), _mm_set1_epi16(sc[2 * i]));
        const __m256 p = _mm256_cvtepi32_ps(_mm256_madd_epi16(p16, s16));
        acc[i] = _mm256_fmadd_ps(p, _mm256_permutevar8x32_ps(f, _mm256_set1_epi32(half * 4 + i)), acc[i]);
      }
    }
  }
  return hsum(_mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3])));
}

template <int N>
void gemm_small_rows_n(const WeightView& W, const float* X, const Q8Activations* xq, float* Y, int64_t r0,
                       int64_t r1);

// One q4_0 / q4_1 GEMV row: from the 16-block interleaved copy of x where the AVX-512 table filled it
// (KernelTable::q4_reads_qt16, one lane per block), else with the 8-lane pair kernel `row`.
template <class Block, class Row>
float row_q4_gemv(const Block* w, const Q8Activations& xq, int64_t nb, Row row) {
#ifdef ROOFTOP_ZMM_Q4_MULTI
  if (!xq.qt16.empty()) {
    float y;
    row_q4_multi_t16<1>(w, &xq, nb, &y, 1);
    return y;
  }
#endif
  return row(w, xq, nb);
}

void gemv_rows_simd(const WeightView& W, const float* x, const Q8Activations& xq, float* y, int64_t r0, int64_t r1) {
  const int64_t rb = row_bytes(W.format, W.k), nb = W.k / block_values(W.format);
  if (W.format == WeightFormat::f32 || W.format == WeightFormat::f16 || W.format == WeightFormat::bf16)
    return gemm_small_rows_n<1>(W, x, nullptr, y, r0, r1);  // 16 rows streamed per x slice: more reads in flight
  for (int64_t r = r0; r < r1; ++r) {
    const std::byte* row = W.data + r * rb;
    switch (W.format) {
      case WeightFormat::f32: y[r] = dot_f32_simd(reinterpret_cast<const float*>(row), x, W.k); break;
      case WeightFormat::f16: y[r] = dot_f16_simd(reinterpret_cast<const uint16_t*>(row), x, W.k); break;
      case WeightFormat::bf16: y[r] = dot_bf16_simd(reinterpret_cast<const uint16_t*>(row), x, W.k); break;
      case WeightFormat::q4_0: y[r] = row_q4_gemv(reinterpret_cast<const BlockQ4_0*>(row), xq, nb, row_q4_0_simd); break;
      case WeightFormat::q4_1: y[r] = row_q4_gemv(reinterpret_cast<const BlockQ4_1*>(row), xq, nb, row_q4_1_simd); break;
      case WeightFormat::q5_0: y[r] = row_q5_0_simd(reinterpret_cast<const BlockQ5_0*>(row), xq, nb); break;
      case WeightFormat::q5_1: y[r] = row_q5_1_simd(reinterpret_cast<const BlockQ5_1*>(row), xq, nb); break;
      case WeightFormat::q8_0: y[r] = row_q8_0_simd(reinterpret_cast<const BlockQ8_0*>(row), xq, nb); break;
      case WeightFormat::q4_k: y[r] = row_q4_k_simd(reinterpret_cast<const BlockQ4K*>(row), xq, nb); break;
      case WeightFormat::q5_k: y[r] = row_q5_k_simd(reinterpret_cast<const BlockQ5K*>(row), xq, nb); break;
      case WeightFormat::q6_k: y[r] = row_q6_k_simd(reinterpret_cast<const BlockQ6K*>(row), xq, nb); break;
    }
  }
}

// ---- small-n GEMM (multi-RHS GEMV): each weight block is loaded and unpacked once for all N tokens ----

// N tokens' integer dots with 32-value blocks; out[t * ldy] = token t's dot (see row_q32_simd for the terms).
template <int N, class Block, int kOffsetKind, class Unpack, class Dot, int kBias = 8>
void row_q32_multi(const Block* w, const Q8Activations* xq, int64_t nb, Unpack unpack, Dot dot, float* out,
                   int64_t ldy) {
  __m256 acc[N], off[N];
  #pragma GCC unroll 8
  for (int t = 0; t < N; ++t) acc[t] = off[t] = _mm256_setzero_ps();
  int64_t b = 0;
  for (; b + 8 <= nb; b += 8) {
    __m256i u[8];
    #pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) u[i] = unpack(w[b + i]);
    const __m256 dw = load_fp16_field8(w + b, sizeof(Block), 0);
    __m256 mw = dw;
    if constexpr (kOffsetKind == 2) mw = load_fp16_field8(w + b, sizeof(Block), 2);
    #pragma GCC unroll 8
    for (int t = 0; t < N; ++t) {
      const int8_t* q = xq[t].q.data() + 32 * b;
      __m256i p[8];
      #pragma GCC unroll 8
      for (int i = 0; i < 8; ++i) p[i] = dot(u[i], load32(q + 32 * i));
      acc[t] = _mm256_fmadd_ps(hsum8x8(p), _mm256_mul_ps(dw, _mm256_loadu_ps(xq[t].d.data() + b)), acc[t]);
      if constexpr (kOffsetKind != 0) off[t] = _mm256_fmadd_ps(mw, _mm256_loadu_ps(xq[t].sum_scaled.data() + b), off[t]);
    }
  }
  float y[N], o[N];
  #pragma GCC unroll 8
  for (int t = 0; t < N; ++t) y[t] = hsum(acc[t]), o[t] = hsum(off[t]);
  for (; b < nb; ++b) {
    const __m256i u = unpack(w[b]);
    const float dw = h2f(w[b].d);
    float mw = dw;
    if constexpr (kOffsetKind == 2) mw = h2f(reinterpret_cast<const uint16_t*>(&w[b])[1]);
    #pragma GCC unroll 8
    for (int t = 0; t < N; ++t) {
      y[t] += dw * xq[t].d[size_t(b)] * float(hsum_i32(dot(u, load32(xq[t].q.data() + 32 * b))));
      if constexpr (kOffsetKind != 0) o[t] += mw * xq[t].sum_scaled[size_t(b)];
    }
  }
  #pragma GCC unroll 8
  for (int t = 0; t < N; ++t) out[t * ldy] = kOffsetKind == 1 ? y[t] - float(kBias) * o[t] : y[t] + o[t];
}

// N tokens' dots with one q4_k / q5_k row (N >= 2): each super-block's scales are decoded and its 256 values unpacked
// once, then every token's 8 sub-block dots are reduced together (hsum8x8: lane j = sub-block j) and scaled by
// d * scale_j * dx_j in one FMA. The same terms as row_kquant_simd, summed in another order. Before this, the rows ran
// row_kquant_simd once per token: 4 tokens cost 4 GEMVs (docs/engine-speed.md, stop 42).
template <int N, class Block, class Unpack>
void row_kquant_multi(const Block* w, const Q8Activations* xq, int64_t nb, Unpack unpack, float* out, int64_t ldy) {
  __m256 acc[N], mins[N];
#pragma GCC unroll 8
  for (int t = 0; t < N; ++t) acc[t] = mins[t] = _mm256_setzero_ps();
  for (int64_t b = 0; b < nb; ++b) {
    prefetch_ahead(w + b, sizeof(Block));
    __m256i sc, m, lo[4], hi[4];
    q4k_scales_mins(w[b].scales, sc, m);
    const __m256 dsc = _mm256_mul_ps(_mm256_set1_ps(h2f(w[b].d)), _mm256_cvtepi32_ps(sc));
    const __m256 dm = _mm256_mul_ps(_mm256_set1_ps(h2f(w[b].dmin)), _mm256_cvtepi32_ps(m));
#pragma GCC unroll 4
    for (int c = 0; c < 4; ++c) unpack(w[b], c, lo[c], hi[c]);
#pragma GCC unroll 8
    for (int t = 0; t < N; ++t) {
      const int8_t* q = xq[t].q.data() + b * kQkValues;
      __m256i p[8];
#pragma GCC unroll 4
      for (int c = 0; c < 4; ++c) {
        p[2 * c] = dot_u8s8(lo[c], load32(q + 64 * c));
        p[2 * c + 1] = dot_u8s8(hi[c], load32(q + 64 * c + 32));
      }
      acc[t] = _mm256_fmadd_ps(hsum8x8(p), _mm256_mul_ps(dsc, _mm256_loadu_ps(xq[t].d.data() + b * 8)), acc[t]);
      mins[t] = _mm256_fmadd_ps(dm, _mm256_loadu_ps(xq[t].sum_scaled.data() + b * 8), mins[t]);
    }
  }
#pragma GCC unroll 8
  for (int t = 0; t < N; ++t) out[t * ldy] = hsum(acc[t]) - hsum(mins[t]);
}

// A q4_K / q5_K row times N tokens; one token takes the GEMV row, so that decode stays bit-identical to gemv.
template <int N, class Block, class Row1, class Unpack>
void row_kquant_n(const Block* w, const Q8Activations* xq, int64_t nb, Row1 row1, Unpack unpack, float* out,
                  int64_t ldy) {
  if constexpr (N == 1) out[0] = row1(w, xq[0], nb);
  else row_kquant_multi<N>(w, xq, nb, unpack, out, ldy);
}

// N tokens' dots with one q6_k row (N >= 2): the 256 six-bit values and the 16 sub-block scales of each super-block
// unpacked once for all tokens; per token, the 8 activation blocks' dots (as in row_q6_k_simd) reduced together by
// hsum8x8 and scaled by d * dx in one FMA.
template <int N>
void row_q6_k_multi(const BlockQ6K* w, const Q8Activations* xq, int64_t nb, float* out, int64_t ldy) {
  const __m256i k32 = _mm256_set1_epi8(32);
  __m256 acc[N];
#pragma GCC unroll 8
  for (int t = 0; t < N; ++t) acc[t] = _mm256_setzero_ps();
  for (int64_t b = 0; b < nb; ++b) {
    prefetch_ahead(w + b, sizeof(BlockQ6K));
    __m256i q[8], s16[8];
#pragma GCC unroll 2
    for (int half = 0; half < 2; ++half) {
      unpack_q6_k_half(w[b], half, q + 4 * half);
      const int8_t* sc = w[b].scales + 8 * half;
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i)
        s16[4 * half + i] = _mm256_set_m128i(_mm_set1_epi16(sc[2 * i + 1]), _mm_set1_epi16(sc[2 * i]));
    }
    const __m256 d = _mm256_set1_ps(h2f(w[b].d));
#pragma GCC unroll 8
    for (int t = 0; t < N; ++t) {
      __m256i p[8];
#pragma GCC unroll 8
      for (int j = 0; j < 8; ++j) {
        const __m256i x = load32(xq[t].q.data() + 32 * (b * 8 + j));
        p[j] = _mm256_madd_epi16(_mm256_sub_epi16(_mm256_maddubs_epi16(q[j], x), _mm256_maddubs_epi16(k32, x)), s16[j]);
      }
      acc[t] = _mm256_fmadd_ps(hsum8x8(p), _mm256_mul_ps(d, _mm256_loadu_ps(xq[t].d.data() + b * 8)), acc[t]);
    }
  }
#pragma GCC unroll 8
  for (int t = 0; t < N; ++t) out[t * ldy] = hsum(acc[t]);
}

// N tokens' fp32 dots with values [i0, i1) of one row read by Load (8 lanes) / At (one value), 8 * kAcc per step;
// X (N, ldx). out[t * ldy] = the dot (add: += it). kAcc independent accumulators per token: with one or two
// tokens, four chains keep the FMA latency hidden (two left the f16 GEMV at ~80% of the DRAM bandwidth).
// stream (optional): the row's values in memory, `elem` bytes each, prefetched ahead (prefetch_ahead).
template <int N, class Load, class At>
void row_float_multi(const float* X, int64_t ldx, int64_t i0, int64_t i1, Load load, At at, float* out, int64_t ldy,
                     bool add, const char* stream = nullptr, int64_t elem = 0) {
  constexpr int kAcc = N <= 2 ? 4 : 2;
  __m256 a[kAcc][N];
#pragma GCC unroll 8
  for (int t = 0; t < N; ++t)
    for (int c = 0; c < kAcc; ++c) a[c][t] = _mm256_setzero_ps();
  int64_t i = i0;
  for (; i + 8 * kAcc <= i1; i += 8 * kAcc) {
    if (stream) prefetch_ahead(stream + i * elem, size_t(8 * kAcc * elem));
#pragma GCC unroll 4
    for (int c = 0; c < kAcc; ++c) {
      const __m256 w = load(i + 8 * c);
#pragma GCC unroll 8
      for (int t = 0; t < N; ++t) a[c][t] = _mm256_fmadd_ps(w, _mm256_loadu_ps(X + t * ldx + i + 8 * c), a[c][t]);
    }
  }
  for (; i + 8 <= i1; i += 8) {
    const __m256 w0 = load(i);
#pragma GCC unroll 8
    for (int t = 0; t < N; ++t) a[0][t] = _mm256_fmadd_ps(w0, _mm256_loadu_ps(X + t * ldx + i), a[0][t]);
  }
#pragma GCC unroll 8
  for (int t = 0; t < N; ++t) {
    __m256 sum = a[0][t];
    for (int c = 1; c < kAcc; ++c) sum = _mm256_add_ps(sum, a[c][t]);
    float s = hsum(sum);
    for (int64_t j = i; j < i1; ++j) s += at(j) * X[t * ldx + j];
    out[t * ldy] = add ? out[t * ldy] + s : s;
  }
}

// Float rows [r0, r1) for N tokens, tiled so the N activation slices (N x kc fp32 <= 16 KiB) stay in L1 while a
// block of rows streams past: each weight byte is still read once.
template <int N, class RowLoad, class RowAt>
void rows_float_multi_tiled(const float* X, int64_t k, int64_t m, int64_t r0, int64_t r1, RowLoad row_load,
                            RowAt row_at, float* Y, const std::byte* W, int64_t row_bytes, int64_t elem) {
  // One token: whole rows, read front to back (x is k fp32, from L1 or L2). Slicing a row that is longer
  // than a slice made each 16-row block jump between pages and stopped the prefetchers: f16 at k = 4864
  // streamed 18 GB/s against 33 GB/s at k = 4096 (2 threads, DRAM).
  const int64_t kc = N == 1 ? k : std::max<int64_t>(256, (4096 / N) / 16 * 16);
  constexpr int64_t kRowBlock = 16;
  for (int64_t rb = r0; rb < r1; rb += kRowBlock) {
    const int64_t re = std::min(r1, rb + kRowBlock);
    for (int64_t c0 = 0; c0 < k; c0 += kc) {
      const int64_t c1 = std::min(k, c0 + kc);
      for (int64_t r = rb; r < re; ++r)
        row_float_multi<N>(X, k, c0, c1, [&](int64_t i) { return row_load(r, i); },
                           [&](int64_t i) { return row_at(r, i); }, Y + r, m, c0 > 0,
                           reinterpret_cast<const char*>(W + r * row_bytes), elem);
    }
  }
}

template <int N>
void gemm_small_rows_n(const WeightView& W, const float* X, const Q8Activations* xq, float* Y, int64_t r0,
                       int64_t r1) {
  const int64_t k = W.k, m = W.m, rb = row_bytes(W.format, k), nb = k / block_values(W.format);
  thread_local std::vector<float> rowbuf;
  [[maybe_unused]] const auto unpack4 = [](const auto& blk) { return unpack_nibbles(blk.qs); };
  [[maybe_unused]] const auto dot4 = [](__m256i u, __m256i x) { return dot_u8s8(u, x); };
  const auto bf16_at = [](const uint16_t* h, int64_t i) {
    const uint32_t bits = uint32_t(h[i]) << 16;
    float v;
    std::memcpy(&v, &bits, 4);
    return v;
  };
  const auto f32_row = [&](int64_t r) { return reinterpret_cast<const float*>(W.data + r * rb); };
  const auto u16_row = [&](int64_t r) { return reinterpret_cast<const uint16_t*>(W.data + r * rb); };
  switch (W.format) {
    case WeightFormat::f32:
      return rows_float_multi_tiled<N>(
          X, k, m, r0, r1, [&](int64_t r, int64_t i) { return _mm256_loadu_ps(f32_row(r) + i); },
          [&](int64_t r, int64_t i) { return f32_row(r)[i]; }, Y, W.data, rb, 4);
    case WeightFormat::f16:
      return rows_float_multi_tiled<N>(
          X, k, m, r0, r1, [&](int64_t r, int64_t i) { return load_f16x8(u16_row(r) + i); },
          [&](int64_t r, int64_t i) { return h2f(u16_row(r)[i]); }, Y, W.data, rb, 2);
    case WeightFormat::bf16:
      return rows_float_multi_tiled<N>(
          X, k, m, r0, r1, [&](int64_t r, int64_t i) { return load_bf16x8(u16_row(r) + i); },
          [&](int64_t r, int64_t i) { return bf16_at(u16_row(r), i); }, Y, W.data, rb, 2);
    default: break;
  }
  for (int64_t r = r0; r < r1; ++r) {
    const std::byte* row = W.data + r * rb;
    float* out = Y + r;
    if (xq != nullptr && gemv_uses_q8_activations(W.format)) {
      switch (W.format) {
#ifdef ROOFTOP_ZMM_Q4_MULTI
        case WeightFormat::q4_0:
          row_q4_multi_t16<N>(reinterpret_cast<const BlockQ4_0*>(row), xq, nb, out, m);
          continue;
        case WeightFormat::q4_1:
          row_q4_multi_t16<N>(reinterpret_cast<const BlockQ4_1*>(row), xq, nb, out, m);
          continue;
#else
        case WeightFormat::q4_0:
          row_q32_multi<N, BlockQ4_0, 1>(reinterpret_cast<const BlockQ4_0*>(row), xq, nb, unpack4, dot4, out, m);
          continue;
        case WeightFormat::q4_1:
          row_q32_multi<N, BlockQ4_1, 2>(reinterpret_cast<const BlockQ4_1*>(row), xq, nb, unpack4, dot4, out, m);
          continue;
#endif
        case WeightFormat::q5_0: {
          const auto unpack5 = [](const BlockQ5_0& blk) { return unpack_q5(blk); };
          row_q32_multi<N, BlockQ5_0, 1, decltype(unpack5), decltype(dot4), 16>(reinterpret_cast<const BlockQ5_0*>(row),
                                                                                xq, nb, unpack5, dot4, out, m);
          continue;
        }
        case WeightFormat::q5_1:
          row_q32_multi<N, BlockQ5_1, 2>(reinterpret_cast<const BlockQ5_1*>(row), xq, nb,
                                         [](const BlockQ5_1& blk) { return unpack_q5(blk); }, dot4, out, m);
          continue;
        case WeightFormat::q5_k:
          row_kquant_n<N>(reinterpret_cast<const BlockQ5K*>(row), xq, nb, row_q5_k_simd, unpack_q5_k_chunk, out, m);
          continue;
        case WeightFormat::q8_0:
          row_q32_multi<N, BlockQ8_0, 0>(
              reinterpret_cast<const BlockQ8_0*>(row), xq, nb, [](const BlockQ8_0& blk) { return load32(blk.qs); },
              [](__m256i w, __m256i x) { return dot_s8s8(w, x); }, out, m);
          continue;
        case WeightFormat::q4_k:
          row_kquant_n<N>(reinterpret_cast<const BlockQ4K*>(row), xq, nb, row_q4_k_simd, unpack_q4_k_chunk, out, m);
          continue;
        case WeightFormat::q6_k:
          if constexpr (N == 1) out[0] = row_q6_k_simd(reinterpret_cast<const BlockQ6K*>(row), xq[0], nb);
          else row_q6_k_multi<N>(reinterpret_cast<const BlockQ6K*>(row), xq, nb, out, m);
          continue;
        default: break;
      }
    }
    // fp32 activations on a quantized row: dequantize into L1 once, then share it
    if (int64_t(rowbuf.size()) < k) rowbuf.resize(size_t(k));
    float* rf = rowbuf.data();
    dequantize_simd(W.format, row, rf, k);
    row_float_multi<N>(X, k, 0, k, [rf](int64_t i) { return _mm256_loadu_ps(rf + i); },
                       [rf](int64_t i) { return rf[i]; }, out, m, false);
  }
}

void gemm_small_rows_simd(const WeightView& W, const float* X, int64_t n, const Q8Activations* xq, float* Y,
                          int64_t r0, int64_t r1) {
  with_count<8>(int(n), [&]<int N>() { gemm_small_rows_n<N>(W, X, xq, Y, r0, r1); });
}

// ---- GEMM: Y (n, m) = X (n, k) W^T, cache-blocked ----
// Per block of kGemmMB weight rows and kGemmKC columns: dequantize once into a thread-local packed buffer of
// kGemmNR-wide panels (panel p, column i, lane j at p*kc*NR + i*NR + j), then run the register tile
// (kGemmMR tokens x kGemmNR outputs) panel by panel over chunks of kGemmNC tokens. The packed block (kGemmMB x 256
// fp32: 64-96 KiB) stays in L2, the panel in use in L1; X is read in place (its rows k floats apart).
// Measured on the AVX2 VM (TinyLlama f16 pp128, alternating binaries, 5 rounds): panels outer instead of token
// groups outer and no per-group copy of X, 58.6 -> 62.1 tok/s median; the tile's k loop unrolled 4x, 69.4 -> 70.4.
constexpr int64_t kGemmKC = 256;  // multiple of every block size (32, 256)
constexpr int64_t kGemmNC = 128;  // tokens per X chunk: 128 x 256 fp32 = 128 KiB, in L2

struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};

// 8 rows of n floats (rows[r * n + i]) into 8 adjacent lanes of a panel: dst[i * stride + r]. Vectors of 8 columns
// go through an 8 x 8 transpose in registers (24 shuffles for 64 values) instead of 64 scalar strided stores.
inline void transpose_rows8(const float* rows, int64_t n, float* dst, int64_t stride) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v[8], t[8];
    for (int r = 0; r < 8; ++r) v[r] = _mm256_loadu_ps(rows + r * n + i);
    for (int r = 0; r < 8; r += 2) {
      t[r] = _mm256_unpacklo_ps(v[r], v[r + 1]);      // r0 r1 r0 r1 | (columns 0 1, 4 5)
      t[r + 1] = _mm256_unpackhi_ps(v[r], v[r + 1]);  // columns 2 3, 6 7
    }
    for (int h = 0; h < 8; h += 4) {  // rows 0-3, then 4-7: each column's 4 values in one 128-bit lane
      v[h] = _mm256_shuffle_ps(t[h], t[h + 2], 0x44);      // column 0 (low lane), 4 (high lane)
      v[h + 1] = _mm256_shuffle_ps(t[h], t[h + 2], 0xEE);  // 1, 5
      v[h + 2] = _mm256_shuffle_ps(t[h + 1], t[h + 3], 0x44);  // 2, 6
      v[h + 3] = _mm256_shuffle_ps(t[h + 1], t[h + 3], 0xEE);  // 3, 7
    }
    for (int c = 0; c < 4; ++c) {
      _mm256_storeu_ps(dst + (i + c) * stride, _mm256_permute2f128_ps(v[c], v[c + 4], 0x20));
      _mm256_storeu_ps(dst + (i + c + 4) * stride, _mm256_permute2f128_ps(v[c], v[c + 4], 0x31));
    }
  }
  for (; i < n; ++i)
    for (int r = 0; r < 8; ++r) dst[i * stride + r] = rows[r * n + i];
}

void gemm_cols_simd(const WeightView& W, const float* X, int64_t n, float* Y, int64_t j0, int64_t j1) {
  static_assert(kGemmNR % 8 == 0);
  thread_local std::unique_ptr<float, FreeDeleter> packed_buf(
      static_cast<float*>(std::aligned_alloc(64, sizeof(float) * (kGemmMB + 8) * kGemmKC)));
  float* packed = packed_buf.get();
  float* rows8 = packed + kGemmMB * kGemmKC;  // 8 rows of one slice, dequantized
  const int64_t k = W.k, m = W.m, rb = row_bytes(W.format, k), bv = block_values(W.format), bb = block_bytes(W.format);
  for (int64_t jb = j0; jb < j1; jb += kGemmMB) {
    const int64_t jn = std::min(kGemmMB, j1 - jb), panels = (jn + kGemmNR - 1) / kGemmNR;
    for (int64_t kc0 = 0; kc0 < k; kc0 += kGemmKC) {
      const int64_t kc = std::min(kGemmKC, k - kc0), next_bytes = row_bytes(W.format, std::min(kGemmKC, k - kc0 - kc));
      for (int64_t r0 = 0; r0 < panels * kGemmNR; r0 += 8) {  // 8 rows at a time into lanes r0 % NR ..
        for (int64_t r = r0; r < r0 + 8; ++r) {
          float* dst = rows8 + (r - r0) * kc;
          if (r >= jn) {
            std::fill(dst, dst + kc, 0.0f);
            continue;
          }
          const std::byte* row = W.data + (jb + r) * rb;
          dequantize_simd(W.format, row + (kc0 / bv) * bb, dst, kc);
          // The row's next slice into L2 while this one is multiplied: rows lie a whole row apart, which the
          // hardware prefetchers do not follow (the slice's dequantization was 17% of an f16 prefill).
          if (next_bytes > 0) {
            const char* ahead = reinterpret_cast<const char*>(row + ((kc0 + kc) / bv) * bb);
            for (int64_t b = 0; b < next_bytes; b += 64) _mm_prefetch(ahead + b, _MM_HINT_T1);
          }
        }
        transpose_rows8(rows8, kc, packed + (r0 / kGemmNR) * kc * kGemmNR + (r0 % kGemmNR), kGemmNR);
      }
      for (int64_t c0 = 0; c0 < n; c0 += kGemmNC) {
        const int64_t cn = std::min(kGemmNC, n - c0);
        // Panels outer: one panel (kc x NR fp32, 24 KiB) stays in L1 while the chunk's token groups stream past it;
        // the tile's weight loads (3 vectors per 12 FMAs) then hit L1, its broadcasts (4 floats) come from L2.
        for (int64_t p = 0; p < panels; ++p) {
          const int nr = int(std::min<int64_t>(kGemmNR, jn - p * kGemmNR));
          for (int64_t i0 = 0; i0 < cn; i0 += kGemmMR) {
            const int mr = int(std::min<int64_t>(kGemmMR, cn - i0));
            gemm_micro(mr, X + (c0 + i0) * k + kc0, k, packed + p * kc * kGemmNR, kc, Y + (c0 + i0) * m + jb + p * kGemmNR,
                       m, nr, kc0 > 0);
          }
        }
      }
    }
  }
}

// ---- int8 GEMM panel packing, shared by the AVX2 and AVX-512 GEMMs ----

// Walks row values [kc0, kc0 + kc) (multiples of the format's block) of a quantized weight row as unsigned 8-bit
// values per 32-value block: put(block, q) stores the block's 32 values, scales(block, h, s1, s2) sub-block h's
// scale s1 and offset term s2 (value = s1 q - s2). q8_0's signed bytes are passed as they are (offset 0) or,
// with `q8_0_biased`, shifted to unsigned by 128 (offset 128 d), as a u8 x s8 dot needs.
template <class Put, class Scales>
void walk_q8_blocks(WeightFormat f, const std::byte* row, int64_t kc0, int64_t kc, bool q8_0_biased, Put put,
                    Scales scales) {
  auto whole = [&](int64_t b, __m256i q, float s1, float s2) {  // a block with one sub-block
    put(b, q);
    scales(b, 0, s1, s2);
  };
  const int64_t nb = kc / 32;
  const __m256i mask = _mm256_set1_epi8(0x0F);
  switch (f) {
    case WeightFormat::q4_0: {
      const auto* b = reinterpret_cast<const BlockQ4_0*>(row) + kc0 / 32;
      for (int64_t i = 0; i < nb; ++i) whole(i, unpack_nibbles(b[i].qs), h2f(b[i].d), 8 * h2f(b[i].d));
      return;
    }
    case WeightFormat::q4_1: {
      const auto* b = reinterpret_cast<const BlockQ4_1*>(row) + kc0 / 32;
      for (int64_t i = 0; i < nb; ++i) whole(i, unpack_nibbles(b[i].qs), h2f(b[i].d), -h2f(b[i].m));
      return;
    }
    case WeightFormat::q5_0: {
      const auto* b = reinterpret_cast<const BlockQ5_0*>(row) + kc0 / 32;
      for (int64_t i = 0; i < nb; ++i) whole(i, unpack_q5(b[i]), h2f(b[i].d), 16 * h2f(b[i].d));
      return;
    }
    case WeightFormat::q5_1: {
      const auto* b = reinterpret_cast<const BlockQ5_1*>(row) + kc0 / 32;
      for (int64_t i = 0; i < nb; ++i) whole(i, unpack_q5(b[i]), h2f(b[i].d), -h2f(b[i].m));
      return;
    }
    case WeightFormat::q8_0: {
      const auto* b = reinterpret_cast<const BlockQ8_0*>(row) + kc0 / 32;
      const __m256i bias = _mm256_set1_epi8(char(q8_0_biased ? 0x80 : 0));
      const float offset = q8_0_biased ? 128.0f : 0.0f;
      for (int64_t i = 0; i < nb; ++i) whole(i, _mm256_xor_si256(load32(b[i].qs), bias), h2f(b[i].d), offset * h2f(b[i].d));
      return;
    }
    case WeightFormat::q4_k:
    case WeightFormat::q5_k: {
      for (int64_t s = 0; s < kc / 256; ++s) {
        const auto* b4 = reinterpret_cast<const BlockQ4K*>(row) + kc0 / 256 + s;
        const auto* b5 = reinterpret_cast<const BlockQ5K*>(row) + kc0 / 256 + s;
        const bool five = f == WeightFormat::q5_k;
        const uint8_t* sc = five ? b5->scales : b4->scales;
        const float d = h2f(five ? b5->d : b4->d), dmin = h2f(five ? b5->dmin : b4->dmin);
        for (int c = 0; c < 4; ++c) {
          __m256i lo, hi;
          if (five) unpack_q5_k_chunk(*b5, c, lo, hi);
          else unpack_q4_k_chunk(*b4, c, lo, hi);
          uint8_t sc0, m0, sc1, m1;
          q4k_scale_min(sc, 2 * c, sc0, m0);
          q4k_scale_min(sc, 2 * c + 1, sc1, m1);
          whole(8 * s + 2 * c, lo, d * float(sc0), dmin * float(m0));
          whole(8 * s + 2 * c + 1, hi, d * float(sc1), dmin * float(m1));
        }
      }
      return;
    }
    case WeightFormat::q6_k: {
      // Half n (128 values) of a block: 32-value group j takes the low (j < 2) or high nibbles of ql[32 (j & 1) ..],
      // and bits 2j, 2j + 1 of qh; its two 16-value halves have scales sc[8 n + 2 j] and sc[8 n + 2 j + 1]
      // (dequantize_ref.cpp's order).
      const __m256i three = _mm256_set1_epi8(3);
      for (int64_t s = 0; s < kc / 256; ++s) {
        const auto* b = reinterpret_cast<const BlockQ6K*>(row) + kc0 / 256 + s;
        const float d = h2f(b->d);
        for (int n = 0; n < 2; ++n) {
          const __m256i qh = load32(b->qh + 32 * n);
          for (int j = 0; j < 4; ++j) {
            const __m256i ql = load32(b->ql + 64 * n + 32 * (j & 1));
            const __m256i lo = _mm256_and_si256(_mm256_srli_epi16(ql, 4 * (j >> 1)), mask);
            const __m256i hi = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2 * j), three), 4);
            const int64_t blk = 8 * s + 4 * n + j;
            put(blk, _mm256_or_si256(lo, hi));
            for (int h = 0; h < 2; ++h) {
              const float ds = d * float(b->scales[8 * n + 2 * j + h]);
              scales(blk, h, ds, 32 * ds);
            }
          }
        }
      }
      return;
    }
    default:
      throw InternalError(std::string("walk_q8_blocks: format ") + format_name(f) + " has no int8 GEMM");
  }
}

// The formats the int8 GEMM takes (their values fit u8 or s8 with per-block scales).
bool gemm_q8_format(WeightFormat f) {
  switch (f) {
    case WeightFormat::q4_0: case WeightFormat::q4_1: case WeightFormat::q5_0: case WeightFormat::q5_1:
    case WeightFormat::q8_0: case WeightFormat::q4_k: case WeightFormat::q5_k: case WeightFormat::q6_k:
      return true;
    default:
      return false;
  }
}

// Sub-blocks per 32-value block: 2 where the format's scales cover 16 values (q6_k), else 1.
int q8_subblocks(WeightFormat f) { return int8_gemm_sums16(f) ? 2 : 1; }

// Bytes per 32-value block of an NR-row int8 panel with `sub` sub-blocks: 8 quads x (NR rows x 4 bytes), row r's
// values 4j..4j+3 at byte 4 NR j + 4 r; then per sub-block h the NR scales s1 (floats NR (2h) + r) and the NR
// offset terms s2 (floats NR (2h + 1) + r).
template <int64_t NR>
constexpr int64_t q8_panel_bytes(int sub) { return 32 * NR + sub * 2 * NR * 4; }

// The int8 GEMM driver of the AVX2 (NR = 8) and AVX-512 (NR = 32) tables, KernelTable::gemm_cols_q8: rows [j0, j1)
// of Y (n, m) [+]= X W^T for tokens quantized in xq (sum16: per-16-value sums where sub = 2). Per block of MB weight
// rows and k-slice of KC values, each row's slice is packed into lane r % NR of its panel by
// pack_row(format, row, kc0, kc, panel, lane) (padding rows get zero values and scales), then
// micro(mr, xq, xd, xs, panel, blocks, y, ldy, nr, accumulate) runs the register tile of up to MR tokens x NR rows
// panel by panel.
template <int64_t NR, int64_t MB, int64_t KC, int MR, class PackRow, class Micro>
void gemm_q8_panels(const WeightView& W, const Q8Activations* xq, const float* sum16, int64_t n, float* Y, int64_t j0,
                    int64_t j1, PackRow pack_row, Micro micro) {
  static_assert(MB % NR == 0 && KC % 32 == 0);
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  const int64_t k = W.k, m = W.m, rb = row_bytes(W.format, k);
  const int sub = q8_subblocks(W.format);
  const int64_t pbytes = q8_panel_bytes<NR>(sub);
  thread_local std::unique_ptr<uint8_t, Free> packed_buf(
      static_cast<uint8_t*>(std::aligned_alloc(64, size_t(MB / NR * (KC / 32) * q8_panel_bytes<NR>(2)))));
  uint8_t* packed = packed_buf.get();
  for (int64_t jb = j0; jb < j1; jb += MB) {
    const int64_t jn = std::min(MB, j1 - jb), panels = (jn + NR - 1) / NR;
    for (int64_t kc0 = 0; kc0 < k; kc0 += KC) {
      const int64_t kc = std::min(KC, k - kc0), blocks = kc / 32;
      const int64_t bv = block_values(W.format), slice_bytes = kc / bv * block_bytes(W.format);
      for (int64_t r = 0; r < panels * NR; ++r) {
        uint8_t* panel = packed + (r / NR) * blocks * pbytes;
        const int lane = int(r % NR);
        if (r + kPackPrefetchRows < jn)  // the piece kPackPrefetchRows rows ahead
          prefetch_lines(W.data + (jb + r + kPackPrefetchRows) * rb + kc0 / bv * block_bytes(W.format), slice_bytes);
        if (r < jn) pack_row(W.format, W.data + (jb + r) * rb, kc0, kc, panel, lane);
        else
          for (int64_t b = 0; b < blocks; ++b) {  // padding rows: zero values and scales
            uint8_t* blk = panel + b * pbytes;
            for (int j = 0; j < 8; ++j) std::memset(blk + 4 * NR * j + 4 * lane, 0, 4);
            for (int h = 0; h < 2 * sub; ++h) reinterpret_cast<float*>(blk + 32 * NR)[NR * h + lane] = 0;
          }
      }
      for (int64_t i0 = 0; i0 < n; i0 += MR) {
        const int mr = int(std::min<int64_t>(MR, n - i0));
        const int8_t* xqp[MR];
        const float *xdp[MR], *xsp[MR];
        for (int r = 0; r < mr; ++r) {
          const Q8Activations& a = xq[i0 + r];
          xqp[r] = a.q.data() + kc0;
          xdp[r] = a.d.data() + kc0 / 32;
          xsp[r] = sub == 2 ? sum16 + (i0 + r) * k / 16 + kc0 / 16 : a.sum_scaled.data() + kc0 / 32;
        }
        for (int64_t p = 0; p < panels; ++p) {
          const int nr = int(std::min<int64_t>(NR, jn - p * NR));
          micro(mr, xqp, xdp, xsp, packed + p * blocks * pbytes, blocks, Y + i0 * m + jb + p * NR, m, nr, kc0 > 0);
        }
      }
    }
  }
}

// gemm_cols of the tables with an int8 GEMM: the formats gemm_q8_format names quantize X here and go to Core
// (KernelTable::gemm_cols_q8; gemm() quantizes once and calls that directly), the others to Other (fp32 or bf16
// operands).
template <void (*Core)(const WeightView&, const Q8Activations*, const float*, int64_t, float*, int64_t, int64_t),
          void (*Other)(const WeightView&, const float*, int64_t, float*, int64_t, int64_t)>
void gemm_cols_int8(const WeightView& W, const float* X, int64_t n, float* Y, int64_t j0, int64_t j1) {
  if (!gemm_q8_format(W.format)) return Other(W, X, n, Y, j0, j1);
  thread_local std::vector<Q8Activations> xq;
  thread_local std::vector<float> sum16;
  if (int64_t(xq.size()) < n) xq.resize(size_t(n));
  if (int8_gemm_sums16(W.format)) sum16.resize(size_t(n * W.k / 16));
  quantize_tokens_for_int8_gemm(quantize_q8_simd, W.format, X, 0, n, W.k, xq.data(), sum16.data());
  Core(W, xq.data(), sum16.data(), n, Y, j0, j1);
}

KernelTable make_x86_table(const char* name) {
  KernelTable t;
  t.name = name;
  t.dequantize = dequantize_simd;
  t.quantize_q8 = quantize_q8_simd;
  t.gemv_rows = gemv_rows_simd;
  t.gemm_cols = gemm_cols_simd;
  t.gemm_cols_per_task = kGemmMB;
  t.gemm_small_rows = gemm_small_rows_simd;
  t.dot_f32 = dot_f32_simd;
  t.dot_f16 = dot_f16_simd;
  t.axpy_f32 = axpy_f32_simd;
  t.axpy_f16 = axpy_f16_simd;
  return t;
}

}  // namespace
}  // namespace rooftop::kernels
