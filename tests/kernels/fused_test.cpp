// Fused kernels: gemv_multi, gemv_swiglu vs the unfused kernels (bit-exact); attention_prefill vs the reference.
#include <catch2/catch.hpp>

#include <cmath>

#include "kernels/cpu/attention_tile.h"
#include "kernels/cpu/fused.h"
#include "kernels/cpu/thread_pool.h"
#include "tests/kernels/attention_test_util.h"
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

TEST_CASE("attention_prefill matches the reference per token (causal, GQA, every ISA)", "[kernels][fused]") {
  // Tiled prefill sums in another order than attention_decode, so each token is checked against the double
  // reference over its causal prefix [0, pos0 + i] with the bound derived in attention_test_util.h. Positions
  // >= pos0 + n are poisoned; a future position inside the prefix would change the result far beyond the bound.
  std::mt19937 rng(53);
  ThreadPool pool1(1), pool2(2);
  struct Shape { int64_t h, hk, d; };
  for (const Shape s : {Shape{9, 3, 64}, Shape{14, 2, 64}, Shape{15, 5, 64}, Shape{32, 8, 128}, Shape{6, 1, 16},
                        Shape{3, 3, 36}}) {
    for (int64_t n : {1, 7, 64, 129}) {
      for (int64_t pos0 : {0, 37}) {
        for (bool f16 : {false, true}) {
          const int64_t hd = s.h * s.d;
          const TestKv kv(rng, pos0 + n + 5, pos0 + n, s.hk, s.d, f16);
          const std::vector<float> q = random_floats(rng, size_t(n * hd), 2.0f);
          std::vector<float> ref(size_t(n * hd)), out(size_t(n * hd)), tol(static_cast<size_t>(n));
          for (int64_t i = 0; i < n; ++i) {
            attention_decode_ref(std::span<const float>(q.data() + i * hd, size_t(hd)), s.h, kv.view, pos0 + i + 1,
                                 std::span<float>(ref.data() + i * hd, size_t(hd)));
            tol[size_t(i)] = attention_tolerance(q.data() + i * hd, s.h, kv.view, pos0 + i + 1);
          }
          auto check = [&](const char* what) {
            const int64_t bad = first_outside(
                n * hd, [&](int64_t j) { return out[size_t(j)]; }, [&](int64_t j) { return ref[size_t(j)]; },
                [&](int64_t j) { return tol[size_t(j / hd)]; });
            INFO(what << " h=" << s.h << " hk=" << s.hk << " d=" << s.d << " n=" << n << " pos0=" << pos0
                      << " f16=" << f16 << " token " << bad / hd << " value " << bad % hd);
            REQUIRE(bad == -1);
          };
          for (ThreadPool* pool : {&pool1, &pool2}) {
            std::fill(out.begin(), out.end(), -7.0f);
            attention_prefill(q, n, s.h, kv.view, pos0, out, *pool);
            check(pool->size() == 1 ? "active ISA, 1 thread" : "active ISA, 2 threads");
          }
          for (Isa isa : supported_isas()) {
            std::fill(out.begin(), out.end(), -7.0f);
            attn::prefill_with(attn::attention_kernels(isa), q, n, s.h, kv.view, pos0, out, pool2);
            check(kernel_table(isa).name);
          }
        }
      }
    }
  }
  const TestKv kv(rng, 16, 16, 3, 64, false);
  const std::vector<float> q = random_floats(rng, size_t(11 * 9 * 64));
  std::vector<float> out(q.size());
  CHECK_THROWS(attention_prefill(q, 12, 9, kv.view, 5, out, pool2));  // q holds 11 tokens
  CHECK_THROWS(attention_prefill(q, 11, 9, kv.view, -1, out, pool2));
}
