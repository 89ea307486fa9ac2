// fp8 e4m3 (OCP/NVIDIA "E4M3FN") to float in software: for GPUs below sm_89 and for host checks.
// Layout: sign bit 7, exponent bits 6..3 (bias 7), mantissa bits 2..0; no infinities; S.1111.111 = NaN.
#pragma once
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define ROOFTOP_HD __host__ __device__
#else
#define ROOFTOP_HD
#endif

namespace rooftop::cuda {

ROOFTOP_HD inline float fp8_e4m3_to_float_sw(uint8_t b) {
  const uint32_t sign = uint32_t(b & 0x80u) << 24;
  const uint32_t e = (b >> 3) & 0xFu;
  const uint32_t m = b & 0x7u;
  float v;
  if (e == 0) {
    v = float(m) * (1.0f / 512.0f);  // subnormal: m * 2^-9
  } else if (e == 15 && m == 7) {
    const uint32_t nan_bits = 0x7fc00000u;
    std::memcpy(&v, &nan_bits, 4);
  } else {
    const uint32_t bits = ((e + 120u) << 23) | (m << 20);  // rebias 7 -> 127
    std::memcpy(&v, &bits, 4);
  }
  uint32_t out;
  std::memcpy(&out, &v, 4);
  out |= sign;
  std::memcpy(&v, &out, 4);
  return v;
}

}  // namespace rooftop::cuda
