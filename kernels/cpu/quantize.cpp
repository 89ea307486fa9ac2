// Round-to-nearest quantizers for every weight format (tests, synthetic weights, benchmarks).
// They produce valid ggml blocks; the k-quants are simple min/max fits, not ggml's search-based ones.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/cpu/blocks.h"
#include "kernels/cpu/checks.h"
#include "kernels/cpu/half.h"
#include "kernels/cpu/kernels.h"

namespace rooftop::kernels {
namespace {

int clamp_round(float v, int lo, int hi) { return std::clamp(int(std::lround(v)), lo, hi); }

void quant_q8_0(const float* x, BlockQ8_0* b, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, x += 32) {
    float amax = 0;
    for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[j]));
    b[i].d = fp32_to_fp16(amax / 127.0f);
    const float d = fp16_to_fp32(b[i].d), id = d != 0 ? 1.0f / d : 0.0f;
    for (int j = 0; j < 32; ++j) b[i].qs[j] = int8_t(clamp_round(x[j] * id, -127, 127));
  }
}

// A 32-value block with one scale (q4_0: offset 8, q5_0: offset 16): the value of largest magnitude, with its sign,
// maps to q = 0, i.e. d = v / -offset; q = round(x / d) + offset in 0..2 offset - 1.
template <class Block>
void fit_symmetric(const float* x, int offset, Block& b, int q[32]) {
  float amax = 0, vmax = 0;
  for (int j = 0; j < 32; ++j)
    if (std::fabs(x[j]) > amax) amax = std::fabs(x[j]), vmax = x[j];
  b.d = fp32_to_fp16(vmax / -float(offset));
  const float d = fp16_to_fp32(b.d), id = d != 0 ? 1.0f / d : 0.0f;
  for (int j = 0; j < 32; ++j) q[j] = clamp_round(x[j] * id + float(offset), 0, 2 * offset - 1);
}

// A 32-value block with a scale and a minimum (q4_1: 15 levels, q5_1: 31): value = q * d + m.
template <class Block>
void fit_min(const float* x, int levels, Block& b, int q[32]) {
  const auto [lo, hi] = std::minmax_element(x, x + 32);
  b.d = fp32_to_fp16((*hi - *lo) / float(levels));
  b.m = fp32_to_fp16(*lo);
  const float d = fp16_to_fp32(b.d), m = fp16_to_fp32(b.m), id = d != 0 ? 1.0f / d : 0.0f;
  for (int j = 0; j < 32; ++j) q[j] = clamp_round((x[j] - m) * id, 0, levels);
}

// Values 0..15: byte j holds element j (low nibble) and element j + 16 (high).
template <class Block>
void pack_q4(const int q[32], Block& b) {
  for (int j = 0; j < 16; ++j) b.qs[j] = uint8_t(q[j] | (q[j + 16] << 4));
}

// Values 0..31: the nibbles as pack_q4, bit 4 of element i as bit i of the fifth-bit word.
template <class Block>
void pack_q5(const int q[32], Block& b) {
  uint32_t h = 0;
  for (int j = 0; j < 16; ++j) {
    b.qs[j] = uint8_t((q[j] & 0xF) | ((q[j + 16] & 0xF) << 4));
    h |= uint32_t(q[j] >> 4) << j | uint32_t(q[j + 16] >> 4) << (j + 16);
  }
  for (int i = 0; i < 4; ++i) b.qh[i] = uint8_t(h >> (8 * i));
}

// The 32-value legacy formats, one block at a time: fit the scale (and minimum) with `param` (the offset or the
// number of levels), then pack the integer values.
template <class Block>
void quant_blocks(const float* x, std::byte* dst, int64_t nb, void (*fit)(const float*, int, Block&, int[32]),
                  int param, void (*pack)(const int[32], Block&)) {
  auto* b = reinterpret_cast<Block*>(dst);
  for (int64_t i = 0; i < nb; ++i, x += 32) {
    int q[32];
    fit(x, param, b[i], q);
    pack(q, b[i]);
  }
}

// q4_K / q5_K: per sub-block of 32, value ~= scale * q - min (q in 0..levels, min >= 0), the 8 scales and mins
// as 6-bit multiples of the fp16 super-scales d and dmin. Fills d, dmin, the packed scales and q (256 values).
void kquant_fit(const float* x, int levels, uint16_t& d16, uint16_t& dmin16, uint8_t packed[12], int q[kQkValues]) {
  float scale[8], mins[8];
  for (int j = 0; j < 8; ++j) {
    const auto [lo, hi] = std::minmax_element(x + 32 * j, x + 32 * j + 32);
    const float mn = std::min(*lo, 0.0f);
    scale[j] = (*hi - mn) / float(levels);
    mins[j] = -mn;
  }
  const float smax = *std::max_element(scale, scale + 8), mmax = *std::max_element(mins, mins + 8);
  d16 = fp32_to_fp16(smax / 63.0f);
  dmin16 = fp32_to_fp16(mmax / 63.0f);
  const float d = fp16_to_fp32(d16), dmin = fp16_to_fp32(dmin16);
  uint8_t sc[8], mq[8];
  for (int j = 0; j < 8; ++j) {
    sc[j] = uint8_t(d != 0 ? clamp_round(scale[j] / d, 0, 63) : 0);
    mq[j] = uint8_t(dmin != 0 ? clamp_round(mins[j] / dmin, 0, 63) : 0);
  }
  std::memset(packed, 0, 12);
  for (int j = 0; j < 4; ++j) {
    packed[j] = uint8_t(sc[j] | ((sc[j + 4] >> 4) << 6));
    packed[j + 4] = uint8_t(mq[j] | ((mq[j + 4] >> 4) << 6));
    packed[j + 8] = uint8_t((sc[j + 4] & 0xF) | ((mq[j + 4] & 0xF) << 4));
  }
  for (int j = 0; j < 8; ++j) {
    const float dj = d * float(sc[j]), mj = dmin * float(mq[j]), id = dj != 0 ? 1.0f / dj : 0.0f;
    for (int l = 0; l < 32; ++l) q[32 * j + l] = clamp_round((x[32 * j + l] + mj) * id, 0, levels);
  }
}

void quant_q4_k(const float* x, BlockQ4K* b, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, x += kQkValues) {
    int q[kQkValues];
    kquant_fit(x, 15, b[i].d, b[i].dmin, b[i].scales, q);
    for (int c = 0; c < 4; ++c)  // chunk c: sub-block 2c in the low nibbles, 2c + 1 in the high
      for (int l = 0; l < 32; ++l) b[i].qs[32 * c + l] = uint8_t(q[64 * c + l] | (q[64 * c + 32 + l] << 4));
  }
}

void quant_q5_k(const float* x, BlockQ5K* b, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, x += kQkValues) {
    int q[kQkValues];
    kquant_fit(x, 31, b[i].d, b[i].dmin, b[i].scales, q);
    std::memset(b[i].qh, 0, 32);
    for (int c = 0; c < 4; ++c)
      for (int l = 0; l < 32; ++l) {
        const int lo = q[64 * c + l], hi = q[64 * c + 32 + l];
        b[i].qs[32 * c + l] = uint8_t((lo & 0xF) | ((hi & 0xF) << 4));
        b[i].qh[l] = uint8_t(b[i].qh[l] | ((lo >> 4) << (2 * c)) | ((hi >> 4) << (2 * c + 1)));
      }
  }
}

void quant_q6_k(const float* x, BlockQ6K* b, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, x += kQkValues) {
    float scale[16];  // per sub-block of 16: the signed value of largest magnitude maps to q - 32 = -32
    float amax_all = 0;
    for (int j = 0; j < 16; ++j) {
      float amax = 0, vmax = 0;
      for (int l = 0; l < 16; ++l)
        if (std::fabs(x[16 * j + l]) > amax) amax = std::fabs(x[16 * j + l]), vmax = x[16 * j + l];
      scale[j] = vmax / -32.0f;
      amax_all = std::max(amax_all, std::fabs(scale[j]));
    }
    b[i].d = fp32_to_fp16(amax_all / 127.0f);
    const float d = fp16_to_fp32(b[i].d);
    uint8_t L[kQkValues];
    for (int j = 0; j < 16; ++j) {
      b[i].scales[j] = int8_t(d != 0 ? clamp_round(scale[j] / d, -128, 127) : 0);
      const float dj = d * float(b[i].scales[j]), id = dj != 0 ? 1.0f / dj : 0.0f;
      for (int l = 0; l < 16; ++l) L[16 * j + l] = uint8_t(clamp_round(x[16 * j + l] * id, -32, 31) + 32);
    }
    for (int h = 0; h < 2; ++h) {
      const uint8_t* q = L + 128 * h;
      uint8_t* ql = b[i].ql + 64 * h;
      uint8_t* qh = b[i].qh + 32 * h;
      for (int l = 0; l < 32; ++l) {
        ql[l] = uint8_t((q[l] & 0xF) | ((q[l + 64] & 0xF) << 4));
        ql[l + 32] = uint8_t((q[l + 32] & 0xF) | ((q[l + 96] & 0xF) << 4));
        qh[l] = uint8_t((q[l] >> 4) | ((q[l + 32] >> 4) << 2) | ((q[l + 64] >> 4) << 4) | ((q[l + 96] >> 4) << 6));
      }
    }
  }
}

}  // namespace

void quantize_row(WeightFormat f, std::span<const float> src, std::byte* dst) {
  const int64_t k = int64_t(src.size());
  row_bytes(f, k);  // validates format and block multiple
  if (dst == nullptr && k > 0) throw InternalError("quantize_row: destination is null");
  for (float v : src)
    if (!std::isfinite(v)) throw InternalError(std::string("quantize_row: input holds a non-finite value; expected finite floats"));
  const int64_t nb = k / block_values(f);
  switch (f) {
    case WeightFormat::f32: std::memcpy(dst, src.data(), size_t(k) * 4); return;
    case WeightFormat::f16:
      for (int64_t i = 0; i < k; ++i) {
        const uint16_t h = fp32_to_fp16(src[size_t(i)]);
        std::memcpy(dst + 2 * i, &h, 2);
      }
      return;
    case WeightFormat::bf16:
      for (int64_t i = 0; i < k; ++i) {
        const uint16_t h = fp32_to_bf16(src[size_t(i)]);
        std::memcpy(dst + 2 * i, &h, 2);
      }
      return;
    case WeightFormat::q4_0: return quant_blocks(src.data(), dst, nb, fit_symmetric<BlockQ4_0>, 8, pack_q4<BlockQ4_0>);
    case WeightFormat::q4_1: return quant_blocks(src.data(), dst, nb, fit_min<BlockQ4_1>, 15, pack_q4<BlockQ4_1>);
    case WeightFormat::q5_0: return quant_blocks(src.data(), dst, nb, fit_symmetric<BlockQ5_0>, 16, pack_q5<BlockQ5_0>);
    case WeightFormat::q5_1: return quant_blocks(src.data(), dst, nb, fit_min<BlockQ5_1>, 31, pack_q5<BlockQ5_1>);
    case WeightFormat::q8_0: quant_q8_0(src.data(), reinterpret_cast<BlockQ8_0*>(dst), nb); return;
    case WeightFormat::q4_k: quant_q4_k(src.data(), reinterpret_cast<BlockQ4K*>(dst), nb); return;
    case WeightFormat::q5_k: quant_q5_k(src.data(), reinterpret_cast<BlockQ5K*>(dst), nb); return;
    case WeightFormat::q6_k: quant_q6_k(src.data(), reinterpret_cast<BlockQ6K*>(dst), nb); return;
  }
}

}  // namespace rooftop::kernels
