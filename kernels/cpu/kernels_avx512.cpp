// AVX-512 (F/BW/VL/VNNI) kernel table: vpdpbusd int8 dots, 6x32 zmm GEMM tile; the rest shared with AVX2.
#include <immintrin.h>

#include <cstdint>

#define ROOFTOP_VNNI 1

namespace rooftop::kernels {
namespace {

constexpr int64_t kGemmNR = 32;  // outputs per panel: 2 zmm
constexpr int kGemmMR = 6;       // tokens per tile: 6 x 2 = 12 accumulators

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

void gemm_micro(int mr, const float* X, int64_t ldx, const float* P, int64_t kc, float* Y, int64_t ldy, int nr,
                bool acc) {
  switch (mr) {
    case 6: return micro_avx512<6>(X, ldx, P, kc, Y, ldy, nr, acc);
    case 5: return micro_avx512<5>(X, ldx, P, kc, Y, ldy, nr, acc);
    case 4: return micro_avx512<4>(X, ldx, P, kc, Y, ldy, nr, acc);
    case 3: return micro_avx512<3>(X, ldx, P, kc, Y, ldy, nr, acc);
    case 2: return micro_avx512<2>(X, ldx, P, kc, Y, ldy, nr, acc);
    default: return micro_avx512<1>(X, ldx, P, kc, Y, ldy, nr, acc);
  }
}

}  // namespace
}  // namespace rooftop::kernels

#include "kernels/cpu/x86_kernels_inl.h"

namespace rooftop::kernels {
KernelTable make_avx512_kernels() { return make_x86_table("avx512"); }
}  // namespace rooftop::kernels
