// The calibration age that `rooftop run` states: ISO 8601 UTC times read back, ages in words.
#include <catch2/catch.hpp>

#include "base/clock.h"

using namespace rooftop;

TEST_CASE("seconds_since_utc reads what utc_now_iso8601 writes; other text is no time") {
  const auto now = seconds_since_utc(utc_now_iso8601());
  REQUIRE(now.has_value());
  CHECK(*now >= 0.0);
  CHECK(*now < 5.0);
  // 2000-01-01T00:00:00Z is 946,684,800 s after the epoch: now minus that is the age, to within the test's seconds.
  const double since_2000 = double(std::time(nullptr)) - 946684800.0;
  const auto age = seconds_since_utc("2000-01-01T00:00:00Z");
  REQUIRE(age.has_value());
  CHECK(*age == Approx(since_2000).margin(5.0));
  // One day later is 86,400 s younger.
  CHECK(*seconds_since_utc("2000-01-02T00:00:00Z") == Approx(*age - 86400.0).margin(5.0));
  for (const char* bad : {"", "2026-12-07", "2026-12-07T02:04:37", "2026-12-07T02:04:37Zjunk", "yesterday"}) {
    INFO(bad);
    CHECK_FALSE(seconds_since_utc(bad).has_value());
  }
}

TEST_CASE("age_text: seconds, minutes, hours, days") {
  CHECK(age_text(-3) == "0 s");
  CHECK(age_text(42) == "42 s");
  CHECK(age_text(17 * 60 + 10) == "17 min");
  CHECK(age_text(3 * 3600 + 360) == "3.1 h");
  CHECK(age_text(2.5 * 86400) == "2.5 days");
}
