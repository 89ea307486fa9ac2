// Wall-clock time as the project's files record it.
#pragma once
#include <chrono>
#include <cstdio>
#include <ctime>
#include <optional>
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

// Seconds from an ISO 8601 UTC time as utc_now_iso8601 writes it ("2026-12-03T18:05:00Z") to now; nullopt when
// the text is not such a time.
inline std::optional<double> seconds_since_utc(const std::string& iso) {
  std::tm tm{};
  const char* end = strptime(iso.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  const std::time_t then = timegm(&tm);
  if (then == std::time_t(-1)) return std::nullopt;
  return std::difftime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now()), then);
}

// An age in words: "42 s", "17 min", "3.1 h", "2.5 days" (a negative age, a clock set back, reads "0 s").
inline std::string age_text(double seconds) {
  char buf[32];
  if (seconds < 120) std::snprintf(buf, sizeof buf, "%.0f s", seconds < 0 ? 0.0 : seconds);
  else if (seconds < 7200) std::snprintf(buf, sizeof buf, "%.0f min", seconds / 60);
  else if (seconds < 172800) std::snprintf(buf, sizeof buf, "%.1f h", seconds / 3600);
  else std::snprintf(buf, sizeof buf, "%.1f days", seconds / 86400);
  return buf;
}

}  // namespace rooftop
