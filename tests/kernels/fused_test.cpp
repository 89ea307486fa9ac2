// Fused kernels (gemv_multi, gemv_swiglu, attention_prefill) vs the unfused kernels (bit-exact) and references.
#include <catch2/catch.hpp>

#include <cmath>

#include "kernels/cpu/fused.h"
#include "kernels/cpu/thread_pool.h"
#include "tests/kernels/kernel_test_util.h"

using namespace rooftop::kernels;
using namespace rooftop::kernels::test;

TEST_CASE("gemv_multi equals one gemv per matrix, and the reference", "[kernels][fused]") {
  std::mt19937 rng(51);
  ThreadPool pool(2);
  for (WeightFormat f : all_formats()) {
    const int64_t k = round_k(f, 576);
    TestWeights a = make_weights(rng, f, 576, k), b = make_weights(rng, f, 192, k), c = make_weights(rng, f, 37, k);
    const std::vector<float> x = random_floats(rng, size_t(k));
    std::vector<float> ya(576), yb(192), yc(37), ra(576), rb(192), rc(37);
    const GemvTarget t[3] = {{&a.view, ya.data()}, {&b.view, yb.data()}, {&c.view, yc.data()}};
    gemv_multi(t, x, pool);
    gemv(a.view, x, ra, pool);
    gemv(b.view, x, rb, pool);
    gemv(c.view, x, rc, pool);
    INFO("format " << format_name(f));
    CHECK(ya == ra);
    CHECK(yb == rb);
    CHECK(yc == rc);
    std::vector<float> ref(37);
    gemv_ref(c.view, x, ref);
    for (size_t i = 0; i < ref.size(); ++i) CHECK(std::fabs(yc[i] - ref[i]) <= 0.05f + 0.02f * std::fabs(ref[i]));
  }
}

TEST_CASE("gemv_swiglu equals gemv, gemv, swiglu", "[kernels][fused]") {
  std::mt19937 rng(52);
  ThreadPool pool(2);
  for (WeightFormat f : all_formats()) {
    const int64_t k = round_k(f, 576), F = 300;  // k >= 512: the q4_1 interleaved path on AVX-512
    TestWeights g = make_weights(rng, f, F, k), u = make_weights(rng, f, F, k);
    const std::vector<float> x = random_floats(rng, size_t(k));
    std::vector<float> h(F), gy(F), uy(F), ref(F);
    gemv_swiglu(g.view, u.view, x, h, pool);
    gemv(g.view, x, gy, pool);
    gemv(u.view, x, uy, pool);
    swiglu(gy, uy, ref);
    INFO("format " << format_name(f));
    CHECK(h == ref);
  }
}

TEST_CASE("attention_prefill equals attention_decode per token (causal, GQA)", "[kernels][fused]") {
  std::mt19937 rng(53);
  ThreadPool pool(2);
  const int64_t h = 9, hk = 3, d = 64, pos0 = 5, n = 11, cap = pos0 + n;
  std::vector<float> kf = random_floats(rng, size_t(cap * hk * d), 2.0f), vf = random_floats(rng, size_t(cap * hk * d));
  KvView kv;
  kv.k = kf.data();
  kv.v = vf.data();
  kv.kv_heads = hk;
  kv.head_dim = d;
  const std::vector<float> q = random_floats(rng, size_t(n * h * d), 2.0f);
  std::vector<float> out(size_t(n * h * d)), one(size_t(h * d)), ref(size_t(h * d));
  attention_prefill(q, n, h, kv, pos0, out, pool);
  for (int64_t i = 0; i < n; ++i) {
    std::span<const float> qi(q.data() + i * h * d, size_t(h * d));
    attention_decode(qi, h, kv, pos0 + i + 1, one, pool);
    attention_decode_ref(qi, h, kv, pos0 + i + 1, ref);
    for (int64_t j = 0; j < h * d; ++j) {
      INFO("token " << i << " value " << j);
      REQUIRE(out[size_t(i * h * d + j)] == one[size_t(j)]);
      REQUIRE(std::fabs(one[size_t(j)] - ref[size_t(j)]) <= 1e-4f);
    }
  }
  CHECK_THROWS(attention_prefill(q, n + 1, h, kv, pos0, out, pool));
}
