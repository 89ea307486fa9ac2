// Portable attention block kernels (no SIMD ISA): one-lane traits for attention_simd_inl.h.
#include <cmath>

#include "kernels/cpu/attention_simd_inl.h"
#include "kernels/cpu/half.h"

namespace rooftop::kernels::attn {
namespace {

struct V1 {
  using R = float;
  static constexpr int64_t W = 1;
  static R zero() { return 0.0f; }
  static R set1(float x) { return x; }
  static R load(const float* p) { return *p; }
  static void store(float* p, R x) { *p = x; }
  static R load_f16(const uint16_t* p) { return fp16_to_fp32(*p); }
  static R load_n(const float*, int64_t) { return 0.0f; }         // never called: d % 1 == 0
  static R load_f16_n(const uint16_t*, int64_t) { return 0.0f; }  // never called
  static R add(R a, R b) { return a + b; }
  static R sub(R a, R b) { return a - b; }
  static R mul(R a, R b) { return a * b; }
  static R div(R a, R b) { return a / b; }
  static R max(R a, R b) { return a > b ? a : b; }
  static R fma(R a, R b, R c) { return a * b + c; }
  static float hsum(R x) { return x; }
  static R less_select(R a, R b, R x, R y) { return a < b ? x : y; }
  static R exp(R x) { return std::exp(x); }
  static R reduce(const float* p) { return *p; }
};

}  // namespace

AttentionKernels attention_kernels_scalar() { return {1, &Attn<V1>::decode_span, &Attn<V1>::prefill_tile, &Attn<V1>::gated}; }

}  // namespace rooftop::kernels::attn
