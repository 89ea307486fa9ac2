// AVX-512 attention block kernels: the 16-lane traits for attention_simd_inl.h.
#include <immintrin.h>

#include "kernels/cpu/attention_simd_inl.h"

namespace rooftop::kernels::attn {
namespace {

// All-ones maskz forms of max, min, cvtph, unpack, shuffle, roundscale, scalef and no _mm512_reduce_add_ps:
// the plain intrinsics start from _mm512_undefined_ps, which trips GCC 12's -Wuninitialized.
struct V512 {
  using R = __m512;
  static constexpr int64_t W = 16;
  static R zero() { return _mm512_setzero_ps(); }
  static R set1(float x) { return _mm512_set1_ps(x); }
  static R load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, R x) { _mm512_storeu_ps(p, x); }
  static R load_f16(const uint16_t* p) {
    return _mm512_maskz_cvtph_ps(0xFFFF, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static __mmask16 first(int64_t n) { return __mmask16((1u << n) - 1u); }
  static R load_n(const float* p, int64_t n) { return _mm512_maskz_loadu_ps(first(n), p); }
  static R load_f16_n(const uint16_t* p, int64_t n) {
    return _mm512_maskz_cvtph_ps(0xFFFF, _mm256_maskz_loadu_epi16(first(n), p));
  }
  static R add(R a, R b) { return _mm512_add_ps(a, b); }
  static R sub(R a, R b) { return _mm512_sub_ps(a, b); }
  static R mul(R a, R b) { return _mm512_mul_ps(a, b); }
  static R div(R a, R b) { return _mm512_div_ps(a, b); }
  static R max(R a, R b) { return _mm512_maskz_max_ps(0xFFFF, a, b); }
  static R fma(R a, R b, R c) { return _mm512_fmadd_ps(a, b, c); }
  static float hsum(R x) {
    __m256 h = _mm256_add_ps(_mm512_maskz_extractf32x8_ps(0xFF, x, 0), _mm512_maskz_extractf32x8_ps(0xFF, x, 1));
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
  }
  static R less_select(R a, R b, R x, R y) { return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, b, _CMP_LT_OQ), y, x); }
  // Cephes expf: n = round(x log2 e), r = x - n ln 2 (two-part ln 2), degree-7 polynomial, times 2^n.
  static R exp(R x) {
    const __mmask16 keep = _mm512_cmp_ps_mask(x, set1(-87.33654f), _CMP_NLT_UQ);  // NaN kept, tiny -> 0
    x = max(_mm512_maskz_min_ps(0xFFFF, x, set1(88.0f)), set1(-87.33654f));
    const R n = _mm512_maskz_roundscale_ps(0xFFFF, _mm512_mul_ps(x, set1(1.44269504088896341f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    R r = _mm512_fnmadd_ps(n, set1(0.693359375f), x);
    r = _mm512_fnmadd_ps(n, set1(-2.12194440e-4f), r);
    R p = set1(1.9875691500e-4f);
    p = fma(p, r, set1(1.3981999507e-3f));
    p = fma(p, r, set1(8.3334519073e-3f));
    p = fma(p, r, set1(4.1665795894e-2f));
    p = fma(p, r, set1(1.6666665459e-1f));
    p = fma(p, r, set1(5.0000001201e-1f));
    p = fma(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, set1(1.0f)));
    return _mm512_maskz_mov_ps(keep, _mm512_maskz_scalef_ps(0xFFFF, p, n));
  }
  // 16 vectors v_i (at p + 16 i) -> (sum v_0, ..., sum v_15): pairwise unpack/add, then 128-bit lane shuffles.
  static R reduce(const float* p) {
    R s2[8];
    #pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) {
      const R a = load(p + 32 * i), b = load(p + 32 * i + 16);
      // per 128-bit lane: a b a b
      s2[i] = _mm512_add_ps(_mm512_maskz_unpacklo_ps(0xFFFF, a, b), _mm512_maskz_unpackhi_ps(0xFFFF, a, b));
    }
    R s4[4];
    #pragma GCC unroll 8
    for (int i = 0; i < 4; ++i) {
      const __m512d a = _mm512_castps_pd(s2[2 * i]), b = _mm512_castps_pd(s2[2 * i + 1]);
      s4[i] = _mm512_add_ps(_mm512_castpd_ps(_mm512_maskz_unpacklo_pd(0xFF, a, b)),
                            _mm512_castpd_ps(_mm512_maskz_unpackhi_pd(0xFF, a, b)));
    }  // s4[i] 128-bit lane L: keys 4i..4i+3 summed over lane L's 4 values
    R s8[2];
    #pragma GCC unroll 8
    for (int i = 0; i < 2; ++i)
      s8[i] = _mm512_add_ps(_mm512_maskz_shuffle_f32x4(0xFFFF, s4[2 * i], s4[2 * i + 1], 0x88),
                            _mm512_maskz_shuffle_f32x4(0xFFFF, s4[2 * i], s4[2 * i + 1], 0xDD));
    return _mm512_add_ps(_mm512_maskz_shuffle_f32x4(0xFFFF, s8[0], s8[1], 0x88),
                         _mm512_maskz_shuffle_f32x4(0xFFFF, s8[0], s8[1], 0xDD));
  }
};

}  // namespace

AttentionKernels attention_kernels_avx512() { return {16, &Attn<V512>::decode_span, &Attn<V512>::prefill_tile, &Attn<V512>::gated}; }

}  // namespace rooftop::kernels::attn
