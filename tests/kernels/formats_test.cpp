// Block geometry, fp16/bf16 conversion, bit-exact fast dequantization and quantization error bounds.
#include <catch2/catch.hpp>

#include <bit>
#include <cstring>

#include "base/suggest.h"
#include "kernels/cpu/blocks.h"
#include "kernels/cpu/half.h"
#include "tests/kernels/kernel_test_util.h"

using namespace rooftop::kernels;
using namespace rooftop::kernels::test;

TEST_CASE("block geometry matches ggml's type sizes", "[kernels][formats]") {
  // ggml type_traits: q4_0 18 B / 32, q4_1 20 B / 32, q5_0 22 B / 32, q5_1 24 B / 32, q8_0 34 B / 32,
  // q4_K 144 B / 256, q5_K 176 B / 256, q6_K 210 B / 256.
  CHECK(row_bytes(WeightFormat::q4_0, 4096) == 4096 / 32 * 18);
  CHECK(row_bytes(WeightFormat::q5_0, 4096) == 4096 / 32 * 22);
  CHECK(row_bytes(WeightFormat::q5_1, 4096) == 4096 / 32 * 24);
  CHECK(row_bytes(WeightFormat::q5_k, 4096) == 4096 / 256 * 176);
  CHECK(row_bytes(WeightFormat::q4_1, 4096) == 4096 / 32 * 20);
  CHECK(row_bytes(WeightFormat::q8_0, 4096) == 4096 / 32 * 34);
  CHECK(row_bytes(WeightFormat::q4_k, 4096) == 4096 / 256 * 144);
  CHECK(row_bytes(WeightFormat::q6_k, 4096) == 4096 / 256 * 210);
  CHECK(row_bytes(WeightFormat::f16, 7) == 14);
  CHECK(row_bytes(WeightFormat::bf16, 7) == 14);
  CHECK(row_bytes(WeightFormat::f32, 7) == 28);
  CHECK(std::string(format_name(WeightFormat::q4_k)) == "q4_k");
  CHECK_THROWS_AS(row_bytes(WeightFormat::q4_0, 48), rooftop::InternalError);
  CHECK_THROWS_AS(row_bytes(WeightFormat(9), 32), rooftop::InternalError);  // q8_1: not a weight format here
}

TEST_CASE("the kernels read a GGUF tensor type by its ggml id", "[kernels][formats]") {
  CHECK(weight_format(12) == WeightFormat::q4_k);  // ggml.h: GGML_TYPE_Q4_K = 12
  CHECK(weight_format(30) == WeightFormat::bf16);  // GGML_TYPE_BF16 = 30
  CHECK(weight_format(6) == WeightFormat::q5_0);
  CHECK(!weight_format(9).has_value());   // Q8_1: an activation format only
  CHECK(!weight_format(11).has_value());  // Q3_K: no kernel
  CHECK(!weight_format(1000).has_value());
  CHECK(weight_format_names() == "f32, f16, q4_0, q4_1, q5_0, q5_1, q8_0, q4_k, q5_k, q6_k, bf16");
}

TEST_CASE("fp16 round trip is exact for every half value", "[kernels][formats]") {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = fp16_to_fp32(uint16_t(h));
    if (std::isnan(f)) {
      CHECK(std::isnan(fp16_to_fp32(fp32_to_fp16(f))));
      continue;
    }
    REQUIRE(fp32_to_fp16(f) == h);
  }
  CHECK(fp16_to_fp32(0x3C00) == 1.0f);          // 1.0
  CHECK(fp16_to_fp32(0xC000) == -2.0f);         // -2.0
  CHECK(fp16_to_fp32(0x0001) == 0x1p-24f);      // smallest subnormal
  CHECK(fp16_to_fp32(0x7BFF) == 65504.0f);      // largest finite
  CHECK(fp32_to_fp16(65520.0f) == 0x7C00);      // halfway to 65536 rounds to even -> inf
  CHECK(fp32_to_fp16(1.0f + 0x1p-11f) == 0x3C00);  // tie between 1 and 1+2^-10 -> even (1)
  CHECK(fp32_to_fp16(1.0f + 0x1p-11f + 0x1p-20f) == 0x3C01);
}

TEST_CASE("fp16 and bf16 narrowing pick the nearest representable value", "[kernels][formats]") {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> e(-30.0f, 17.0f);
  for (int i = 0; i < 20000; ++i) {
    const float f = std::exp2(e(rng)) * (i % 2 ? -1.0f : 1.0f);
    const uint16_t h = fp32_to_fp16(f);
    const float hf = fp16_to_fp32(h);
    if (std::isinf(hf)) { CHECK(std::fabs(f) >= 65504.0f); continue; }
    // neighbours of h must not be strictly closer
    for (int dlt : {-1, 1}) {
      const uint16_t n = uint16_t(h + dlt);
      const float nf = fp16_to_fp32(n);
      if (std::isnan(nf) || std::signbit(nf) != std::signbit(hf)) continue;
      REQUIRE(std::fabs(double(nf) - f) >= std::fabs(double(hf) - f));
    }
    const float bf = bf16_to_fp32(fp32_to_bf16(f));
    REQUIRE(std::fabs(double(bf) - f) <= std::fabs(double(f)) * 0x1p-8);
  }
  CHECK(fp32_to_bf16(1.0f) == 0x3F80);
  CHECK(bf16_to_fp32(0xC040) == -3.0f);
}

TEST_CASE("q4_0 and q4_1 blocks decode as worked by hand", "[kernels][formats]") {
  // q4_0: d = 0.5 (fp16 0x3800); byte 0 = 0xA3 -> element 0 = (3 - 8) * 0.5 = -2.5, element 16 = (10 - 8) * 0.5 = 1.
  BlockQ4_0 b{};
  b.d = 0x3800;
  std::memset(b.qs, 0x88, 16);  // everything else 8 -> 0
  b.qs[0] = 0xA3;
  std::vector<float> y(32);
  dequantize_row_ref(WeightFormat::q4_0, reinterpret_cast<const std::byte*>(&b), y);
  CHECK(y[0] == -2.5f);
  CHECK(y[16] == 1.0f);
  CHECK(y[1] == 0.0f);
  // q4_1: d = 2 (0x4000), m = -1 (0xBC00); byte 15 = 0x71 -> element 15 = 1*2-1 = 1, element 31 = 7*2-1 = 13.
  BlockQ4_1 c{};
  c.d = 0x4000;
  c.m = 0xBC00;
  c.qs[15] = 0x71;
  dequantize_row_ref(WeightFormat::q4_1, reinterpret_cast<const std::byte*>(&c), y);
  CHECK(y[15] == 1.0f);
  CHECK(y[31] == 13.0f);
  CHECK(y[0] == -1.0f);
}

namespace {
// A q4_k or q5_k super-block with d = 1, dmin = 0.5 and sub-block 5's sc = 0b010011 = 19 (low 4 bits 3 in
// scales[9], top 2 bits 1 in scales[1] >> 6), m = 0b100010 = 34 (low 4 bits 2 in scales[9] >> 4, top 2 bits 2 in
// scales[5] >> 6). Element 5*32 + 7 = 167 lives in chunk 2, high nibble of qs[64 + 7]: its low four bits are 9.
template <class Block>
Block sub_block_5_block() {
  Block k{};
  k.d = 0x3C00;
  k.dmin = 0x3800;
  k.scales[9] = 0x23;
  k.scales[1] = 1 << 6;
  k.scales[5] = 2 << 6;
  k.qs[64 + 7] = 0x90;
  return k;
}
}  // namespace

TEST_CASE("q4_k and q6_k blocks decode as worked by hand", "[kernels][formats]") {
  // q4_k: d = 1, dmin = 0.5, sub-block 5 and element 167 as in sub_block_5_block: q = 9 -> 19 * 9 - 0.5 * 34 = 154.
  const auto k = sub_block_5_block<BlockQ4K>();
  std::vector<float> y(256);
  dequantize_row_ref(WeightFormat::q4_k, reinterpret_cast<const std::byte*>(&k), y);
  CHECK(y[167] == 154.0f);
  CHECK(y[160] == -17.0f);  // q = 0: -0.5 * 34
  // q6_k: d = 0.25, scales[9] = -4. Element 128 + 32 + 5 = 165 (sub-block 10 ... use 128 + 16 + 5 = 149,
  // sub-block 9): half 1, l = 21, first quarter: ql[64 + 21] low nibble 0xB, qh[32 + 21] bits 0-1 = 2
  // -> q = 0xB | 2 << 4 = 43 -> (43 - 32) * 0.25 * -4 = -11.
  BlockQ6K q{};
  q.d = 0x3400;
  std::memset(q.ql, 0, 128);
  q.scales[9] = -4;
  q.ql[64 + 21] = 0x0B;
  q.qh[32 + 21] = 2;
  dequantize_row_ref(WeightFormat::q6_k, reinterpret_cast<const std::byte*>(&q), y);
  CHECK(y[149] == -11.0f);
  CHECK(y[148] == 32.0f);  // q = 0 -> (0 - 32) * 0.25 * -4 = 32
}

TEST_CASE("q5_0, q5_1 and q5_k blocks decode as worked by hand", "[kernels][formats]") {
  std::vector<float> y(256);
  // q5_0: d = 0.5 (0x3800). Element 3: low nibble of qs[3] = 0xA, bit 3 of qh set -> q = 0x1A = 26 -> (26 - 16) * 0.5 = 5.
  // Element 20: high nibble of qs[4] = 0x2, bit 20 clear -> q = 2 -> (2 - 16) * 0.5 = -7. Element 0: q = 0 -> -8.
  BlockQ5_0 a{};
  a.d = 0x3800;
  a.qs[3] = 0x0A;
  a.qs[4] = 0x20;
  a.qh[0] = 1 << 3;
  dequantize_row_ref(WeightFormat::q5_0, reinterpret_cast<const std::byte*>(&a), std::span<float>(y.data(), 32));
  CHECK(y[3] == 5.0f);
  CHECK(y[20] == -7.0f);
  CHECK(y[0] == -8.0f);
  // q5_1: d = 2, m = -1. Element 31: high nibble of qs[15] = 0x7, bit 31 (qh[3] bit 7) set -> q = 23 -> 23 * 2 - 1 = 45.
  BlockQ5_1 b{};
  b.d = 0x4000;
  b.m = 0xBC00;
  b.qs[15] = 0x70;
  b.qh[3] = 0x80;
  dequantize_row_ref(WeightFormat::q5_1, reinterpret_cast<const std::byte*>(&b), std::span<float>(y.data(), 32));
  CHECK(y[31] == 45.0f);
  CHECK(y[15] == -1.0f);
  // q5_k: d = 1, dmin = 0.5, sub-block 5 scale 19 and min 34 packed as in sub_block_5_block. Element 167 = chunk 2,
  // high nibble of qs[64 + 7] = 9, fifth bit = bit 5 of qh[7] set -> q = 25 -> 19 * 25 - 0.5 * 34 = 458.
  auto k = sub_block_5_block<BlockQ5K>();
  k.qh[7] = 1 << 5;
  dequantize_row_ref(WeightFormat::q5_k, reinterpret_cast<const std::byte*>(&k), y);
  CHECK(y[167] == 458.0f);
  CHECK(y[160] == -17.0f);  // q = 0: -0.5 * 34
}

TEST_CASE("fast dequantization is bit-exact with the reference for every format and ISA", "[kernels][formats]") {
  std::mt19937 rng(2);
  for (WeightFormat f : all_formats()) {
    for (int64_t k0 : {32, 96, 256, 512, 1000}) {
      const int64_t k = round_k(f, k0);
      TestWeights w = make_weights(rng, f, 3, k);
      // also random bytes: every bit pattern of the quants (keep fp16 scales finite by re-quantizing a row)
      for (int64_t r = 0; r < 3; ++r) {
        const std::vector<float> ref = ref_row(w.view, r);
        const std::byte* src = w.bytes.data() + r * row_bytes(f, k);
        for (Isa isa : supported_isas()) {
          std::vector<float> fast(size_t(k), -1.0f);
          kernel_table(isa).dequantize(f, src, fast.data(), k);
          INFO(format_name(f) << " k=" << k << " isa=" << kernel_table(isa).name);
          REQUIRE(std::memcmp(fast.data(), ref.data(), size_t(k) * 4) == 0);
        }
        std::vector<float> pub(static_cast<size_t>(k));
        dequantize_row(f, src, pub);
        REQUIRE(std::memcmp(pub.data(), ref.data(), size_t(k) * 4) == 0);
      }
    }
  }
}

TEST_CASE("dequantization is bit-exact on random quant bytes", "[kernels][formats]") {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> byte(0, 255);
  for (WeightFormat f : {WeightFormat::q4_0, WeightFormat::q4_1, WeightFormat::q5_0, WeightFormat::q5_1,
                         WeightFormat::q8_0, WeightFormat::q4_k, WeightFormat::q5_k, WeightFormat::q6_k}) {
    const int64_t k = 512;
    TestWeights w = make_weights(rng, f, 1, k);  // valid fp16 scales ...
    const int64_t bb = block_bytes(f), nb = k / block_values(f);
    for (int64_t b = 0; b < nb; ++b) {           // ... with every quant byte randomized
      std::byte* blk = w.bytes.data() + b * bb;
      const bool two_scales = f == WeightFormat::q4_1 || f == WeightFormat::q5_1 || f == WeightFormat::q4_k ||
                              f == WeightFormat::q5_k;
      const int64_t lo = f == WeightFormat::q6_k ? 0 : (two_scales ? 4 : 2);
      const int64_t hi = f == WeightFormat::q6_k ? bb - 2 : bb;
      for (int64_t i = lo; i < hi; ++i) blk[i] = std::byte(byte(rng));
    }
    const std::vector<float> ref = ref_row(w.view, 0);
    for (Isa isa : supported_isas()) {
      std::vector<float> fast(static_cast<size_t>(k));
      kernel_table(isa).dequantize(f, w.bytes.data(), fast.data(), k);
      INFO(format_name(f) << " isa=" << kernel_table(isa).name);
      REQUIRE(std::memcmp(fast.data(), ref.data(), size_t(k) * 4) == 0);
    }
  }
}

TEST_CASE("quantize then dequantize stays within each format's step", "[kernels][formats]") {
  std::mt19937 rng(4);
  const int64_t k = 1024;
  for (WeightFormat f : all_formats()) {
    const std::vector<float> x = random_floats(rng, size_t(k));
    std::vector<std::byte> q(size_t(row_bytes(f, k)));
    quantize_row(f, x, q.data());
    std::vector<float> y(static_cast<size_t>(k));
    dequantize_row(f, q.data(), y);
    // Values lie in [-1, 1]. Max error: half a step of the grid (plus fp16 rounding of the scales).
    // q8_0: step 1/127; q4_0: 2/15 worst (range split in 15 steps, asymmetric); q4_1: range 2 / 15;
    // q4_k: sub-block range / 15 with 6-bit scale rounding; q6_k: 2/63 with 8-bit scale rounding.
    double max_err = 0;
    for (int64_t i = 0; i < k; ++i) max_err = std::max(max_err, std::fabs(double(y[size_t(i)]) - x[size_t(i)]));
    double bound = 0;
    switch (f) {
      case WeightFormat::f32: bound = 0; break;
      case WeightFormat::f16: bound = 1.0 / 2048; break;
      case WeightFormat::bf16: bound = 1.0 / 256; break;
      case WeightFormat::q8_0: bound = 0.5 / 127 + 1e-3; break;
      case WeightFormat::q4_0: bound = 1.0 / 8 + 1e-3; break;
      case WeightFormat::q4_1: bound = 1.0 / 15 + 1e-3; break;
      case WeightFormat::q5_0: bound = 1.0 / 16 + 1e-3; break;   // largest magnitude / 16 per step
      case WeightFormat::q5_1: bound = 1.0 / 31 + 1e-3; break;   // range 2 / 31
      case WeightFormat::q5_k: bound = 2.0 / 31 * 0.5 + 0.03; break;
      case WeightFormat::q4_k: bound = 2.0 / 15 * 0.5 + 0.05; break;
      case WeightFormat::q6_k: bound = 1.0 / 32 + 0.02; break;
    }
    INFO(format_name(f) << " max_err=" << max_err);
    CHECK(max_err <= bound);
  }
}

TEST_CASE("bad arguments are the caller's bug: InternalErrors", "[kernels][formats]") {
  std::vector<float> y(33);
  std::vector<std::byte> src(64);
  CHECK_THROWS_AS(dequantize_row(WeightFormat::q8_0, src.data(), y), rooftop::InternalError);
  CHECK_THROWS_AS(dequantize_row_ref(WeightFormat::q4_0, src.data(), y), rooftop::InternalError);
  CHECK_THROWS_AS(quantize_row(WeightFormat::q4_k, std::vector<float>(100, 1.0f), src.data()), rooftop::InternalError);
  std::vector<float> nan_row(32, 1.0f);
  nan_row[3] = std::nanf("");
  CHECK_THROWS_AS(quantize_row(WeightFormat::q8_0, nan_row, src.data()), rooftop::InternalError);
}
