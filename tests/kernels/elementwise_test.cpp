// RMSNorm, RoPE, SwiGLU, softmax, argmax and top_k against direct formulas and std::partial_sort.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>

#include "base/suggest.h"
#include "tests/kernels/kernel_test_util.h"

using namespace rooftop::kernels;
using namespace rooftop::kernels::test;

TEST_CASE("rmsnorm scales by the reciprocal root mean square", "[kernels][elementwise]") {
  // Hand-worked: x = (3, 4), w = (1, 2), eps = 0: rms = sqrt((9 + 16) / 2) = 3.5355339 -> (0.8485281, 2.2627417).
  std::vector<float> out(2);
  rmsnorm(std::vector<float>{3, 4}, std::vector<float>{1, 2}, 0.0f, out);
  CHECK(out[0] == Approx(0.8485281f).epsilon(1e-6));
  CHECK(out[1] == Approx(2.2627417f).epsilon(1e-6));
  std::mt19937 rng(40);
  for (size_t n : {1u, 7u, 4096u}) {
    const auto x = random_floats(rng, n), w = random_floats(rng, n);
    std::vector<float> y(n);
    rmsnorm(x, w, 1e-5f, y);
    double ss = 0;
    for (float v : x) ss += double(v) * v;
    const double inv = 1.0 / std::sqrt(ss / double(n) + 1e-5);
    for (size_t i = 0; i < n; ++i) REQUIRE(y[i] == Approx(x[i] * inv * w[i]).epsilon(1e-5));
  }
  CHECK_THROWS_AS(rmsnorm(std::vector<float>(3), std::vector<float>(2), 1e-5f, out), rooftop::InternalError);
}

TEST_CASE("rope rotates adjacent pairs by pos * base^(-2i/d)", "[kernels][elementwise]") {
  std::mt19937 rng(41);
  const int64_t heads = 3, d = 16;
  for (int64_t pos : {0, 1, 17, 4095}) {
    const std::vector<float> x = random_floats(rng, size_t(heads * d));
    std::vector<float> y = x;
    rope(y, heads, d, pos, 10000.0f);
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < d / 2; ++i) {
        const double th = double(pos) / std::pow(10000.0, double(2 * i) / double(d));
        const double a = x[size_t(h * d + 2 * i)], b = x[size_t(h * d + 2 * i + 1)];
        REQUIRE(y[size_t(h * d + 2 * i)] == Approx(a * std::cos(th) - b * std::sin(th)).margin(1e-6));
        REQUIRE(y[size_t(h * d + 2 * i + 1)] == Approx(a * std::sin(th) + b * std::cos(th)).margin(1e-6));
      }
  }
  // Hand-worked: pair (1, 0) at pos 1, i = 0: theta = 1 rad -> (cos 1, sin 1) = (0.5403023, 0.8414710).
  std::vector<float> v = {1, 0, 0, 0};
  rope(v, 1, 4, 1, 10000.0f);
  CHECK(v[0] == Approx(0.5403023f));
  CHECK(v[1] == Approx(0.8414710f));
  CHECK_THROWS_AS(rope(v, 1, 3, 1, 10000.0f), rooftop::InternalError);
}

TEST_CASE("rope with frequency factors divides each pair's angle (Llama 3.1 rope_freqs)", "[kernels][elementwise]") {
  std::mt19937 rng(47);
  std::uniform_real_distribution<float> factor(1.0f, 32.0f);
  const int64_t heads = 2, d = 16;
  std::vector<float> ff(d / 2);
  for (auto& f : ff) f = factor(rng);
  std::vector<float> other = ff;
  other[3] *= 2;  // one value differs: the kernel's angle cache must not reuse the first set's angles
  for (const std::vector<float>* factors : {&ff, &other})
    for (int64_t pos : {1, 77, 8191}) {
      const std::vector<float> x = random_floats(rng, size_t(heads * d));
      std::vector<float> y = x;
      rope(y, heads, d, pos, 500000.0f, RopeStyle::adjacent, 1.0f, *factors);
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t i = 0; i < d / 2; ++i) {
          const double th = double(pos) / std::pow(500000.0, double(2 * i) / double(d)) / (*factors)[size_t(i)];
          const double a = x[size_t(h * d + 2 * i)], b = x[size_t(h * d + 2 * i + 1)];
          REQUIRE(y[size_t(h * d + 2 * i)] == Approx(a * std::cos(th) - b * std::sin(th)).margin(1e-6));
          REQUIRE(y[size_t(h * d + 2 * i + 1)] == Approx(a * std::sin(th) + b * std::cos(th)).margin(1e-6));
        }
    }
  // Hand-worked: d = 4, pair 0 at pos 2 with factor 2: theta = 1 rad -> (cos 1, sin 1).
  std::vector<float> v = {1, 0, 0, 0};
  const std::vector<float> two = {2.0f, 1.0f};
  rope(v, 1, 4, 2, 10000.0f, RopeStyle::adjacent, 1.0f, two);
  CHECK(v[0] == Approx(0.5403023f));
  CHECK(v[1] == Approx(0.8414710f));
  CHECK_THROWS_AS(rope(v, 1, 4, 2, 10000.0f, RopeStyle::adjacent, 1.0f, std::vector<float>{1.0f}), rooftop::InternalError);
}

TEST_CASE("rope halves (NeoX) rotates (i, i + d/2) by pos * scale * base^(-2i/d)", "[kernels][elementwise]") {
  std::mt19937 rng(43);
  const int64_t heads = 2, d = 12;
  for (float scale : {1.0f, 0.125f})
    for (int64_t pos : {0, 3, 511, 9000}) {
      const std::vector<float> x = random_floats(rng, size_t(heads * d));
      std::vector<float> y = x;
      rope(y, heads, d, pos, 1e6f, RopeStyle::halves, scale);
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t i = 0; i < d / 2; ++i) {
          const double th = double(pos) * scale / std::pow(1e6, double(2 * i) / double(d));
          const double a = x[size_t(h * d + i)], b = x[size_t(h * d + i + d / 2)];
          REQUIRE(y[size_t(h * d + i)] == Approx(a * std::cos(th) - b * std::sin(th)).margin(1e-6));
          REQUIRE(y[size_t(h * d + i + d / 2)] == Approx(a * std::sin(th) + b * std::cos(th)).margin(1e-6));
        }
    }
  // Hand-worked: d = 4, x = (1, 0, 0, 0) at pos 2 with scale 0.5: pair (x0, x2), theta = 1 rad ->
  // x0 = cos 1 = 0.5403023, x2 = sin 1 = 0.8414710; x1, x3 stay 0.
  std::vector<float> v = {1, 0, 0, 0};
  rope(v, 1, 4, 2, 10000.0f, RopeStyle::halves, 0.5f);
  CHECK(v[0] == Approx(0.5403023f));
  CHECK(v[2] == Approx(0.8414710f));
  CHECK(v[1] == 0.0f);
  CHECK(v[3] == 0.0f);
}

TEST_CASE("geglu is gelu_tanh(gate) * up", "[kernels][elementwise]") {
  // Hand-worked: gate = 1: tanh(0.7978846 * 1.044715) = tanh(0.8335623) = 0.6823840;
  // 0.5 * (1 + 0.6823840) = 0.8411920; times up = 2: 1.6823840. gelu(-1) = -1 + gelu(1) = -0.1588080.
  std::vector<float> out(2);
  geglu(std::vector<float>{1, -1}, std::vector<float>{2, 1}, out);
  CHECK(out[0] == Approx(1.6823840f));
  CHECK(out[1] == Approx(-0.1588080f));
  std::mt19937 rng(44);
  const auto g = random_floats(rng, 1000), u = random_floats(rng, 1000);
  std::vector<float> h(1000);
  geglu(g, u, h);
  for (size_t i = 0; i < h.size(); ++i) {
    const double x = g[i];
    const double ref = 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x))) * u[i];
    REQUIRE(h[i] == Approx(ref).margin(1e-6));
  }
  CHECK_THROWS_AS(geglu(std::vector<float>(3), std::vector<float>(2), out), rooftop::InternalError);
}

TEST_CASE("swiglu is silu(gate) * up", "[kernels][elementwise]") {
  // Hand-worked: gate = 1, up = 2: 1 / (1 + e^-1) * 2 = 1.4621172.
  std::vector<float> out(1);
  swiglu(std::vector<float>{1}, std::vector<float>{2}, out);
  CHECK(out[0] == Approx(1.4621172f));
  std::mt19937 rng(42);
  const auto g = random_floats(rng, 257, 8.0f), u = random_floats(rng, 257);
  std::vector<float> y(257);
  swiglu(g, u, y);
  for (size_t i = 0; i < y.size(); ++i) REQUIRE(y[i] == Approx(g[i] / (1.0 + std::exp(-double(g[i]))) * u[i]).epsilon(1e-5));
}

TEST_CASE("softmax sums to one and keeps the order", "[kernels][elementwise]") {
  std::mt19937 rng(43);
  for (size_t n : {1u, 5u, 32000u}) {
    auto x = random_floats(rng, n, 30.0f);
    const auto orig = x;
    softmax(x);
    const double sum = std::accumulate(x.begin(), x.end(), 0.0);
    REQUIRE(sum == Approx(1.0).epsilon(1e-5));
    REQUIRE(argmax(x) == argmax(orig));
    const double mx = *std::max_element(orig.begin(), orig.end());
    double z = 0;
    for (float v : orig) z += std::exp(double(v) - mx);
    for (size_t i = 0; i < n; i += 97) REQUIRE(x[i] == Approx(std::exp(double(orig[i]) - mx) / z).epsilon(1e-5));
  }
  std::vector<float> big = {1000.0f, 1000.0f};  // stable: no overflow
  softmax(big);
  CHECK(big[0] == 0.5f);
}

TEST_CASE("argmax and top_k agree with std::partial_sort", "[kernels][elementwise]") {
  std::mt19937 rng(44);
  for (size_t n : {1u, 10u, 1000u, 32000u}) {
    auto x = random_floats(rng, n);
    x[n / 2] = x[0];  // a tie: lower index first
    std::vector<int64_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    const size_t k = std::min<size_t>(n, 40);
    std::partial_sort(idx.begin(), idx.begin() + long(k), idx.end(), [&](int64_t a, int64_t b) {
      return x[size_t(a)] > x[size_t(b)] || (x[size_t(a)] == x[size_t(b)] && a < b);
    });
    std::vector<int64_t> got(k);
    top_k(x, got);
    REQUIRE(std::equal(got.begin(), got.end(), idx.begin()));
    REQUIRE(argmax(x) == idx[0]);
  }
  std::vector<int64_t> too_many(3);
  CHECK_THROWS_AS(top_k(std::vector<float>{1, 2}, too_many), rooftop::InternalError);
  CHECK_THROWS_AS(argmax(std::vector<float>{}), rooftop::InternalError);
}
