// Formatting of quantities for people; machine output (JSON, CSV) never goes through these.
#include "reports/units.h"

#include <cmath>
#include <fmt/format.h>

namespace rooftop::reports {

std::string sig(double v, int digits) {
  if (!std::isfinite(v)) return "n/a";
  if (v == 0) return "0";
  const int mag = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  const int decimals = std::max(0, digits - 1 - mag);
  return fmt::format("{:.{}f}", v, decimals);
}

namespace {
std::string scaled(double v, const char* const* units, int n, double step, const char* suffix) {
  if (!std::isfinite(v)) return "n/a";
  int i = 0;
  double a = std::fabs(v);
  while (i + 1 < n && a >= step * 0.9995) {
    a /= step;
    v /= step;
    ++i;
  }
  return sig(v) + " " + units[i] + suffix;
}
}  // namespace

std::string bytes(double b) {
  static const char* u[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  return scaled(b, u, 6, 1000.0, "");
}
std::string grouped(long long n) {
  std::string s = std::to_string(n < 0 ? -n : n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return (n < 0 ? "-" : "") + s;
}
std::string bytes_exact(double b) { return grouped(std::llround(b)) + " B"; }
std::string kib(double b) { return sig(b / 1024.0) + " KiB"; }
std::string rate_bytes(double r) {
  static const char* u[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  return scaled(r, u, 6, 1000.0, "/s");
}
std::string flops(double f) {
  static const char* u[] = {"FLOP", "kFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP", "EFLOP"};
  return scaled(f, u, 7, 1000.0, "");
}
std::string flops_rate(double f) {
  static const char* u[] = {"FLOP", "kFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP", "EFLOP"};
  return scaled(f, u, 7, 1000.0, "/s");
}
std::string seconds(double s) {
  if (!std::isfinite(s)) return "n/a";
  if (s >= 3600) return sig(s / 3600) + " h";
  if (s >= 60) return sig(s / 60) + " min";
  if (s >= 1) return sig(s) + " s";
  if (s >= 1e-3) return sig(s * 1e3) + " ms";
  if (s >= 1e-6) return sig(s * 1e6) + " µs";
  return sig(s * 1e9) + " ns";
}
std::string count(double n) {
  if (!std::isfinite(n)) return "n/a";
  if (std::fabs(n) >= 1e12) return sig(n / 1e12, 4) + "T";
  if (std::fabs(n) >= 1e9) return sig(n / 1e9, 4) + "B";
  if (std::fabs(n) >= 1e6) return sig(n / 1e6, 4) + "M";
  if (std::fabs(n) >= 1e4) return sig(n / 1e3, 4) + "k";
  return sig(n, 4);
}
std::string usd(double v) {
  if (!std::isfinite(v)) return "n/a";
  return "$" + sig(v);
}

}  // namespace rooftop::reports
