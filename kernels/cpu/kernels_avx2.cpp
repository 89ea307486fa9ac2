// AVX2 + FMA + F16C kernel table (compiled with -mavx2 -mfma -mf16c): maddubs int8 dots, 6x16 GEMM tile.
#include <immintrin.h>

#include <cstdint>

#define ROOFTOP_VNNI 0

namespace rooftop::kernels {
namespace {

constexpr int64_t kGemmNR = 16;  // outputs per panel: 2 ymm
constexpr int kGemmMR = 6;       // tokens per tile: 6 x 2 = 12 accumulators

// Y (mr, nr) [+]= X (mr, kc; row stride ldx) P^T, P packed (kc, 16).
template <int MR>
void micro_avx2(const float* X, int64_t ldx, const float* P, int64_t kc, float* Y, int64_t ldy, int nr, bool acc) {
  __m256 c0[MR], c1[MR];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) c0[r] = c1[r] = _mm256_setzero_ps();
  for (int64_t p = 0; p < kc; ++p) {
    const __m256 w0 = _mm256_load_ps(P + p * 16), w1 = _mm256_load_ps(P + p * 16 + 8);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const __m256 xb = _mm256_broadcast_ss(X + r * ldx + p);
      c0[r] = _mm256_fmadd_ps(xb, w0, c0[r]);
      c1[r] = _mm256_fmadd_ps(xb, w1, c1[r]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    float* y = Y + r * ldy;
    if (nr == 16) {
      if (acc) {
        c0[r] = _mm256_add_ps(c0[r], _mm256_loadu_ps(y));
        c1[r] = _mm256_add_ps(c1[r], _mm256_loadu_ps(y + 8));
      }
      _mm256_storeu_ps(y, c0[r]);
      _mm256_storeu_ps(y + 8, c1[r]);
    } else {
      alignas(32) float t[16];
      _mm256_store_ps(t, c0[r]);
      _mm256_store_ps(t + 8, c1[r]);
      for (int j = 0; j < nr; ++j) y[j] = acc ? y[j] + t[j] : t[j];
    }
  }
}

void gemm_micro(int mr, const float* X, int64_t ldx, const float* P, int64_t kc, float* Y, int64_t ldy, int nr,
                bool acc) {
  switch (mr) {
    case 6: return micro_avx2<6>(X, ldx, P, kc, Y, ldy, nr, acc);
    case 5: return micro_avx2<5>(X, ldx, P, kc, Y, ldy, nr, acc);
    case 4: return micro_avx2<4>(X, ldx, P, kc, Y, ldy, nr, acc);
    case 3: return micro_avx2<3>(X, ldx, P, kc, Y, ldy, nr, acc);
    case 2: return micro_avx2<2>(X, ldx, P, kc, Y, ldy, nr, acc);
    default: return micro_avx2<1>(X, ldx, P, kc, Y, ldy, nr, acc);
  }
}

}  // namespace
}  // namespace rooftop::kernels

#include "kernels/cpu/x86_kernels_inl.h"

namespace rooftop::kernels {
KernelTable make_avx2_kernels() { return make_x86_table("avx2"); }
}  // namespace rooftop::kernels
