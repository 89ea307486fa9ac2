// Decode GEMV: every format and ISA vs the float reference (tolerance from q8 activation error) and, for the
// integer-dot formats, vs the scalar integer reference of the same algorithm.
#include <catch2/catch.hpp>

#include <cstring>

#include "base/suggest.h"
#include "kernels/cpu/thread_pool.h"
#include "tests/kernels/kernel_test_util.h"

using namespace rooftop::kernels;
using namespace rooftop::kernels::test;

namespace {

// Allowed |y - ref| for row r: float summation error (recursive summation bound gamma_k ~ k * 2^-24, doubled)
// times sum |w x|, plus, for q8 activations, the activation rounding: |x - x^| <= d_b / 2 = amax_b / 254
// for every element of block b, so |dy| <= sum_i |w_i| * amax_b(i) / 254.
double tolerance(const WeightView& W, int64_t r, const std::vector<float>& x, bool q8_act) {
  const std::vector<float> w = ref_row(W, r);
  double sum_abs = 0, act = 0;
  for (int64_t b = 0; b < W.k; b += 32) {
    double amax = 0;
    for (int64_t i = b; i < std::min(W.k, b + 32); ++i) amax = std::max(amax, double(std::fabs(x[size_t(i)])));
    for (int64_t i = b; i < std::min(W.k, b + 32); ++i) {
      sum_abs += std::fabs(double(w[size_t(i)]) * x[size_t(i)]);
      act += std::fabs(double(w[size_t(i)])) * amax / 254.0;
    }
  }
  return 2.0 * double(W.k + 8) * 0x1p-24 * sum_abs + (q8_act ? act * 1.0001 : 0.0) + 1e-6;
}

}  // namespace

TEST_CASE("q8 activation quantization is identical in SIMD and scalar", "[kernels][gemv]") {
  std::mt19937 rng(10);
  for (int64_t k : {32, 96, 512, 4096}) {
    std::vector<float> x = random_floats(rng, size_t(k), 3.0f);
    x[5] = 0.0f;
    Q8Activations ref;
    quantize_activations_q8_ref(x, ref);
    for (Isa isa : supported_isas()) {
      Q8Activations got;
      kernel_table(isa).quantize_q8(x.data(), k, got);
      REQUIRE(got.q == ref.q);
      REQUIRE(std::memcmp(got.d.data(), ref.d.data(), ref.d.size() * 4) == 0);
      REQUIRE(std::memcmp(got.sum_scaled.data(), ref.sum_scaled.data(), ref.d.size() * 4) == 0);
    }
    for (size_t i = 0; i < x.size(); ++i)  // hand check of the rounding bound
      REQUIRE(std::fabs(ref.d[i / 32] * ref.q[i] - x[i]) <= ref.d[i / 32] * 0.5f * 1.0001f);
  }
}

TEST_CASE("gemv matches the reference for every format, ISA and odd shape", "[kernels][gemv]") {
  std::mt19937 rng(11);
  ThreadPool pool(2);
  for (WeightFormat f : all_formats()) {
    const bool q8 = gemv_uses_q8_activations(f);
    for (int64_t m : {1, 3, 17, 257}) {
      for (int64_t k0 : {32, 64, 96, 256, 320, 512, 1000}) {
        const int64_t k = round_k(f, k0);
        if (f == WeightFormat::f32 && k0 == 1000) continue;
        TestWeights w = make_weights(rng, f, m, k);
        const std::vector<float> x = random_floats(rng, size_t(k));
        std::vector<float> ref(static_cast<size_t>(m)), y(static_cast<size_t>(m));
        gemv_ref(w.view, x, ref);
        std::vector<float> tol(static_cast<size_t>(m));
        for (int64_t r = 0; r < m; ++r) tol[size_t(r)] = float(tolerance(w.view, r, x, q8));
        Q8Activations xq;
        quantize_activations_q8_ref(x, xq);
        for (Isa isa : supported_isas()) {
          const KernelTable& t = kernel_table(isa);
          std::fill(y.begin(), y.end(), 0.0f);
          t.gemv_rows(w.view, x.data(), xq, y.data(), 0, m);
          for (int64_t r = 0; r < m; ++r) {
            INFO(format_name(f) << " m=" << m << " k=" << k << " r=" << r << " isa=" << t.name);
            REQUIRE(std::fabs(y[size_t(r)] - ref[size_t(r)]) <= tol[size_t(r)]);
          }
        }
        gemv(w.view, x, y, pool);
        for (int64_t r = 0; r < m; ++r) {
          INFO(format_name(f) << " m=" << m << " k=" << k << " r=" << r << " public gemv");
          REQUIRE(std::fabs(y[size_t(r)] - ref[size_t(r)]) <= tol[size_t(r)]);
        }
      }
    }
  }
}

TEST_CASE("integer-dot gemv equals the scalar integer reference up to float reassociation", "[kernels][gemv]") {
  std::mt19937 rng(12);
  for (WeightFormat f : {WeightFormat::q4_0, WeightFormat::q4_1, WeightFormat::q5_0, WeightFormat::q5_1,
                         WeightFormat::q8_0, WeightFormat::q4_k, WeightFormat::q5_k, WeightFormat::q6_k}) {
    // 960 = 16 + 14 blocks and 576 = 16 + 2 (SmolLM2 widths): partial 16-block groups of the q4_1 kernel
    for (int64_t k0 : {32, 96, 256, 320, 576, 768, 960, 1088}) {
      const int64_t k = round_k(f, k0), m = 17;
      TestWeights w = make_weights(rng, f, m, k);
      const std::vector<float> x = random_floats(rng, size_t(k));
      Q8Activations xq;
      quantize_activations_q8_ref(x, xq);
      std::vector<float> ref(static_cast<size_t>(m)), y(static_cast<size_t>(m));
      gemv_q8_rows_ref(w.view, xq, ref.data(), 0, m);
      // second pass with the interleaved copy filled: AVX-512's q4_1 rows then take the one-lane-per-block kernel
      for (bool interleaved : {false, true}) {
        if (interleaved) interleave_q8_blocks16(xq);
        for (Isa isa : supported_isas()) {
          kernel_table(isa).gemv_rows(w.view, x.data(), xq, y.data(), 0, m);
          for (int64_t r = 0; r < m; ++r) {
            // same integer dots and scales; only the order of the float block sums differs
            const std::vector<float> wr = ref_row(w.view, r);
            double sum_abs = 0;
            for (int64_t i = 0; i < k; ++i) sum_abs += std::fabs(double(wr[size_t(i)]) * xq.d[size_t(i / 32)] * xq.q[size_t(i)]);
            INFO(format_name(f) << " k=" << k << " r=" << r << " isa=" << kernel_table(isa).name
                                << " interleaved=" << interleaved);
            REQUIRE(std::fabs(y[size_t(r)] - ref[size_t(r)]) <= double(k / 32 + 8) * 4 * 0x1p-24 * sum_abs + 1e-6);
          }
        }
      }
    }
  }
}

TEST_CASE("gemv rejects mismatched shapes", "[kernels][gemv]") {
  std::mt19937 rng(13);
  ThreadPool pool(2);
  TestWeights w = make_weights(rng, WeightFormat::q4_0, 4, 64);
  std::vector<float> x(64), y(4), bad_x(63), bad_y(5);
  CHECK_NOTHROW(gemv(w.view, x, y, pool));
  CHECK_THROWS_AS(gemv(w.view, bad_x, y, pool), rooftop::InternalError);
  CHECK_THROWS_AS(gemv(w.view, x, bad_y, pool), rooftop::InternalError);
  WeightView odd = w.view;
  odd.k = 48;
  CHECK_THROWS_AS(gemv(odd, std::vector<float>(48), y, pool), rooftop::InternalError);
  WeightView null_data = w.view;
  null_data.data = nullptr;
  CHECK_THROWS_AS(gemv_ref(null_data, x, y), rooftop::InternalError);
}
