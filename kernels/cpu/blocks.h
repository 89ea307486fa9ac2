// ggml/GGUF block layouts (byte-exact with ggml-common.h): q4_0, q4_1, q5_0, q5_1, q8_0, q4_K, q5_K, q6_K.
#pragma once
#include <cstdint>

#include "formats/ggml_types.h"

namespace rooftop::kernels {

constexpr int kQ4_0Values = 32;
constexpr int kQ4_1Values = 32;
constexpr int kQ8_0Values = 32;
constexpr int kQkValues = 256;  // QK_K: values per k-quant super-block

// value[i] = (q[i] - 8) * d; byte j holds element j (low nibble) and element j + 16 (high nibble).
struct BlockQ4_0 {
  uint16_t d;       // fp16 scale
  uint8_t qs[16];
};
// value[i] = q[i] * d + m; same nibble order as q4_0.
struct BlockQ4_1 {
  uint16_t d;       // fp16 scale
  uint16_t m;       // fp16 min
  uint8_t qs[16];
};
// value[i] = (q[i] - 16) * d, q 5-bit: the nibble as in q4_0, bit 4 = bit i of qh (little-endian uint32).
struct BlockQ5_0 {
  uint16_t d;       // fp16 scale
  uint8_t qh[4];    // fifth bits of the 32 values
  uint8_t qs[16];
};
// value[i] = q[i] * d + m, q 5-bit as in q5_0.
struct BlockQ5_1 {
  uint16_t d;       // fp16 scale
  uint16_t m;       // fp16 min
  uint8_t qh[4];
  uint8_t qs[16];
};
// value[i] = q[i] * d.
struct BlockQ8_0 {
  uint16_t d;       // fp16 scale
  int8_t qs[32];
};
// 8 sub-blocks of 32: value = d * sc[j] * q - dmin * m[j], sc/m 6-bit packed in `scales`.
// qs: 4 chunks of 32 bytes; chunk c holds sub-block 2c in low nibbles, 2c + 1 in high nibbles.
struct BlockQ4K {
  uint16_t d;          // fp16 super-scale of the sub-block scales
  uint16_t dmin;       // fp16 super-scale of the sub-block mins
  uint8_t scales[12];  // j < 4: sc = s[j] & 63, m = s[j+4] & 63; j >= 4: low 4 bits in s[j+4], top 2 in s[j-4]/s[j] >> 6
  uint8_t qs[128];
};
// q4_K with a fifth bit: value = d * sc[j] * q - dmin * m[j], q = nibble as in q4_K + 16 * bit j of qh[l]
// (element l of sub-block j, l < 32).
struct BlockQ5K {
  uint16_t d;
  uint16_t dmin;
  uint8_t scales[12];  // packed as in q4_K
  uint8_t qh[32];
  uint8_t qs[128];
};
// 16 sub-blocks of 16: value = d * scales[i / 16] * (q - 32), q 6-bit = 4 low bits in ql, 2 high bits in qh.
struct BlockQ6K {
  uint8_t ql[128];
  uint8_t qh[64];
  int8_t scales[16];
  uint16_t d;          // fp16 super-scale
};

// Each struct is its ggml type's block, byte for byte (formats/ggml_types.h holds the geometry once).
template <class Block>
constexpr bool is_ggml_block(uint32_t id, int64_t values) {
  return formats::ggml_type_info(id)->block_bytes == int64_t(sizeof(Block)) &&
         formats::ggml_type_info(id)->block_values == values;
}
static_assert(is_ggml_block<BlockQ4_0>(2, kQ4_0Values));
static_assert(is_ggml_block<BlockQ4_1>(3, kQ4_1Values));
static_assert(is_ggml_block<BlockQ5_0>(6, 32));
static_assert(is_ggml_block<BlockQ5_1>(7, 32));
static_assert(is_ggml_block<BlockQ8_0>(8, kQ8_0Values));
static_assert(is_ggml_block<BlockQ4K>(12, kQkValues));
static_assert(is_ggml_block<BlockQ5K>(13, kQkValues));
static_assert(is_ggml_block<BlockQ6K>(14, kQkValues));

// q4_K 6-bit scale and min of sub-block j (0..7).
inline void q4k_scale_min(const uint8_t* s, int j, uint8_t& sc, uint8_t& m) {
  if (j < 4) {
    sc = s[j] & 63;
    m = s[j + 4] & 63;
  } else {
    sc = uint8_t((s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4));
    m = uint8_t((s[j + 4] >> 4) | ((s[j] >> 6) << 4));
  }
}

// The 32 fifth bits of a q5_0 / q5_1 block (bit i = value i).
inline uint32_t q5_high_bits(const uint8_t qh[4]) {
  return uint32_t(qh[0]) | uint32_t(qh[1]) << 8 | uint32_t(qh[2]) << 16 | uint32_t(qh[3]) << 24;
}

}  // namespace rooftop::kernels
