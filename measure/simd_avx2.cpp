// AVX2+FMA loops (compiled with -mavx2 -mfma): STREAM, read-only sum, fp32 FMA peak.
#include <immintrin.h>

#include "measure/simd_loops.h"
#include "measure/simd_loops_inl.h"

namespace rooftop::measure {
namespace {
void copy_avx2(const float* a, float* c, int64_t n) { inl::copy(a, c, n); }
void scale_avx2(const float* c, float* b, float s, int64_t n) { inl::scale(c, b, s, n); }
void add_avx2(const float* a, const float* b, float* c, int64_t n) { inl::add(a, b, c, n); }
void triad_avx2(const float* b, const float* c, float* a, float s, int64_t n) { inl::triad(b, c, a, s, n); }

// 8 accumulators x 8 lanes: 64 floats (256 bytes) per iteration.
float read_avx2(const float* a, int64_t n) {
  __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
  for (int64_t i = 0; i + 64 <= n; i += 64) {
    s0 = _mm256_add_ps(s0, _mm256_load_ps(a + i));
    s1 = _mm256_add_ps(s1, _mm256_load_ps(a + i + 8));
    s2 = _mm256_add_ps(s2, _mm256_load_ps(a + i + 16));
    s3 = _mm256_add_ps(s3, _mm256_load_ps(a + i + 24));
    s4 = _mm256_add_ps(s4, _mm256_load_ps(a + i + 32));
    s5 = _mm256_add_ps(s5, _mm256_load_ps(a + i + 40));
    s6 = _mm256_add_ps(s6, _mm256_load_ps(a + i + 48));
    s7 = _mm256_add_ps(s7, _mm256_load_ps(a + i + 56));
  }
  __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)),
                           _mm256_add_ps(_mm256_add_ps(s4, s5), _mm256_add_ps(s6, s7)));
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, s);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3] + lanes[4] + lanes[5] + lanes[6] + lanes[7];
}
}  // namespace

MemLoops mem_loops_avx2() { return {"avx2", copy_avx2, scale_avx2, add_avx2, triad_avx2, read_avx2}; }

// 12 independent chains acc = acc * b + c: enough to cover FMA latency x FMA ports on current cores.
float fma_fp32_avx2(int64_t iters) {
  const __m256 b = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
  __m256 a[12];
  for (int j = 0; j < 12; ++j) a[j] = _mm256_set1_ps(1.0f + 0.01f * static_cast<float>(j));
  for (int64_t i = 0; i < iters; ++i) {
    for (int j = 0; j < 12; ++j) a[j] = _mm256_fmadd_ps(a[j], b, c);
  }
  __m256 s = a[0];
  for (int j = 1; j < 12; ++j) s = _mm256_add_ps(s, a[j]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, s);
  return lanes[0] + lanes[7];
}

}  // namespace rooftop::measure
