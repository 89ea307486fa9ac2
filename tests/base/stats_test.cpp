// base/stats.h: median and quantile_sorted against hand-worked values and a sorted-copy reference.
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "base/stats.h"

TEST_CASE("median: the middle value, or the mean of the middle two") {
  CHECK(rooftop::median({3.0, 1.0, 2.0}) == 2.0);
  CHECK(rooftop::median({4.0, 1.0, 3.0, 2.0}) == 2.5);  // (2 + 3) / 2
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(rooftop::median({1.0, inf, 2.0}) == 2.0);  // an infinite probe rate above the middle stays out of it
  CHECK(rooftop::median({-inf, 5.0, 7.0}) == 5.0);
  CHECK_THROWS_AS(rooftop::median({}), std::invalid_argument);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(0.1, 100.0);
  for (int trial = 0; trial < 100; ++trial) {
    std::vector<double> v(1 + rng() % 30);
    for (auto& x : v) x = u(rng);
    std::vector<double> s = v;
    std::sort(s.begin(), s.end());
    const size_t n = s.size();
    const double expect = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    CHECK(rooftop::median(v) == expect);
    CHECK(rooftop::quantile_sorted(s, 0.5) == Approx(expect).epsilon(1e-12));
  }
}
