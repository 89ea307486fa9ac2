// Wall-clock time as the project's files record it.
#pragma once
#include <chrono>
#include <ctime>
#include <string>

namespace rooftop {

// Now, in UTC, as ISO 8601 to the second: "2026-12-03T18:05:00Z". Header-only: the CUDA module uses it too.
inline std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace rooftop
