// AVX2 + FMA + F16C attention block kernels: the 8-lane traits for attention_simd_inl.h.
#include <immintrin.h>

#include <cstring>

#include "kernels/cpu/attention_simd_inl.h"

namespace rooftop::kernels::attn {
namespace {

struct V256 {
  using R = __m256;
  static constexpr int64_t W = 8;
  static R zero() { return _mm256_setzero_ps(); }
  static R set1(float x) { return _mm256_set1_ps(x); }
  static R load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, R x) { _mm256_storeu_ps(p, x); }
  static R load_f16(const uint16_t* p) { return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
  static R load_n(const float* p, int64_t n) {
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_maskload_ps(p, _mm256_cmpgt_epi32(_mm256_set1_epi32(int(n)), idx));
  }
  static R load_f16_n(const uint16_t* p, int64_t n) {
    uint16_t tmp[8] = {};
    std::memcpy(tmp, p, size_t(n) * 2);
    return load_f16(tmp);
  }
  static R add(R a, R b) { return _mm256_add_ps(a, b); }
  static R sub(R a, R b) { return _mm256_sub_ps(a, b); }
  static R mul(R a, R b) { return _mm256_mul_ps(a, b); }
  static R div(R a, R b) { return _mm256_div_ps(a, b); }
  static R max(R a, R b) { return _mm256_max_ps(a, b); }
  static R fma(R a, R b, R c) { return _mm256_fmadd_ps(a, b, c); }
  static float hsum(R x) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
  }
  static R less_select(R a, R b, R x, R y) { return _mm256_blendv_ps(y, x, _mm256_cmp_ps(a, b, _CMP_LT_OQ)); }
  // Cephes expf as in attention_avx512.cpp; 2^n built in the exponent field (n in [-126, 127] after clamping).
  static R exp(R x) {
    const R keep = _mm256_cmp_ps(x, set1(-87.33654f), _CMP_NLT_UQ);
    x = _mm256_max_ps(_mm256_min_ps(x, set1(88.0f)), set1(-87.33654f));
    const R n = _mm256_round_ps(_mm256_mul_ps(x, set1(1.44269504088896341f)),
                                _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    R r = _mm256_fnmadd_ps(n, set1(0.693359375f), x);
    r = _mm256_fnmadd_ps(n, set1(-2.12194440e-4f), r);
    R p = set1(1.9875691500e-4f);
    p = fma(p, r, set1(1.3981999507e-3f));
    p = fma(p, r, set1(8.3334519073e-3f));
    p = fma(p, r, set1(4.1665795894e-2f));
    p = fma(p, r, set1(1.6666665459e-1f));
    p = fma(p, r, set1(5.0000001201e-1f));
    p = fma(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, set1(1.0f)));
    const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_and_ps(keep, _mm256_mul_ps(p, _mm256_castsi256_ps(e)));
  }
  // 8 vectors v_i (at p + 8 i) -> (sum v_0, ..., sum v_7).
  static R reduce(const float* p) {
    R s2[4];
    #pragma GCC unroll 8
    for (int i = 0; i < 4; ++i) {
      const R a = load(p + 16 * i), b = load(p + 16 * i + 8);
      s2[i] = _mm256_add_ps(_mm256_unpacklo_ps(a, b), _mm256_unpackhi_ps(a, b));
    }
    R s4[2];
    #pragma GCC unroll 8
    for (int i = 0; i < 2; ++i) {
      const __m256d a = _mm256_castps_pd(s2[2 * i]), b = _mm256_castps_pd(s2[2 * i + 1]);
      s4[i] = _mm256_add_ps(_mm256_castpd_ps(_mm256_unpacklo_pd(a, b)), _mm256_castpd_ps(_mm256_unpackhi_pd(a, b)));
    }
    return _mm256_add_ps(_mm256_permute2f128_ps(s4[0], s4[1], 0x20), _mm256_permute2f128_ps(s4[0], s4[1], 0x31));
  }
};

}  // namespace

AttentionKernels attention_kernels_avx2() { return {8, &Attn<V256>::decode_span, &Attn<V256>::prefill_tile, &Attn<V256>::gated}; }

}  // namespace rooftop::kernels::attn
