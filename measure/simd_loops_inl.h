// STREAM loop bodies shared by the ISA files: plain loops the compiler vectorizes with each file's flags.
#pragma once
#include <cstdint>

namespace rooftop::measure::inl {

inline void copy(const float* __restrict a, float* __restrict c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) c[i] = a[i];
}
inline void scale(const float* __restrict c, float* __restrict b, float s, int64_t n) {
  for (int64_t i = 0; i < n; ++i) b[i] = s * c[i];
}
inline void add(const float* __restrict a, const float* __restrict b, float* __restrict c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
inline void triad(const float* __restrict b, const float* __restrict c, float* __restrict a, float s, int64_t n) {
  for (int64_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

}  // namespace rooftop::measure::inl
