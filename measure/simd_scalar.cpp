// Portable loops (no ISA flags): the fallback table on CPUs without AVX2.
#include "measure/simd_loops.h"
#include "measure/simd_loops_inl.h"

namespace rooftop::measure {
namespace {
// Eight independent partial sums so the loads, not the add latency, set the pace.
float read_scalar(const float* a, int64_t n) {
  float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int64_t i = 0; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) s[j] += a[i + j];
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}
}  // namespace

MemLoops mem_loops_scalar() {
  return {"scalar", inl::copy, inl::scale, inl::add, inl::triad, read_scalar};
}

}  // namespace rooftop::measure
