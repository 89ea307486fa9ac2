// Scalar q8 activation quantizer and the scalar reference of the integer-dot GEMV (same algorithm as SIMD).
#include "kernels/cpu/q8_activations.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/cpu/blocks.h"
#include "kernels/cpu/half.h"

namespace rooftop::kernels {

bool gemv_uses_q8_activations(WeightFormat f) {
  switch (f) {
    case WeightFormat::q4_0: case WeightFormat::q4_1: case WeightFormat::q5_0: case WeightFormat::q5_1:
    case WeightFormat::q8_0: case WeightFormat::q4_k: case WeightFormat::q5_k: case WeightFormat::q6_k: return true;
    default: return false;
  }
}

void quantize_activations_q8_ref(std::span<const float> x, Q8Activations& out) {
  const int64_t k = int64_t(x.size()), nb = k / kQ8ActValues;
  out.resize(k);
  for (int64_t b = 0; b < nb; ++b) {
    const float* xb = x.data() + b * kQ8ActValues;
    float amax = 0;
    for (int j = 0; j < kQ8ActValues; ++j) amax = std::fmax(amax, std::fabs(xb[j]));
    const float d = amax / 127.0f, id = d != 0 ? 1.0f / d : 0.0f;
    int sum = 0;
    for (int j = 0; j < kQ8ActValues; ++j) {
      const int q = int(std::nearbyint(xb[j] * id));  // round half to even, as cvtps2dq
      out.q[size_t(b * kQ8ActValues + j)] = int8_t(q);
      sum += q;
    }
    out.d[size_t(b)] = d;
    out.sum_scaled[size_t(b)] = d * float(sum);
  }
}

namespace {

// y = sum over blocks of (dw * dx) * integer dot, plus the block's min term (m * dx * sum(qx)) where it has one.
// value(block, i) is element i's integer (offset already applied: q4_0's q - 8, q5_0's q - 16).
template <bool kMin, class Block, class Value>
float row_q32(const Block* w, const Q8Activations& xq, int64_t nb, Value value) {
  float acc = 0;
  for (int64_t b = 0; b < nb; ++b) {
    const int8_t* q = xq.q.data() + b * 32;
    int dot = 0;
    for (int i = 0; i < 32; ++i) dot += value(w[b], i) * q[i];
    float y = fp16_to_fp32(w[b].d) * xq.d[size_t(b)] * float(dot);
    if constexpr (kMin) y += fp16_to_fp32(w[b].m) * xq.sum_scaled[size_t(b)];
    acc += y;
  }
  return acc;
}

// Element i of a block of 16 nibble bytes: byte i % 16, low nibble for i < 16, high for i >= 16.
int nibble(const uint8_t* qs, int i) { return i < 16 ? qs[i] & 0xF : qs[i - 16] >> 4; }
// q5_0 / q5_1: the nibble plus bit i of the fifth-bit word as bit 4.
template <class Block>
int five_bits(const Block& b, int i) { return nibble(b.qs, i) | int((q5_high_bits(b.qh) >> i) & 1) << 4; }

float row_q4_0(const BlockQ4_0* w, const Q8Activations& xq, int64_t nb) {
  return row_q32<false>(w, xq, nb, [](const BlockQ4_0& b, int i) { return nibble(b.qs, i) - 8; });
}
float row_q4_1(const BlockQ4_1* w, const Q8Activations& xq, int64_t nb) {
  return row_q32<true>(w, xq, nb, [](const BlockQ4_1& b, int i) { return nibble(b.qs, i); });
}
float row_q5_0(const BlockQ5_0* w, const Q8Activations& xq, int64_t nb) {
  return row_q32<false>(w, xq, nb, [](const BlockQ5_0& b, int i) { return five_bits(b, i) - 16; });
}
float row_q5_1(const BlockQ5_1* w, const Q8Activations& xq, int64_t nb) {
  return row_q32<true>(w, xq, nb, [](const BlockQ5_1& b, int i) { return five_bits(b, i); });
}

float row_q8_0(const BlockQ8_0* w, const Q8Activations& xq, int64_t nb) {
  return row_q32<false>(w, xq, nb, [](const BlockQ8_0& b, int i) { return int(b.qs[i]); });
}

// q4_k / q5_k: sub-block j's 32 values Q(block, j, l) (0..15 or 0..31), d * sc * dx * dot - dmin * m * dx * sum(qx).
template <class Block, class Q>
float row_kquant(const Block* w, const Q8Activations& xq, int64_t nb, Q value) {
  float acc = 0;
  for (int64_t b = 0; b < nb; ++b) {
    const float d = fp16_to_fp32(w[b].d), dmin = fp16_to_fp32(w[b].dmin);
    for (int j = 0; j < 8; ++j) {
      uint8_t sc, m;
      q4k_scale_min(w[b].scales, j, sc, m);
      const int64_t xb = b * 8 + j;
      const int8_t* q = xq.q.data() + xb * 32;
      int dot = 0;
      for (int l = 0; l < 32; ++l) dot += value(w[b], j, l) * q[l];
      acc += d * float(sc) * xq.d[size_t(xb)] * float(dot) - dmin * float(m) * xq.sum_scaled[size_t(xb)];
    }
  }
  return acc;
}

// Sub-block j's nibbles: chunk j / 2 of 32 bytes, low nibbles for even j, high for odd.
int nibble_of(const uint8_t* qs, int j, int l) { return (qs[32 * (j / 2) + l] >> (4 * (j % 2))) & 0xF; }

float row_q4_k(const BlockQ4K* w, const Q8Activations& xq, int64_t nb) {
  return row_kquant(w, xq, nb, [](const BlockQ4K& blk, int j, int l) { return nibble_of(blk.qs, j, l); });
}

float row_q5_k(const BlockQ5K* w, const Q8Activations& xq, int64_t nb) {  // fifth bit j of qh[l]
  return row_kquant(w, xq, nb, [](const BlockQ5K& blk, int j, int l) { return nibble_of(blk.qs, j, l) | ((blk.qh[l] >> j) & 1) << 4; });
}

// Per activation block of 32 (two q6 sub-blocks of 16 with int8 scales): d * dx * sum(sc * (q - 32) * qx).
float row_q6_k(const BlockQ6K* w, const Q8Activations& xq, int64_t nb) {
  float acc = 0;
  for (int64_t b = 0; b < nb; ++b) {
    int q6[kQkValues];  // q - 32, in element order (decoded as in dequantize_ref.cpp)
    for (int half = 0; half < 2; ++half) {
      const uint8_t* ql = w[b].ql + 64 * half;
      const uint8_t* qh = w[b].qh + 32 * half;
      int* q = q6 + 128 * half;
      for (int l = 0; l < 32; ++l) {
        q[l] = int((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
        q[l + 32] = int((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
        q[l + 64] = int((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
        q[l + 96] = int((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
      }
    }
    const float d = fp16_to_fp32(w[b].d);
    for (int j = 0; j < 8; ++j) {
      const int64_t xb = b * 8 + j;
      const int8_t* q = xq.q.data() + xb * 32;
      int dot = 0;
      for (int h = 0; h < 2; ++h) {
        int sub = 0;
        for (int l = 0; l < 16; ++l) sub += q6[32 * j + 16 * h + l] * q[16 * h + l];
        dot += int(w[b].scales[2 * j + h]) * sub;
      }
      acc += d * xq.d[size_t(xb)] * float(dot);
    }
  }
  return acc;
}

}  // namespace

void sums_of_16(const Q8Activations& xq, int64_t k, float* out) {
  for (int64_t h = 0; h < k / 16; ++h) {
    int32_t sum = 0;
    for (int v = 0; v < 16; ++v) sum += xq.q[size_t(16 * h + v)];
    out[h] = xq.d[size_t(h / 2)] * float(sum);
  }
}

void interleave_q8_blocks16(Q8Activations& xq) {
  const int64_t nb = int64_t(xq.q.size()) / 32, groups = (nb + 15) / 16;
  xq.qt16.resize(size_t(groups * 512));
  if (nb % 16 != 0)  // padding blocks of the last group read as zeros (they meet zero weight bytes)
    std::memset(xq.qt16.data() + (groups - 1) * 512, 0, 512);
  for (int64_t g = 0; g < groups; ++g) {  // a 16 x 8 transpose of 4-byte words: called once per GEMV, keep it cheap
    const int64_t jn = std::min<int64_t>(16, nb - 16 * g);
    for (int s = 0; s < 4; ++s)
      for (int h = 0; h < 2; ++h)
        for (int64_t j = 0; j < jn; ++j)
          std::memcpy(xq.qt16.data() + g * 512 + (2 * s + h) * 64 + j * 4, xq.q.data() + (g * 16 + j) * 32 + h * 16 + 4 * s, 4);
  }
}

void gemv_q8_rows_ref(const WeightView& W, const Q8Activations& xq, float* y, int64_t r0, int64_t r1) {
  const int64_t rb = row_bytes(W.format, W.k), nb = W.k / block_values(W.format);
  for (int64_t r = r0; r < r1; ++r) {
    const std::byte* row = W.data + r * rb;
    switch (W.format) {
      case WeightFormat::q4_0: y[r] = row_q4_0(reinterpret_cast<const BlockQ4_0*>(row), xq, nb); break;
      case WeightFormat::q4_1: y[r] = row_q4_1(reinterpret_cast<const BlockQ4_1*>(row), xq, nb); break;
      case WeightFormat::q5_0: y[r] = row_q5_0(reinterpret_cast<const BlockQ5_0*>(row), xq, nb); break;
      case WeightFormat::q5_1: y[r] = row_q5_1(reinterpret_cast<const BlockQ5_1*>(row), xq, nb); break;
      case WeightFormat::q8_0: y[r] = row_q8_0(reinterpret_cast<const BlockQ8_0*>(row), xq, nb); break;
      case WeightFormat::q4_k: y[r] = row_q4_k(reinterpret_cast<const BlockQ4K*>(row), xq, nb); break;
      case WeightFormat::q5_k: y[r] = row_q5_k(reinterpret_cast<const BlockQ5K*>(row), xq, nb); break;
      case WeightFormat::q6_k: y[r] = row_q6_k(reinterpret_cast<const BlockQ6K*>(row), xq, nb); break;
      default: y[r] = 0; break;  // not an integer-dot format; callers check gemv_uses_q8_activations
    }
  }
}

}  // namespace rooftop::kernels
