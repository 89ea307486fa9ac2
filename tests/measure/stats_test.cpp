// Repetition statistics on fixed samples: median, quartiles, spread and the wide-spread flag.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "measure/stats.h"

using rooftop::measure::summarize;

TEST_CASE("summarize gives the median, quartiles and spread of fixed samples") {
  // Sorted: 1.0 1.1 1.2 1.3 1.4 -> median 1.2; q1 at position 1 = 1.1, q3 at position 3 = 1.3;
  // spread = (1.4 - 1.0) / 1.2 = 0.3333; iqr_relative = 0.2 / 1.2 = 0.1667 > 0.10 -> wide.
  auto s = summarize({1.3, 1.0, 1.4, 1.2, 1.1});
  CHECK(s.count == 5);
  CHECK(s.median == Approx(1.2));
  CHECK(s.min == Approx(1.0));
  CHECK(s.max == Approx(1.4));
  CHECK(s.q1 == Approx(1.1));
  CHECK(s.q3 == Approx(1.3));
  CHECK(s.spread == Approx(0.4 / 1.2));
  CHECK(s.iqr_relative == Approx(0.2 / 1.2));
  CHECK(s.wide);
}

TEST_CASE("an even count interpolates the median; one outlier does not make a tight run wide") {
  // Sorted: 2.00 2.01 2.02 2.03 2.04 9.00 -> median between 2.02 and 2.03 = 2.025;
  // q1 at 1.25 = 2.0125, q3 at 3.75 = 2.0375 -> iqr 0.025 / 2.025 = 1.2% (not wide), spread 3.46.
  auto s = summarize({2.02, 9.0, 2.0, 2.04, 2.01, 2.03});
  CHECK(s.median == Approx(2.025));
  CHECK(s.q1 == Approx(2.0125));
  CHECK(s.q3 == Approx(2.0375));
  CHECK_FALSE(s.wide);
  CHECK(s.spread == Approx(7.0 / 2.025));
}

TEST_CASE("a single sample has zero spread") {
  auto s = summarize({0.5});
  CHECK(s.median == 0.5);
  CHECK(s.spread == 0);
  CHECK_FALSE(s.wide);
}

TEST_CASE("summarize rejects empty, zero, negative and non-finite samples") {
  CHECK_THROWS_AS(summarize({}), std::invalid_argument);
  CHECK_THROWS_AS(summarize({1.0, 0.0}), std::invalid_argument);
  CHECK_THROWS_AS(summarize({1.0, -2.0}), std::invalid_argument);
  CHECK_THROWS_AS(summarize({1.0, 1.0 / 0.0}), std::invalid_argument);
}
