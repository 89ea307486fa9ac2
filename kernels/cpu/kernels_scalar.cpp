// Portable scalar kernel table: the fallback for CPUs without AVX2 and the integer-GEMV reference path.
#include <vector>

#include "kernels/cpu/dispatch.h"
#include "kernels/cpu/half.h"

namespace rooftop::kernels {
namespace {

void quantize_q8_scalar(const float* x, int64_t k, Q8Activations& xq) {
  quantize_activations_q8_ref(std::span<const float>(x, size_t(k)), xq);
}

float dot_f32_scalar(const float* a, const float* b, int64_t n) {
  float s = 0;
  for (int64_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

float dot_f16_scalar(const uint16_t* a, const float* b, int64_t n) {
  float s = 0;
  for (int64_t i = 0; i < n; ++i) s += fp16_to_fp32(a[i]) * b[i];
  return s;
}

void axpy_f32_scalar(float a, const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += a * x[i];
}

void axpy_f16_scalar(float a, const uint16_t* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += a * fp16_to_fp32(x[i]);
}

// Rows r0..r1 of W times n tokens (X (n, k), Y (n, m)): each weight row is dequantized once and dotted with
// every token. The float path of the GEMV (n = 1), the GEMM and the small-n GEMM.
void dequantized_rows_times_tokens(const WeightView& W, const float* X, int64_t n, float* Y, int64_t r0, int64_t r1) {
  thread_local std::vector<float> row;
  row.resize(size_t(W.k));
  const int64_t rb = row_bytes(W.format, W.k);
  for (int64_t r = r0; r < r1; ++r) {
    dequantize_blocks_ref(W.format, W.data + r * rb, row.data(), W.k);
    for (int64_t i = 0; i < n; ++i) Y[i * W.m + r] = dot_f32_scalar(X + i * W.k, row.data(), W.k);
  }
}

void gemv_rows_scalar(const WeightView& W, const float* x, const Q8Activations& xq, float* y, int64_t r0, int64_t r1) {
  if (gemv_uses_q8_activations(W.format)) return gemv_q8_rows_ref(W, xq, y, r0, r1);
  dequantized_rows_times_tokens(W, x, 1, y, r0, r1);
}

// Small-n rows: integer-dotted per token from L1 where the format has an integer GEMV, else as the GEMM.
void gemm_small_rows_scalar(const WeightView& W, const float* X, int64_t n, const Q8Activations* xq, float* Y,
                            int64_t r0, int64_t r1) {
  if (xq != nullptr && gemv_uses_q8_activations(W.format)) {
    for (int64_t i = 0; i < n; ++i) gemv_q8_rows_ref(W, xq[i], Y + i * W.m, r0, r1);
    return;
  }
  dequantized_rows_times_tokens(W, X, n, Y, r0, r1);
}

}  // namespace

KernelTable make_scalar_kernels() {
  KernelTable t;
  t.name = "scalar";
  t.dequantize = dequantize_blocks_ref;
  t.quantize_q8 = quantize_q8_scalar;
  t.gemv_rows = gemv_rows_scalar;
  t.gemm_cols = dequantized_rows_times_tokens;
  t.gemm_cols_per_task = 16;
  t.gemm_small_rows = gemm_small_rows_scalar;
  t.dot_f32 = dot_f32_scalar;
  t.dot_f16 = dot_f16_scalar;
  t.axpy_f32 = axpy_f32_scalar;
  t.axpy_f16 = axpy_f16_scalar;
  return t;
}

}  // namespace rooftop::kernels
