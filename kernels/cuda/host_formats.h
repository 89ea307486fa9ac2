// Host-side number formats and random weight generation for the GPU kernels (calibration and tests).
#pragma once
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/cuda/cuda_kernels.h"

namespace rooftop::cuda {

inline uint16_t float_to_bf16_bits(float f) {  // round to nearest even (inputs are finite)
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7fffu + ((u >> 16) & 1u);
  return uint16_t(u >> 16);
}
inline float bf16_bits_to_float(uint16_t b) {
  const uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint16_t float_to_half_bits(float f) { return __half_raw(__float2half_rn(f)).x; }
inline float half_bits_to_float(uint16_t b) {
  __half_raw r;
  r.x = b;
  return __half2float(__half(r));
}

// `rows` random rows of k values in format f (GGUF block layout for q8_0 / q4_1): values ~U(-1, 1);
// fp8 bytes avoid the NaN codes; block scales in [0.005, 0.02].
inline std::vector<uint8_t> random_rows(GpuFormat f, int64_t rows, int64_t k, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.f, 1.f), scale(0.005f, 0.02f);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> out(size_t(rows * gpu_row_bytes(f, k)));
  uint8_t* p = out.data();
  auto put16 = [&](uint16_t v) { std::memcpy(p, &v, 2); p += 2; };
  for (int64_t r = 0; r < rows; ++r) {
    if (f == GpuFormat::bf16) {
      for (int64_t i = 0; i < k; ++i) put16(float_to_bf16_bits(u(rng)));
    } else if (f == GpuFormat::fp8_e4m3) {
      for (int64_t i = 0; i < k; ++i) {
        int b = byte(rng);
        if ((b & 0x7f) == 0x7f) b &= 0xfe;  // 0x7f / 0xff are NaN
        *p++ = uint8_t(b);
      }
    } else {
      for (int64_t blk = 0; blk < k / 32; ++blk) {
        put16(float_to_half_bits(scale(rng)));
        if (f == GpuFormat::q4_1) put16(float_to_half_bits(-8 * scale(rng)));  // min
        if (f == GpuFormat::q8_0) {
          for (int i = 0; i < 32; ++i) *p++ = uint8_t(byte(rng));  // int8 in two's complement
        } else {
          for (int i = 0; i < 16; ++i) *p++ = uint8_t(byte(rng));  // two nibbles
        }
      }
    }
  }
  return out;
}

// n random fp16 or bf16 values ~U(-1, 1), as bytes.
inline std::vector<uint8_t> random_halves(int64_t n, bool bf16, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<uint8_t> out(size_t(2 * n));
  for (int64_t i = 0; i < n; ++i) {
    const float v = u(rng);
    const uint16_t b = bf16 ? float_to_bf16_bits(v) : float_to_half_bits(v);
    std::memcpy(out.data() + 2 * i, &b, 2);
  }
  return out;
}

}  // namespace rooftop::cuda
