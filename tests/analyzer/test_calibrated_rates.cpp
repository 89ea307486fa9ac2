// The calibration key grammar: where each key is filed, what is refused, and that entries() writes back what set() read.
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "analyzer/calibrated_rates.h"

using rooftop::CalibratedRates;

TEST_CASE("each calibration key lands in its typed field", "[calibration]") {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(1.0, 2.0);
  CalibratedRates c;
  const double stream = 20e9 * u(rng), arith = 50e9 * u(rng), pack = 6e9 * u(rng), large = 1e12 * u(rng);
  REQUIRE(c.set("gemv_q4_k_stream_k1536_bytes_per_s", stream));
  REQUIRE(c.set("gemv_batch16_q4_k_arith_k576_flops_per_s", arith));
  REQUIRE(c.set("gemm_f16_pack_bytes_per_s", pack));                // the kernels' "f16" is the analyzer's fp16
  REQUIRE(c.set("gemm_f16_marginal_large_flops_per_s", large));
  REQUIRE(c.set("attention_f32_bytes_per_s", 9e9));
  REQUIRE(c.set("attention_prefill_f32_flops_per_s", 80e9));
  REQUIRE(c.set("attention_prefill_f32_marginal_flops_per_s", 95e9));
  REQUIRE(c.set("overhead_attention_row_s", 7e-8));
  REQUIRE(c.set("gemm_f16_dram_bytes_per_s", 15e9));
  REQUIRE(c.set("cache_resident_bytes", 190e6));
  REQUIRE(c.set("overhead_region_start_s", 0.0));                    // 0 is a measurement: no start cost seen
  REQUIRE(c.formats.size() == 2);
  CHECK(c.format("q4_k")->gemv.stream_bytes_per_s == rooftop::WidthRates{{1536.0, stream}});
  CHECK(c.format("q4_k")->batch16.arith_flops == rooftop::WidthRates{{576.0, arith}});
  CHECK(c.format("q4_k")->batch4.arith_flops.empty());
  CHECK(c.format("fp16")->gemm.pack_bytes_per_s == pack);
  CHECK(c.format("f16") == c.format("fp16"));
  CHECK(c.format("fp16")->gemm.marginal_large_flops_per_s == large);
  CHECK(!c.format("fp16")->gemm.has_pack_model());                   // its marginal rate is not measured
  CHECK(c.format("q8_0") == nullptr);
  CHECK(c.attention_bytes_per_s.at("fp32") == 9e9);
  CHECK(c.attention_prefill_flops_per_s == 80e9);
  CHECK(c.attention_prefill_marginal_flops_per_s == 95e9);
  CHECK(c.overhead.attention_row_s == 7e-8);
  CHECK(c.format("fp16")->gemm.dram_bytes_per_s == 15e9);
  CHECK(c.cache_resident_bytes == 190e6);
  CHECK(c.overhead.region_start_s == 0.0);
  CHECK(!c.overhead.per_layer_s);
  CHECK(c.reported.empty());
}

TEST_CASE("figures shown but not priced are kept under their own keys", "[calibration]") {
  CalibratedRates c;
  for (const char* key : {"gemv_q4_1_m1536_k576_bytes_per_s", "gemm_q8_0_n16_flops_per_s", "l2_bytes_per_s",
                          "stream_triad_bytes_per_s", "sgemm_openblas_m1536_k576_flops_per_s",
                          "gemm_q4_1_dequant_sgemm_openblas_flops_per_s", "gemv_q4_1_fraction_of_ceiling", "copy_bytes_per_s",
                          "memory_bandwidth_1thread_bytes_per_s", "joules_per_token", "attention_prefill_f32_p64_flops_per_s",
                          "gemm_q4_1_n16_dram_flops_per_s", "gemm_q8_0_m1536_k576_n16_flops_per_s",
                          "gemm_q4_1_pack_k576_fraction_of_ceiling"})
    CHECK(c.set(key, 3.0));
  CHECK(c.formats.empty());  // nothing priced
  CHECK(c.attention_prefill_flops_per_s == 0);  // the 64-token run is shown, not priced
  CHECK(c.reported.size() == 14);
  CHECK(!c.empty());
}

TEST_CASE("a key outside the grammar, an unknown format or a bad value is refused and changes nothing", "[calibration]") {
  CalibratedRates c;
  for (const char* key : {"gemv_q4_1_strem_k576_bytes_per_s", "gemv_q4_9_bytes_per_s", "gemm_q4_1_marginal_bytes",
                          "gemv_q4_1_stream_k05_bytes_per_s", "gemv_q4_1_stream_k1234567890_bytes_per_s",
                          "overhead_per_layer", "attention_q4_1x_bytes_per_s", "gemv_batch8_q4_1_bytes_per_s",
                          "attention_prefill_f32_p_flops_per_s", "attention_prefill_f32_pxx_flops_per_s", "attention_prefill_q4_9_marginal_flops_per_s",
                          "gemm_q4_1_nx_dram_bytes_per_s", "gemm_q4_1_m1536_k576_n_flops_per_s", "gemm_q4_1_pack_k_bytes_per_s",
                          ""})
    CHECK_FALSE(c.set(key, 1.0));
  CHECK_FALSE(c.set("gemv_q4_1_bytes_per_s", -1.0));
  CHECK_FALSE(c.set("gemv_q4_1_bytes_per_s", std::nan("")));
  CHECK_FALSE(c.set("gemv_q4_1_stream_k576_bytes_per_s", 0.0));  // a rate of 0 would price an op at infinite time
  CHECK(c.empty());
  CHECK(c.set("overhead_per_step_s", 0.0));  // a fixed cost of 0 is a measurement
  CHECK_FALSE(c.empty());
  CHECK(c.formats.empty());
}

TEST_CASE("entries() writes back the keys set() read, and set() of them rebuilds the same rates", "[calibration]") {
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(1.0, 100.0);
  CalibratedRates a;
  const char* keys[] = {"gemv_f32_bytes_per_s", "gemv_q8_0_arith_flops_per_s", "gemv_q8_0_arith_k4096_flops_per_s",
                        "gemv_q8_0_arith_k576_flops_per_s", "gemv_batch4_q6_k_stream_k14336_bytes_per_s",
                        "gemv_batch4_q6_k_flops_per_s", "gemm_q4_0_flops_per_s", "gemm_q4_0_marginal_flops_per_s",
                        "gemm_q4_0_act_bytes_per_s", "attention_f16_bytes_per_s", "overhead_per_value_s",
                        "overhead_sync_per_layer_s", "l1_bytes_per_s", "gemm_bf16_m1536_k576_flops_per_s",
                        "attention_prefill_f32_marginal_flops_per_s", "overhead_attention_row_s", "attention_prefill_f32_p64_flops_per_s",
                        "gemm_q4_0_dram_bytes_per_s", "cache_resident_bytes", "gemm_q4_0_pack_k576_bytes_per_s"};
  for (const char* k : keys) REQUIRE(a.set(k, u(rng)));
  const auto written = a.entries();
  CHECK(written.size() == std::size(keys));
  for (const char* k : keys) CHECK(written.count(k) == 1);
  CalibratedRates b;
  for (const auto& [k, v] : written) REQUIRE(b.set(k, v));
  CHECK(b.entries() == written);
  // Widths come out sorted whatever order they went in.
  CHECK(b.format("q8_0")->gemv.arith_flops.front().first == 576);
}

TEST_CASE("a rate between two measured widths is interpolated in log k", "[calibration]") {
  const rooftop::WidthRates r{{576, 20e9}, {2304, 40e9}};
  // 1152 is halfway between 576 and 2304 in log2 (9.17, 10.17, 11.17): halfway in rate.
  CHECK(rooftop::rate_at_width(r, 1152) == Approx(30e9));
  CHECK(rooftop::rate_at_width(r, 100) == 20e9);    // the end values beyond the measured widths
  CHECK(rooftop::rate_at_width(r, 16384) == 40e9);
}
