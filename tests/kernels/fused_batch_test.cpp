// Batched decode kernels: gemv_batch over more than 8 tokens (L2 slices) and the fused gemv_batch_multi /
// gemv_batch_swiglu, against 8-token gemv_batch calls (bit for bit) and the double-precision gemm_ref.
#include <catch2/catch.hpp>

#include <cmath>

#include "base/suggest.h"
#include "kernels/cpu/fused.h"
#include "kernels/cpu/thread_pool.h"
#include "tests/kernels/kernel_test_util.h"

using namespace rooftop::kernels;
using namespace rooftop::kernels::test;

namespace {

// gemv_batch on tokens [i0, i0 + g) only (g <= 8: one token group, no slicing), written into Y (n, m).
void batch_of_group(const WeightView& W, const std::vector<float>& X, int64_t i0, int64_t g, std::vector<float>& Y,
                    ThreadPool& pool) {
  std::vector<float> part(size_t(g * W.m));
  gemv_batch(W, std::span<const float>(X).subspan(size_t(i0 * W.k), size_t(g * W.k)), g, part, pool);
  std::copy(part.begin(), part.end(), Y.begin() + i0 * W.m);
}

}  // namespace

TEST_CASE("gemv_batch over 9..20 tokens equals its 8-token groups bit for bit, and gemm_ref", "[kernels][fused]") {
  std::mt19937 rng(61);
  ThreadPool pool(2);
  for (WeightFormat f : all_formats()) {
    // 1000 rows of k = 576..768: several 64 KiB slices per worker, so slicing is exercised.
    const int64_t k = round_k(f, 576), m = 1000;
    TestWeights w = make_weights(rng, f, m, k);
    for (int64_t n : {9, 16, 20}) {
      const std::vector<float> X = random_floats(rng, size_t(n * k));
      std::vector<float> Y(size_t(n * m)), groups(size_t(n * m)), ref(size_t(n * m));
      gemv_batch(w.view, X, n, Y, pool);
      for (int64_t i0 = 0; i0 < n; i0 += 8) batch_of_group(w.view, X, i0, std::min<int64_t>(8, n - i0), groups, pool);
      INFO("format " << format_name(f) << " n=" << n);
      CHECK(Y == groups);
      gemm_ref(w.view, X, n, ref);
      // Loose sanity bound (the tight per-element bound is gemv_batch_test's): int8 activations round by
      // up to amax / 254 per element, |w| < 1.5 and |x| < 1 here, so |dy| < k x 1.5 / 254 + float error.
      const float bound = float(k) * 1.5f / 254.0f + 1e-3f;
      for (size_t i = 0; i < ref.size(); ++i) REQUIRE(std::fabs(Y[i] - ref[i]) <= bound);
    }
  }
}

TEST_CASE("gemv_batch_multi and gemv_batch_swiglu equal the unfused batched kernels", "[kernels][fused]") {
  std::mt19937 rng(62);
  ThreadPool pool(2);
  for (WeightFormat f : all_formats()) {
    const int64_t k = round_k(f, 896), F = 300;
    TestWeights a = make_weights(rng, f, 896, k), b = make_weights(rng, f, 128, k), c = make_weights(rng, f, 37, k);
    TestWeights g = make_weights(rng, f, F, k), u = make_weights(rng, f, F, k);
    for (int64_t n : {1, 3, 8, 13}) {
      const std::vector<float> X = random_floats(rng, size_t(n * k));
      std::vector<float> ya(size_t(n * 896)), yb(size_t(n * 128)), yc(size_t(n * 37));
      std::vector<float> ra(ya.size()), rb(yb.size()), rc(yc.size());
      const GemvBatchTarget t[3] = {{&a.view, ya.data()}, {&b.view, yb.data()}, {&c.view, yc.data()}};
      gemv_batch_multi(t, X, n, pool);
      gemv_batch(a.view, X, n, ra, pool);
      gemv_batch(b.view, X, n, rb, pool);
      gemv_batch(c.view, X, n, rc, pool);
      INFO("format " << format_name(f) << " n=" << n);
      CHECK(ya == ra);
      CHECK(yb == rb);
      CHECK(yc == rc);
      std::vector<float> h(size_t(n * F)), gy(h.size()), uy(h.size()), ref(h.size());
      gemv_batch_swiglu(g.view, u.view, X, n, h, pool);
      gemv_batch(g.view, X, n, gy, pool);
      gemv_batch(u.view, X, n, uy, pool);
      swiglu(gy, uy, ref);
      CHECK(h == ref);
    }
  }
  TestWeights a = make_weights(rng, WeightFormat::f32, 8, 64), b = make_weights(rng, WeightFormat::f32, 8, 32);
  std::vector<float> X(64), ya(8), yb(8);
  const GemvBatchTarget mixed[2] = {{&a.view, ya.data()}, {&b.view, yb.data()}};
  CHECK_THROWS_AS(gemv_batch_multi(mixed, X, 1, pool), rooftop::InternalError);  // two input widths
  CHECK_THROWS_AS(gemv_batch_swiglu(a.view, b.view, X, 1, ya, pool), rooftop::InternalError);
  CHECK_THROWS_AS(gemv_batch_multi(std::span<const GemvBatchTarget>(mixed, 1), X, 0, pool), rooftop::InternalError);
}
