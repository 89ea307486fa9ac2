// Activations quantized to int8 blocks of 32 for integer-dot GEMV, and the scalar integer GEMV reference.
//
// x (k) ~= d[b] * q[i] for i in block b = i / 32; d[b] = max|x in b| / 127, q = round-half-even(x / d).
// sum_scaled[b] = d[b] * sum(q in b) carries the q4_1/q4_k min term and the q4_0 offset term.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/cpu/kernels.h"

namespace rooftop::kernels {

constexpr int kQ8ActValues = 32;

struct Q8Activations {
  std::vector<int8_t> q;           // (k)
  std::vector<float> d;            // (k / 32)
  std::vector<float> sum_scaled;   // (k / 32)
  // Optional copy of q for 512-bit multi-token kernels, filled by interleave_q8_blocks16 (empty = not filled):
  // per group g of 16 blocks, 8 rows of 64 bytes; row (2s + h), bytes 4j..4j+3 = q[block 16g + j][16h + 4s .. + 3];
  // the last group is zero-padded when k / 32 is not a multiple of 16 (missing blocks read as 0).
  std::vector<int8_t> qt16;        // (ceil(k / 512) * 512)
  void resize(int64_t k) {
    q.resize(size_t(k));
    d.resize(size_t(k / kQ8ActValues));
    sum_scaled.resize(size_t(k / kQ8ActValues));
    qt16.clear();  // every (re)quantization invalidates the interleaved copy
  }
};

// True for formats whose GEMV multiplies int8 activations (q4_0, q4_1, q5_0, q5_1, q8_0, q4_k, q5_k, q6_k).
bool gemv_uses_q8_activations(WeightFormat f);

// Scalar quantizer: x (k), k % 32 == 0. The SIMD quantizers produce identical q, d and sum_scaled.
void quantize_activations_q8_ref(std::span<const float> x, Q8Activations& out);

// out (k / 16) = xq.d of the block x the sum of each 16 quants of xq: the offsets of formats with 16-value
// sub-blocks (q6_k) in the int8 GEMM.
void sums_of_16(const Q8Activations& xq, int64_t k, float* out);
// The formats whose int8 GEMM needs those sums (16-value sub-blocks).
inline bool int8_gemm_sums16(WeightFormat f) { return f == WeightFormat::q6_k; }

// Tokens [i0, i1) of X (rows of k) quantized for the int8 GEMM of format f with `quantize` (a table's quantize_q8):
// xq[i] and, where f needs them, sum16 (n, k / 16). xq and sum16 are sized by the caller.
inline void quantize_tokens_for_int8_gemm(void (*quantize)(const float*, int64_t, Q8Activations&), WeightFormat f,
                                          const float* X, int64_t i0, int64_t i1, int64_t k, Q8Activations* xq,
                                          float* sum16) {
  for (int64_t i = i0; i < i1; ++i) {
    xq[i].resize(k);
    quantize(X + i * k, k, xq[i]);
    if (int8_gemm_sums16(f)) sums_of_16(xq[i], k, sum16 + i * k / 16);
  }
}

// Fills xq.qt16 from xq.q: ceil(k / 512) groups of 16 blocks, the last one zero-padded.
void interleave_q8_blocks16(Q8Activations& xq);

// Scalar reference of the integer GEMV for rows [r0, r1): per block, an exact integer dot of the weight
// quants with xq's quants, times the float scales; y (m). Only for formats where gemv_uses_q8_activations.
void gemv_q8_rows_ref(const WeightView& W, const Q8Activations& xq, float* y, int64_t r0, int64_t r1);

}  // namespace rooftop::kernels
