// Quantization error: seed 002's outlier worked by hand (one outlier, per-tensor against per-block scales),
// and the 6 dB per bit of a uniform quantizer on random weights.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "engine/quant_error.h"

using namespace rooftop;

TEST_CASE("seed 002: one outlier crushes a per-tensor int8 scale, a per-block scale confines it", "[engine][quant]") {
  // 256 weights of +-0.01 and one outlier of 10 at position 5. Per tensor: scale 10 / 127 = 0.0787, so
  // every small weight rounds to 0 and is off by 0.01: squared error 255 x 1e-4. q8_0's 32-value blocks:
  // only the outlier's block is crushed (31 x 1e-4); the other 7 blocks keep their weights to f16 precision.
  std::vector<float> w(256);
  for (size_t i = 0; i < w.size(); ++i) w[i] = i % 2 ? 0.01f : -0.01f;
  w[5] = 10.0f;
  const auto tensor = engine::quant_error(w, 256, "int8-tensor");
  const auto block = engine::quant_error(w, 256, "q8_0");
  CHECK(tensor.rmse == Approx(std::sqrt(255e-4 / 256)).epsilon(1e-3));
  CHECK(block.rmse == Approx(std::sqrt(31e-4 / 256)).epsilon(1e-2));
  CHECK(tensor.rmse * tensor.rmse / (block.rmse * block.rmse) == Approx(255.0 / 31).epsilon(0.02));
  // The outlier causes nearly all of the other weights' error in both: left out, the scales fit 0.01.
  CHECK(tensor.outlier_share > 0.99);
  CHECK(block.outlier_share > 0.99);
  CHECK(tensor.bits_per_weight == 8.0);
  CHECK(block.bits_per_weight == 8.5);  // 34 bytes per 32 values
}

TEST_CASE("on Gaussian weights, 8-bit blocks beat 4-bit blocks by the step ratio (about 24 dB)", "[engine][quant]") {
  // Same absmax block scaling, steps of amax/127 (q8_0) against amax/8 (q4_0): SNR differs by 20 log10(127/8).
  std::mt19937 gen(11);
  std::normal_distribution<float> g(0.0f, 0.02f);
  std::vector<float> w(64 * 1024);
  for (float& v : w) v = g(gen);
  const auto q8 = engine::quant_error(w, 1024, "q8_0");
  const auto q4 = engine::quant_error(w, 1024, "q4_0");
  CHECK(q8.snr_db - q4.snr_db == Approx(20.0 * std::log10(127.0 / 8.0)).margin(1.5));
  // No outliers: leaving out the largest 0.1% changes little.
  CHECK(q8.outlier_share < 0.1);
  // The k-quant of the same bits does better than q4_0 (sub-block scales and minimums).
  CHECK(engine::quant_error(w, 1024, "q4_k").snr_db > q4.snr_db);
}
