// Random weight matrices in any format, for benchmarks: distinct rows quantized once, tiled over m rows.
#pragma once
#include <cstdint>

#include "kernels/cpu/kernels.h"
#include "base/buffer.h"

namespace rooftop::kernels {

struct RandomWeights {
  AlignedBytes storage;     // m * row_bytes(format, k) bytes, every byte written
  WeightView view;          // W (m, k) over storage
};

// W (m, k) in `format`: 16 distinct rows of values uniform in +-[0.1, 1) (never zero) from mt19937(seed),
// quantized with kernels::quantize_row, repeated down the m rows (the memory traffic is the real size).
RandomWeights random_weights(WeightFormat format, int64_t m, int64_t k, uint32_t seed);

}  // namespace rooftop::kernels
