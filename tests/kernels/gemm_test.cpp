// Prefill GEMM: every format and ISA vs the double-accumulating reference across odd n, m, k.
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstring>

#include "base/suggest.h"
#include "kernels/cpu/blocks.h"
#include "kernels/cpu/thread_pool.h"
#include "tests/kernels/kernel_test_util.h"

using namespace rooftop::kernels;
using namespace rooftop::kernels::test;

namespace {

// |Y - ref| within product_tolerance: fp32 summation, plus the table's operand rounding u (0 for fp32 operands,
// 2^-8 for bf16), or, for the formats the table's int8 GEMM takes (gemm_uses_q8), the int8 rounding of X.
void check_gemm(const WeightView& W, const std::vector<float>& X, int64_t n, const std::vector<float>& Y,
                const std::vector<float>& ref, const KernelTable& t, const char* what) {
  const bool q8 = t.gemm_uses_q8 && t.gemm_uses_q8(W.format);
  for (int64_t j = 0; j < W.m; ++j) {
    const std::vector<float> w = ref_row(W, j);
    const int64_t i = first_outside(
        n, [&](int64_t r) { return Y[size_t(r * W.m + j)]; }, [&](int64_t r) { return ref[size_t(r * W.m + j)]; },
        [&](int64_t r) { return product_tolerance(w, X.data() + r * W.k, W.k, q8, q8 ? 0.0 : t.gemm_operand_rounding); });
    INFO(what << " " << format_name(W.format) << " n=" << n << " m=" << W.m << " k=" << W.k << " i=" << i << " j=" << j);
    REQUIRE(i == -1);
  }
}

}  // namespace

TEST_CASE("gemm matches the reference for every format, ISA and odd shape", "[kernels][gemm]") {
  std::mt19937 rng(20);
  ThreadPool pool(2);
  struct Shape { int64_t n, m, k; };
  const Shape shapes[] = {{1, 1, 32}, {3, 17, 64}, {7, 3, 96}, {33, 70, 256}, {7, 257, 512}, {5, 33, 800}, {9, 21, 70},
                         {131, 29, 64}};  // n = 131: past one chunk of kGemmNC = 128 tokens, ending in a partial group
  for (WeightFormat f : all_formats()) {
    for (const Shape& s : shapes) {
      const int64_t k = round_k(f, s.k);
      TestWeights w = make_weights(rng, f, s.m, k);
      const std::vector<float> X = random_floats(rng, size_t(s.n * k));
      std::vector<float> ref(static_cast<size_t>(s.n * s.m)), Y(static_cast<size_t>(s.n * s.m));
      gemm_ref(w.view, X, s.n, ref);
      for (Isa isa : supported_isas()) {
        std::fill(Y.begin(), Y.end(), 12345.0f);
        kernel_table(isa).gemm_cols(w.view, X.data(), s.n, Y.data(), 0, s.m);
        check_gemm(w.view, X, s.n, Y, ref, kernel_table(isa), kernel_table(isa).name);
      }
      std::fill(Y.begin(), Y.end(), 12345.0f);
      gemm(w.view, X, s.n, Y, pool);
      check_gemm(w.view, X, s.n, Y, ref, active_kernels(), "public");
    }
  }
}

// The int8 GEMMs add integer products in narrow lanes (AVX2: pairs of u8 x s8 in int16, several quads summed before
// widening). Weights at every format's largest magnitude times activations at +-127 are the worst case: one int16
// lane too many would wrap and miss the reference by thousands.
TEST_CASE("the int8 GEMM does not overflow at the formats' extreme values", "[kernels][gemm]") {
  const int64_t m = 19, k = 512, n = 13;  // n > kSmallGemmMaxN: the tiled GEMM
  for (WeightFormat f : {WeightFormat::q4_0, WeightFormat::q4_1, WeightFormat::q5_0, WeightFormat::q5_1,
                         WeightFormat::q8_0, WeightFormat::q4_k, WeightFormat::q5_k, WeightFormat::q6_k}) {
    const int64_t rb = row_bytes(f, k), bb = block_bytes(f), blocks = m * rb / bb;
    // Every quant bit set (q8_0: -128), then the scales: d = 1 (fp16 0x3C00), mins 0.
    std::vector<std::byte> bytes(size_t(m * rb), std::byte(f == WeightFormat::q8_0 ? 0x80 : 0xFF));
    auto set16 = [&](int64_t b, size_t offset, uint16_t v) { std::memcpy(bytes.data() + b * bb + offset, &v, 2); };
    for (int64_t b = 0; b < blocks; ++b) {
      if (f == WeightFormat::q6_k) set16(b, offsetof(BlockQ6K, d), 0x3C00);
      else set16(b, 0, 0x3C00);  // d first
      if (f == WeightFormat::q4_1 || f == WeightFormat::q5_1 || f == WeightFormat::q4_k || f == WeightFormat::q5_k)
        set16(b, 2, 0);  // m / dmin
    }
    const WeightView W{f, bytes.data(), m, k};
    std::vector<float> X(size_t(n * k));
    for (int64_t i = 0; i < n; ++i)  // token i all +1 or all -1: every quant 127 or -127
      std::fill(X.begin() + i * k, X.begin() + (i + 1) * k, i % 2 ? -1.0f : 1.0f);
    std::vector<float> ref(size_t(n * m)), Y(size_t(n * m));
    gemm_ref(W, X, n, ref);
    for (Isa isa : supported_isas()) {
      const KernelTable& t = kernel_table(isa);
      std::fill(Y.begin(), Y.end(), 12345.0f);
      t.gemm_cols(W, X.data(), n, Y.data(), 0, m);
      check_gemm(W, X, n, Y, ref, t, t.name);
    }
  }
}

TEST_CASE("gemm with a 1-thread pool and a 3-thread pool agree exactly", "[kernels][gemm]") {
  std::mt19937 rng(21);
  ThreadPool one(1), three(3);
  TestWeights w = make_weights(rng, WeightFormat::q4_1, 200, 512);
  const int64_t n = 9;
  const std::vector<float> X = random_floats(rng, size_t(n * 512));
  std::vector<float> a(static_cast<size_t>(n * 200)), b(static_cast<size_t>(n * 200));
  gemm(w.view, X, n, a, one);
  gemm(w.view, X, n, b, three);
  CHECK(a == b);  // each output is computed by one thread in the same order whatever the split
}

TEST_CASE("gemm rejects mismatched shapes", "[kernels][gemm]") {
  std::mt19937 rng(22);
  ThreadPool pool(2);
  TestWeights w = make_weights(rng, WeightFormat::f16, 4, 8);
  check_batch_shapes(gemm, w, pool);
  std::vector<float> X(3 * 8), Y(3 * 4);
  CHECK_THROWS_AS(gemm_ref(w.view, X, 3, std::span<float>(Y.data(), 11)), rooftop::InternalError);
}
