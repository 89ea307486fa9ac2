// AVX2 + FMA + F16C kernel table (compiled with -mavx2 -mfma -mf16c): maddubs int8 dots, 6x16 GEMM tile.
#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "base/errors.h"
#include "kernels/cpu/count_dispatch.h"
#include "kernels/cpu/q8_activations.h"

#define ROOFTOP_VNNI 0

namespace rooftop::kernels {
namespace {

constexpr int kGemmNV = 3;                // vectors per tile row
constexpr int64_t kGemmNR = 8 * kGemmNV;  // outputs per panel: 3 ymm
constexpr int kGemmMR = 4;                // tokens per tile: 4 x 3 = 12 accumulators, 3 weight loads and 4 broadcasts
                                          // per 12 FMAs (a 6 x 16 tile needs 6 broadcasts: ~10% slower here)
constexpr int64_t kGemmMB = 96;           // weight rows per packed block: a multiple of kGemmNR and of 8

// Y (mr, nr) [+]= X (mr, kc; row stride ldx) P^T, P packed (kc, kGemmNR).
template <int MR>
void micro_avx2(const float* X, int64_t ldx, const float* P, int64_t kc, float* Y, int64_t ldy, int nr, bool acc) {
  __m256 c[MR][kGemmNV];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < kGemmNV; ++v) c[r][v] = _mm256_setzero_ps();
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; ++p) {
    __m256 w[kGemmNV];
#pragma GCC unroll 4
    for (int v = 0; v < kGemmNV; ++v) w[v] = _mm256_load_ps(P + p * kGemmNR + 8 * v);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const __m256 xb = _mm256_broadcast_ss(X + r * ldx + p);
#pragma GCC unroll 4
      for (int v = 0; v < kGemmNV; ++v) c[r][v] = _mm256_fmadd_ps(xb, w[v], c[r][v]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    float* y = Y + r * ldy;
    if (nr == kGemmNR) {
#pragma GCC unroll 4
      for (int v = 0; v < kGemmNV; ++v) {
        if (acc) c[r][v] = _mm256_add_ps(c[r][v], _mm256_loadu_ps(y + 8 * v));
        _mm256_storeu_ps(y + 8 * v, c[r][v]);
      }
    } else {
      alignas(32) float t[kGemmNR];
      for (int v = 0; v < kGemmNV; ++v) _mm256_store_ps(t + 8 * v, c[r][v]);
      for (int j = 0; j < nr; ++j) y[j] = acc ? y[j] + t[j] : t[j];
    }
  }
}

void gemm_micro(int mr, const float* X, int64_t ldx, const float* P, int64_t kc, float* Y, int64_t ldy, int nr,
                bool acc) {
  with_count<kGemmMR>(mr, [&]<int MR>() { micro_avx2<MR>(X, ldx, P, kc, Y, ldy, nr, acc); });
}

}  // namespace
}  // namespace rooftop::kernels

#include "kernels/cpu/x86_kernels_inl.h"


// ---- GEMM on int8 operands for the integer-quantized formats (AVX2): Y (n, m) = X (n, k) W^T with maddubs ----
// The AVX-512 table's int8 GEMM (kernels_avx512.cpp) on 256-bit vectors without VNNI. X is quantized per call to the
// GEMV's int8 blocks of 32 (x ~= d_a q_a); the weights are unpacked to bytes without float work, w = s1 q - s2 per
// (row, sub-block), and per sub-block
//   sum w x ~= s1 d_a dot(q, q_a) - s2 d_a sum(q_a)      (d_a sum(q_a): Q8Activations::sum_scaled, or sum16).
// vpmaddubsw multiplies 32 u8 x s8 pairs into 16 int16 sums of two, which saturate at 32767; the sums of G quads
// are added in int16 before one vpmaddwd widens them, with G the largest count that cannot overflow:
// 2 x 127 x wmax x G <= 32767 (wmax 15: G = 8; 31: 4; 63: 2). q8_0 is kept signed (-128..127) and multiplied as
// |w| x sign(x, w) (G = 1: 2 x 128 x 127 = 32512), since an unsigned offset of 128 would saturate.
// Panel of 8 rows: per 32-value block, 8 quads x (8 rows x 4 bytes) = 256 bytes (row r's values 4j..4j+3 at byte
// 32 j + 4 r: one ymm load holds quad j of all 8 rows, and the token's quad is broadcast), then per sub-block
// 8 floats s1 and 8 floats s2.
namespace rooftop::kernels {
namespace {

constexpr int kQ8NR = 8;          // weight rows per panel
constexpr int kQ8MR = 4;          // tokens per register tile: 4 fp32 + 4 int accumulators
constexpr int64_t kQ8KC = 512;    // k-slice: 16 blocks; a block of 12 panels, 5-6 KiB each, stays in L2

constexpr int64_t q8_panel_block(int sub) { return q8_panel_bytes<kQ8NR>(sub); }

// Row values [kc0, kc0 + kc) (multiples of the format's block) into panel lane `lane`: each block's 32 values as
// 8 quads, one per 32-byte row of the block, then its sub-block scales (walk_q8_blocks reads the formats).
void pack_q8_row_avx2(WeightFormat f, const std::byte* row, int64_t kc0, int64_t kc, uint8_t* panel, int lane) {
  const int64_t pb = q8_panel_block(q8_subblocks(f));
  auto put = [&](int64_t b, __m256i q) {
    alignas(32) uint32_t quads[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(quads), q);
    for (int j = 0; j < 8; ++j) std::memcpy(panel + b * pb + 32 * j + 4 * lane, &quads[j], 4);
  };
  auto scales = [&](int64_t b, int h, float s1, float s2) {
    float* sc = reinterpret_cast<float*>(panel + b * pb + 32 * kQ8NR + h * 64);
    sc[lane] = s1;
    sc[kQ8NR + lane] = s2;
  };
  walk_q8_blocks(f, row, kc0, kc, /*q8_0_biased=*/false, put, scales);  // q8_0: signed values, no offset term
}

// Y (mr, nr <= 8) [+]= the tile over `blocks` 32-value blocks of panel P (SUB sub-blocks each, G quads summed in
// int16 before widening, SIGNED: q8_0's signed bytes); token r's int8 values at xq[r], block scales at xd[r],
// d_a sum(q_a) per sub-block at xs[r].
template <int MR, int SUB, int G, bool SIGNED>
void micro_q8_avx2(const int8_t* const* xq, const float* const* xd, const float* const* xs, const uint8_t* P,
                   int64_t blocks, float* Y, int64_t ldy, int nr, bool acc) {
  constexpr int64_t pbytes = q8_panel_block(SUB);
  constexpr int Q = 8 / SUB;  // quads per sub-block
  static_assert(Q % G == 0);
  const __m256i ones = _mm256_set1_epi16(1);
  __m256 c[MR];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) c[r] = _mm256_setzero_ps();
  for (int64_t b = 0; b < blocks; ++b) {
    const uint8_t* pb = P + b * pbytes;
#pragma GCC unroll 2
    for (int h = 0; h < SUB; ++h) {
      __m256i s32[MR];
#pragma GCC unroll 8
      for (int r = 0; r < MR; ++r) s32[r] = _mm256_setzero_si256();
#pragma GCC unroll 8
      for (int g = 0; g < Q; g += G) {
        __m256i s16[MR];
#pragma GCC unroll 8
        for (int r = 0; r < MR; ++r) s16[r] = _mm256_setzero_si256();
#pragma GCC unroll 8
        for (int j = h * Q + g; j < h * Q + g + G; ++j) {
          const __m256i w = _mm256_load_si256(reinterpret_cast<const __m256i*>(pb + 32 * j));
          const __m256i wu = SIGNED ? _mm256_abs_epi8(w) : w;
#pragma GCC unroll 8
          for (int r = 0; r < MR; ++r) {
            int32_t quad;
            std::memcpy(&quad, xq[r] + 32 * b + 4 * j, 4);
            __m256i xb = _mm256_set1_epi32(quad);
            if constexpr (SIGNED) xb = _mm256_sign_epi8(xb, w);
            s16[r] = _mm256_add_epi16(s16[r], _mm256_maddubs_epi16(wu, xb));
          }
        }
#pragma GCC unroll 8
        for (int r = 0; r < MR; ++r) s32[r] = _mm256_add_epi32(s32[r], _mm256_madd_epi16(s16[r], ones));
      }
      const float* s = reinterpret_cast<const float*>(pb + 32 * kQ8NR + 64 * h);
      const __m256 s1 = _mm256_load_ps(s), s2 = _mm256_load_ps(s + kQ8NR);
#pragma GCC unroll 8
      for (int r = 0; r < MR; ++r) {
        c[r] = _mm256_fmadd_ps(s1, _mm256_mul_ps(_mm256_cvtepi32_ps(s32[r]), _mm256_set1_ps(xd[r][b])), c[r]);
        if constexpr (!SIGNED) c[r] = _mm256_fnmadd_ps(s2, _mm256_set1_ps(xs[r][SUB * b + h]), c[r]);
      }
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    float* y = Y + r * ldy;
    if (nr == kQ8NR) {
      if (acc) c[r] = _mm256_add_ps(c[r], _mm256_loadu_ps(y));
      _mm256_storeu_ps(y, c[r]);
    } else {
      alignas(32) float t[kQ8NR];
      _mm256_store_ps(t, c[r]);
      for (int j = 0; j < nr; ++j) y[j] = acc ? y[j] + t[j] : t[j];
    }
  }
}

// gemm_q8_panels with 8-row panels and the register tiles of SUB, G and SIGNED.
template <int SUB, int G, bool SIGNED>
void gemm_q8_avx2(const WeightView& W, const Q8Activations* xq, const float* sum16, int64_t n, float* Y, int64_t j0,
                  int64_t j1) {
  gemm_q8_panels<kQ8NR, kGemmMB, kQ8KC, kQ8MR>(W, xq, sum16, n, Y, j0, j1, pack_q8_row_avx2, [](int mr, auto... args) {
    with_count<kQ8MR>(mr, [&]<int MR>() { micro_q8_avx2<MR, SUB, G, SIGNED>(args...); });
  });
}

// KernelTable::gemm_cols_q8: the tile's int16 group G from the format's largest weight byte.
void gemm_cols_q8_core(const WeightView& W, const Q8Activations* xq, const float* sum16, int64_t n, float* Y,
                       int64_t j0, int64_t j1) {
  switch (W.format) {
    case WeightFormat::q4_0: case WeightFormat::q4_1: case WeightFormat::q4_k:  // 0..15
      return gemm_q8_avx2<1, 8, false>(W, xq, sum16, n, Y, j0, j1);
    case WeightFormat::q5_0: case WeightFormat::q5_1: case WeightFormat::q5_k:  // 0..31
      return gemm_q8_avx2<1, 4, false>(W, xq, sum16, n, Y, j0, j1);
    case WeightFormat::q6_k:  // 0..63, sub-blocks of 16 values (4 quads)
      return gemm_q8_avx2<2, 2, false>(W, xq, sum16, n, Y, j0, j1);
    case WeightFormat::q8_0:  // -128..127, signed
      return gemm_q8_avx2<1, 1, true>(W, xq, sum16, n, Y, j0, j1);
    default:
      throw InternalError(std::string("gemm_cols_q8 (avx2): format ") + format_name(W.format) + " has no int8 GEMM");
  }
}

}  // namespace
}  // namespace rooftop::kernels

namespace rooftop::kernels {
KernelTable make_avx2_kernels() {
  KernelTable t = make_x86_table("avx2");
  t.gemm_cols = gemm_cols_int8<gemm_cols_q8_core, gemm_cols_simd>;
  t.gemm_uses_q8 = gemm_q8_format;
  t.gemm_cols_q8 = gemm_cols_q8_core;
  return t;
}
}  // namespace rooftop::kernels
