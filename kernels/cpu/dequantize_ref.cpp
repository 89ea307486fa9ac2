// Scalar reference dequantization of one row, block by block, in ggml's element order.
#include <cstring>
#include <type_traits>

#include "kernels/cpu/blocks.h"
#include "kernels/cpu/checks.h"
#include "kernels/cpu/half.h"
#include "kernels/cpu/kernels.h"

namespace rooftop::kernels {
namespace {

void dequant_q4_0(const BlockQ4_0* b, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += 32) {
    const float d = fp16_to_fp32(b[i].d);
    for (int j = 0; j < 16; ++j) {
      y[j] = float(int(b[i].qs[j] & 0xF) - 8) * d;
      y[j + 16] = float(int(b[i].qs[j] >> 4) - 8) * d;
    }
  }
}

void dequant_q4_1(const BlockQ4_1* b, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += 32) {
    const float d = fp16_to_fp32(b[i].d), m = fp16_to_fp32(b[i].m);
    for (int j = 0; j < 16; ++j) {
      const float p0 = float(b[i].qs[j] & 0xF) * d, p1 = float(b[i].qs[j] >> 4) * d;
      y[j] = p0 + m;
      y[j + 16] = p1 + m;
    }
  }
}

void dequant_q5_0(const BlockQ5_0* b, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += 32) {
    const float d = fp16_to_fp32(b[i].d);
    const uint32_t h = q5_high_bits(b[i].qh);
    for (int j = 0; j < 16; ++j) {
      const int q0 = int((b[i].qs[j] & 0xF) | ((h >> j) & 1) << 4), q1 = int((b[i].qs[j] >> 4) | ((h >> (j + 16)) & 1) << 4);
      y[j] = float(q0 - 16) * d;
      y[j + 16] = float(q1 - 16) * d;
    }
  }
}

void dequant_q5_1(const BlockQ5_1* b, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += 32) {
    const float d = fp16_to_fp32(b[i].d), m = fp16_to_fp32(b[i].m);
    const uint32_t h = q5_high_bits(b[i].qh);
    for (int j = 0; j < 16; ++j) {
      const int q0 = int((b[i].qs[j] & 0xF) | ((h >> j) & 1) << 4), q1 = int((b[i].qs[j] >> 4) | ((h >> (j + 16)) & 1) << 4);
      const float p0 = float(q0) * d, p1 = float(q1) * d;
      y[j] = p0 + m;
      y[j + 16] = p1 + m;
    }
  }
}

void dequant_q8_0(const BlockQ8_0* b, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += 32) {
    const float d = fp16_to_fp32(b[i].d);
    for (int j = 0; j < 32; ++j) y[j] = float(b[i].qs[j]) * d;
  }
}

// q4_k and q5_k: 64 values per chunk, sub-blocks 2c (low nibbles) and 2c + 1 (high), each with a 6-bit scale and
// min. q5_k adds a fifth bit per value: sub-block j's fifth bits are bit j of qh[0..31].
template <class Block>
void dequant_q4_k_or_q5_k(const Block* b, float* y, int64_t nb) {
  constexpr bool fifth_bits = std::is_same_v<Block, BlockQ5K>;
  for (int64_t i = 0; i < nb; ++i) {
    const float d = fp16_to_fp32(b[i].d), dmin = fp16_to_fp32(b[i].dmin);
    for (int c = 0; c < 4; ++c) {
      uint8_t sc0, m0, sc1, m1;
      q4k_scale_min(b[i].scales, 2 * c, sc0, m0);
      q4k_scale_min(b[i].scales, 2 * c + 1, sc1, m1);
      const float d0 = d * float(sc0), mm0 = dmin * float(m0), d1 = d * float(sc1), mm1 = dmin * float(m1);
      const uint8_t* q = b[i].qs + 32 * c;
      for (int l = 0; l < 32; ++l) {
        int h0 = 0, h1 = 0;
        if constexpr (fifth_bits) {
          h0 = (b[i].qh[l] >> (2 * c)) & 1;
          h1 = (b[i].qh[l] >> (2 * c + 1)) & 1;
        }
        const float p0 = d0 * float((q[l] & 0xF) | h0 << 4), p1 = d1 * float((q[l] >> 4) | h1 << 4);
        y[l] = p0 - mm0;
        y[l + 32] = p1 - mm1;
      }
      y += 64;
    }
  }
}

void dequant_q6_k(const BlockQ6K* b, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i) {
    const float d = fp16_to_fp32(b[i].d);
    const uint8_t* ql = b[i].ql;
    const uint8_t* qh = b[i].qh;
    const int8_t* sc = b[i].scales;
    for (int half = 0; half < 2; ++half) {  // 128 values: ql 64 bytes, qh 32 bytes, 8 scales
      for (int l = 0; l < 32; ++l) {
        const int s = l / 16;
        const int q1 = int((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
        const int q2 = int((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
        const int q3 = int((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
        const int q4 = int((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
        y[l] = (d * float(sc[s])) * float(q1);
        y[l + 32] = (d * float(sc[s + 2])) * float(q2);
        y[l + 64] = (d * float(sc[s + 4])) * float(q3);
        y[l + 96] = (d * float(sc[s + 6])) * float(q4);
      }
      y += 128;
      ql += 64;
      qh += 32;
      sc += 8;
    }
  }
}

// 16-bit floats (fp16 or bf16, by `widen`) to f32, one value at a time.
template <float (*widen)(uint16_t)>
void dequant_half(const std::byte* src, float* y, int64_t k) {
  for (int64_t i = 0; i < k; ++i) {
    uint16_t h;
    std::memcpy(&h, src + 2 * i, 2);
    y[i] = widen(h);
  }
}

}  // namespace

// Scalar dequantization of k values (k % block_values(f) == 0) from src into dst; no checks.
void dequantize_blocks_ref(WeightFormat f, const std::byte* src, float* dst, int64_t k) {
  const int64_t nb = k / block_values(f);
  switch (f) {
    case WeightFormat::f32: std::memcpy(dst, src, size_t(k) * 4); return;
    case WeightFormat::f16: dequant_half<fp16_to_fp32>(src, dst, k); return;
    case WeightFormat::bf16: dequant_half<bf16_to_fp32>(src, dst, k); return;
    case WeightFormat::q4_0: dequant_q4_0(reinterpret_cast<const BlockQ4_0*>(src), dst, nb); return;
    case WeightFormat::q4_1: dequant_q4_1(reinterpret_cast<const BlockQ4_1*>(src), dst, nb); return;
    case WeightFormat::q5_0: dequant_q5_0(reinterpret_cast<const BlockQ5_0*>(src), dst, nb); return;
    case WeightFormat::q5_1: dequant_q5_1(reinterpret_cast<const BlockQ5_1*>(src), dst, nb); return;
    case WeightFormat::q8_0: dequant_q8_0(reinterpret_cast<const BlockQ8_0*>(src), dst, nb); return;
    case WeightFormat::q4_k: dequant_q4_k_or_q5_k(reinterpret_cast<const BlockQ4K*>(src), dst, nb); return;
    case WeightFormat::q5_k: dequant_q4_k_or_q5_k(reinterpret_cast<const BlockQ5K*>(src), dst, nb); return;
    case WeightFormat::q6_k: dequant_q6_k(reinterpret_cast<const BlockQ6K*>(src), dst, nb); return;
  }
}

void dequantize_row_ref(WeightFormat f, const std::byte* src, std::span<float> dst) {
  row_bytes(f, int64_t(dst.size()));  // validates the format and that dst is whole blocks
  if (src == nullptr && !dst.empty()) throw InternalError("dequantize_row_ref: source is null");
  dequantize_blocks_ref(f, src, dst.data(), int64_t(dst.size()));
}

}  // namespace rooftop::kernels
