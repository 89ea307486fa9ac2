// Scalar fp16 (IEEE binary16) and bf16 conversions, round-to-nearest-even, used by references and quantizers.
#pragma once
#include <bit>
#include <cstdint>

namespace rooftop::kernels {

// Exact widening: every fp16 value is representable in fp32.
inline float fp16_to_fp32(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  const uint32_t man = h & 0x3FFu;
  if (exp == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (man << 13));  // inf / NaN
  if (exp == 0) {                                                                  // zero / subnormal
    const float v = float(man) * 0x1p-24f;                                         // exact
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (man << 13));
}

// Narrowing with round-to-nearest-even; overflow -> inf, NaN -> quiet NaN, tiny -> subnormal or 0.
inline uint16_t fp32_to_fp16(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint16_t sign = uint16_t((x >> 16) & 0x8000u);
  const uint32_t a = x & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return uint16_t(sign | 0x7E00u);
  const int32_t e = int32_t(a >> 23) - 127;  // unbiased exponent (f32 subnormals read as -127 -> 0)
  if (e > 15) return uint16_t(sign | 0x7C00u);
  if (e < -25) return sign;
  uint32_t m;      // significand bits to round
  int shift;       // low bits dropped
  uint32_t base;   // exponent field already placed
  if (e >= -14) {  // half normal: keep 10 of 23 mantissa bits; a carry bumps the exponent (to inf at the top)
    m = a & 0x7FFFFFu;
    shift = 13;
    base = uint32_t(e + 15) << 10;
  } else {         // half subnormal: value / 2^-24, significand with its implicit 1
    m = (a & 0x7FFFFFu) | 0x800000u;
    shift = -e - 1;  // 14..24
    base = 0;
  }
  uint32_t q = m >> shift;
  const uint32_t rem = m & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (q & 1u))) ++q;
  return uint16_t(sign | (base + q));
}

inline float bf16_to_fp32(uint16_t b) { return std::bit_cast<float>(uint32_t(b) << 16); }

inline uint16_t fp32_to_bf16(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return uint16_t((x >> 16) | 0x40u);  // keep NaN a (quiet) NaN
  return uint16_t((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
}

}  // namespace rooftop::kernels
