// check_range: the one message for a number outside its bounds.
#include "base/limits.h"

#include <cmath>
#include <cstdio>

#include "base/errors.h"

namespace rooftop::limits {

namespace {
std::string show(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}
}  // namespace

void check_range(const std::string& what, int64_t v, int64_t lo, int64_t hi) {
  if (v < lo || v > hi)
    throw InputError(what + " is " + std::to_string(v) + "; expected " + std::to_string(lo) + " to " + std::to_string(hi));
}

void check_range(const std::string& what, double v, double lo, double hi) {
  if (!std::isfinite(v) || v < lo || v > hi)
    throw InputError(what + " is " + show(v) + "; expected a number from " + show(lo) + " to " + show(hi));
}

}  // namespace rooftop::limits
