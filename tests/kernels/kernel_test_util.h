// Test helpers for the CPU kernels: fixed-seed random data, quantized weight matrices, the ISAs to test.
#pragma once
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "base/suggest.h"
#include "kernels/cpu/dispatch.h"
#include "kernels/cpu/kernels.h"

namespace rooftop::kernels::test {

inline const std::vector<WeightFormat>& all_formats() {
  static const std::vector<WeightFormat> f = {WeightFormat::f32,  WeightFormat::f16,  WeightFormat::bf16,
                                              WeightFormat::q4_0, WeightFormat::q4_1, WeightFormat::q5_0,
                                              WeightFormat::q5_1, WeightFormat::q8_0, WeightFormat::q4_k,
                                              WeightFormat::q5_k, WeightFormat::q6_k};
  return f;
}

inline std::vector<Isa> supported_isas() {
  std::vector<Isa> v;
  for (Isa i : {Isa::scalar, Isa::avx2, Isa::avx512, Isa::avx512_bf16, Isa::amx})
    if (isa_supported(i)) v.push_back(i);
  return v;
}

// Random non-zero values in +-[0.05, 1] * scale.
inline std::vector<float> random_floats(std::mt19937& rng, size_t n, float scale = 1.0f) {
  std::uniform_real_distribution<float> mag(0.05f, 1.0f);
  std::bernoulli_distribution sign(0.5);
  std::vector<float> v(n);
  for (auto& x : v) x = (sign(rng) ? -1.0f : 1.0f) * mag(rng) * scale;
  return v;
}

// A (m, k) weight matrix in format f, quantized from random floats; owns its bytes.
struct TestWeights {
  std::vector<std::byte> bytes;
  std::vector<float> source;  // the floats before quantization, (m, k)
  WeightView view;
};

inline TestWeights make_weights(std::mt19937& rng, WeightFormat f, int64_t m, int64_t k) {
  TestWeights w;
  w.source = random_floats(rng, size_t(m * k));
  const int64_t rb = row_bytes(f, k);
  w.bytes.resize(size_t(m * rb));
  for (int64_t r = 0; r < m; ++r)
    quantize_row(f, std::span<const float>(w.source.data() + r * k, size_t(k)), w.bytes.data() + r * rb);
  w.view = WeightView{f, w.bytes.data(), m, k};
  return w;
}

// Checks that a batched product op(W, X, n, Y, pool) over w takes 3 rows and rejects a wrong or negative row count.
template <class Op>
void check_batch_shapes(Op op, const TestWeights& w, ThreadPool& pool) {
  std::vector<float> X(size_t(3 * w.view.k)), Y(size_t(3 * w.view.m));
  CHECK_NOTHROW(op(w.view, X, 3, Y, pool));
  CHECK_THROWS_AS(op(w.view, X, 2, Y, pool), rooftop::InternalError);
  CHECK_THROWS_AS(op(w.view, X, -1, Y, pool), rooftop::InternalError);
}

// Row r dequantized with the scalar reference.
inline std::vector<float> ref_row(const WeightView& W, int64_t r) {
  std::vector<float> row(size_t(W.k));
  dequantize_row_ref(W.format, W.data + r * row_bytes(W.format, W.k), row);
  return row;
}

// Smallest k that is a whole number of blocks and at least `k`.
inline int64_t round_k(WeightFormat f, int64_t k) {
  const int64_t bv = block_values(f);
  return (k + bv - 1) / bv * bv;
}

// Allowed |y - ref| of one product sum w . x (k values): float summation error 2 (k + 16) 2^-24 sum |w x|; plus,
// for q8 activations, the rounding |x - x^| <= d_b / 2 = amax_b / 254 of every element of block b (32 values),
// so |dy| <= sum_p |w_p| amax_b(p) / 254; plus u * sum |w x| for operands rounded by a relative u (bf16: 2^-8).
inline double product_tolerance(const std::vector<float>& w, const float* x, int64_t k, bool q8_act, double u = 0) {
  double sum_abs = 0, act = 0;
  for (int64_t b = 0; b < k; b += 32) {
    double amax = 0;
    for (int64_t p = b; p < std::min(k, b + 32); ++p) amax = std::max(amax, double(std::fabs(x[p])));
    for (int64_t p = b; p < std::min(k, b + 32); ++p) {
      sum_abs += std::fabs(double(w[size_t(p)]) * x[p]);
      act += std::fabs(double(w[size_t(p)])) * amax / 254.0;
    }
  }
  return (2.0 * double(k + 16) * 0x1p-24 + u) * sum_abs + (q8_act ? act * 1.0001 : 0.0) + 1e-6;
}

// The first index in [0, count) whose |got(i) - want(i)| is not within tol(i) (a NaN is not), or -1. Tests
// check whole outputs with it and report the one failing index: a Catch INFO message built per value made
// the kernel tests the slowest of the suite under ASan.
template <class Got, class Want, class Tol>
int64_t first_outside(int64_t count, Got got, Want want, Tol tol) {
  for (int64_t i = 0; i < count; ++i)
    if (!(std::fabs(double(got(i)) - double(want(i))) <= double(tol(i)))) return i;
  return -1;
}

}  // namespace rooftop::kernels::test
