// AVX-512 loops (compiled with -mavx512f/bw/vl/bf16/vnni, and AMX tiles): STREAM, read-only sum, fp32/bf16/int8 peaks.
#include <immintrin.h>

#include "kernels/cpu/dispatch.h"

#include "measure/simd_loops.h"
#include "measure/simd_loops_inl.h"

namespace rooftop::measure {
namespace {
// Horizontal sums through memory (GCC 12's _mm512_reduce_add_* trip -Wuninitialized).
float hsum(__m512 v) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  float s = 0;
  for (float x : lanes) s += x;
  return s;
}
int32_t hsum(__m512i v) {
  alignas(64) int32_t lanes[16];
  _mm512_store_si512(lanes, v);
  int32_t s = 0;
  for (int32_t x : lanes) s += x;
  return s;
}

void copy_avx512(const float* a, float* c, int64_t n) { inl::copy(a, c, n); }
void scale_avx512(const float* c, float* b, float s, int64_t n) { inl::scale(c, b, s, n); }
void add_avx512(const float* a, const float* b, float* c, int64_t n) { inl::add(a, b, c, n); }
void triad_avx512(const float* b, const float* c, float* a, float s, int64_t n) { inl::triad(b, c, a, s, n); }

// 8 accumulators x 16 lanes: 128 floats (512 bytes) per iteration.
float read_avx512(const float* a, int64_t n) {
  __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
  for (int64_t i = 0; i + 128 <= n; i += 128) {
    s0 = _mm512_add_ps(s0, _mm512_load_ps(a + i));
    s1 = _mm512_add_ps(s1, _mm512_load_ps(a + i + 16));
    s2 = _mm512_add_ps(s2, _mm512_load_ps(a + i + 32));
    s3 = _mm512_add_ps(s3, _mm512_load_ps(a + i + 48));
    s4 = _mm512_add_ps(s4, _mm512_load_ps(a + i + 64));
    s5 = _mm512_add_ps(s5, _mm512_load_ps(a + i + 80));
    s6 = _mm512_add_ps(s6, _mm512_load_ps(a + i + 96));
    s7 = _mm512_add_ps(s7, _mm512_load_ps(a + i + 112));
  }
  __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)),
                           _mm512_add_ps(_mm512_add_ps(s4, s5), _mm512_add_ps(s6, s7)));
  return hsum(s);
}
}  // namespace

MemLoops mem_loops_avx512() {
  return {"avx512", copy_avx512, scale_avx512, add_avx512, triad_avx512, read_avx512};
}

float fma_fp32_avx512(int64_t iters) {
  const __m512 b = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
  __m512 a[12];
  for (int j = 0; j < 12; ++j) a[j] = _mm512_set1_ps(1.0f + 0.01f * static_cast<float>(j));
  for (int64_t i = 0; i < iters; ++i) {
    for (int j = 0; j < 12; ++j) a[j] = _mm512_fmadd_ps(a[j], b, c);
  }
  __m512 s = a[0];
  for (int j = 1; j < 12; ++j) s = _mm512_add_ps(s, a[j]);
  return hsum(s);
}

// vdpbf16ps: each fp32 lane += a[2i]*b[2i] + a[2i+1]*b[2i+1] (bf16 pairs): 64 FLOPs per instruction.
float dot_bf16_avx512(int64_t iters) {
  const __m512bh x = _mm512_cvtne2ps_pbh(_mm512_set1_ps(0.5f), _mm512_set1_ps(0.25f));
  const __m512bh y = _mm512_cvtne2ps_pbh(_mm512_set1_ps(1e-3f), _mm512_set1_ps(2e-3f));
  __m512 a[12];
  for (int j = 0; j < 12; ++j) a[j] = _mm512_set1_ps(static_cast<float>(j));
  for (int64_t i = 0; i < iters; ++i) {
    for (int j = 0; j < 12; ++j) a[j] = _mm512_dpbf16_ps(a[j], x, y);
  }
  __m512 s = a[0];
  for (int j = 1; j < 12; ++j) s = _mm512_add_ps(s, a[j]);
  return hsum(s);
}

// vpdpbusd: each int32 lane += four u8*s8 products: 64 multiply-adds = 128 int8 ops per instruction.
float dot_int8_avx512(int64_t iters) {
  const __m512i x = _mm512_set1_epi8(3), y = _mm512_set1_epi8(-2);
  __m512i a[12];
  for (int j = 0; j < 12; ++j) a[j] = _mm512_set1_epi32(j);
  for (int64_t i = 0; i < iters; ++i) {
    for (int j = 0; j < 12; ++j) a[j] = _mm512_dpbusd_epi32(a[j], x, y);
  }
  __m512i s = a[0];
  for (int j = 1; j < 12; ++j) s = _mm512_add_epi32(s, a[j]);
  return static_cast<float>(hsum(s));
}

// TDPBF16PS on tiles 0-3 from A tiles 4-5 and B tiles 6-7 (the kernels' tile layout): 4 x 16 x 16 x 32 pairs = 65,536
// FLOPs per iteration. 0 where the OS has not granted the tile state (isa_supported(Isa::amx) asks for it; the
// variant's usable() check keeps measure_peaks from timing that empty call).
float dot_bf16_amx(int64_t iters) {
  if (!kernels::isa_supported(kernels::Isa::amx)) return 0.0f;
  kernels::amx_configure_thread();
  alignas(64) uint16_t ab[16 * 32];  // each thread its own operands
  alignas(64) float c[256];
  for (int i = 0; i < 16 * 32; ++i) ab[i] = 0x3b80;  // bf16 2^-8: sums stay small and finite
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  _tile_loadd(4, ab, 64);
  _tile_loadd(5, ab, 64);
  _tile_loadd(6, ab, 64);
  _tile_loadd(7, ab, 64);
  for (int64_t i = 0; i < iters; ++i) {
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  float s = 0;
  for (int t = 0; t < 4; ++t) {
    if (t == 0) _tile_stored(0, c, 64);
    if (t == 1) _tile_stored(1, c, 64);
    if (t == 2) _tile_stored(2, c, 64);
    if (t == 3) _tile_stored(3, c, 64);
    s += c[0];
  }
  return s;
}

}  // namespace rooftop::measure
