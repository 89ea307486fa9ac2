// Weight format names and block geometry (values and bytes per block, bytes per row).
#include "kernels/cpu/kernels.h"

#include <string>

#include "base/errors.h"
#include "kernels/cpu/blocks.h"

namespace rooftop::kernels {

const char* format_name(WeightFormat f) {
  switch (f) {
    case WeightFormat::f32: return "f32";
    case WeightFormat::f16: return "f16";
    case WeightFormat::bf16: return "bf16";
    case WeightFormat::q4_0: return "q4_0";
    case WeightFormat::q4_1: return "q4_1";
    case WeightFormat::q5_0: return "q5_0";
    case WeightFormat::q5_1: return "q5_1";
    case WeightFormat::q8_0: return "q8_0";
    case WeightFormat::q4_k: return "q4_k";
    case WeightFormat::q5_k: return "q5_k";
    case WeightFormat::q6_k: return "q6_k";
  }
  throw InternalError("unsupported weight format id " + std::to_string(uint32_t(f)) +
                   "; expected one of f32(0), f16(1), q4_0(2), q4_1(3), q5_0(6), q5_1(7), q8_0(8), q4_k(12), q5_k(13), q6_k(14), bf16(30)");
}

int64_t block_values(WeightFormat f) {
  switch (f) {
    case WeightFormat::f32:
    case WeightFormat::f16:
    case WeightFormat::bf16: return 1;
    case WeightFormat::q4_0:
    case WeightFormat::q4_1:
    case WeightFormat::q5_0:
    case WeightFormat::q5_1:
    case WeightFormat::q8_0: return 32;
    case WeightFormat::q4_k:
    case WeightFormat::q5_k:
    case WeightFormat::q6_k: return kQkValues;
  }
  format_name(f);  // throws for an unknown id
  return 0;
}

int64_t block_bytes(WeightFormat f) {
  switch (f) {
    case WeightFormat::f32: return 4;
    case WeightFormat::f16:
    case WeightFormat::bf16: return 2;
    case WeightFormat::q4_0: return sizeof(BlockQ4_0);
    case WeightFormat::q4_1: return sizeof(BlockQ4_1);
    case WeightFormat::q5_0: return sizeof(BlockQ5_0);
    case WeightFormat::q5_1: return sizeof(BlockQ5_1);
    case WeightFormat::q8_0: return sizeof(BlockQ8_0);
    case WeightFormat::q4_k: return sizeof(BlockQ4K);
    case WeightFormat::q5_k: return sizeof(BlockQ5K);
    case WeightFormat::q6_k: return sizeof(BlockQ6K);
  }
  format_name(f);
  return 0;
}

int64_t row_bytes(WeightFormat f, int64_t k) {
  const int64_t bv = block_values(f);
  if (k < 0 || k % bv != 0)
    throw InternalError(std::string("row of ") + std::to_string(k) + " values is not a whole number of " +
                     format_name(f) + " blocks; expected a non-negative multiple of " + std::to_string(bv));
  return k / bv * block_bytes(f);
}

}  // namespace rooftop::kernels
