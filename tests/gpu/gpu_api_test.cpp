// The GPU API everywhere: with no device it says why and calibrate throws InputError; with one, a bad
// ordinal throws InputError.
#include <catch2/catch.hpp>

#include "base/suggest.h"
#include "kernels/cuda/gpu.h"

using namespace rooftop;

TEST_CASE("device_count never throws and agrees with no_device_reason") {
  int n = -1;
  REQUIRE_NOTHROW(n = gpu::device_count());
  REQUIRE(n >= 0);
  if (n == 0) {
    REQUIRE_FALSE(gpu::no_device_reason().empty());
  } else {
    REQUIRE(gpu::no_device_reason().empty());
  }
}

TEST_CASE("calibrate with no device or a bad ordinal throws InputError naming the device") {
  const int n = gpu::device_count();
  try {
    gpu::calibrate(n, true);  // ordinal n never exists
    FAIL("calibrate(" << n << ") did not throw");
  } catch (const InputError& e) {
    REQUIRE_THAT(e.what(), Catch::Contains("no CUDA device cuda:" + std::to_string(n)));
  }
  REQUIRE_THROWS_AS(gpu::calibrate(-1, true), InputError);
}

TEST_CASE("to_json writes absent measurements as null with a note") {
  gpu::GpuCalibration c;
  c.machine.name = "Test GPU";
  c.memory_bandwidth_bytes_per_s = 4.3e12;
  c.peak_flops = {{"bf16", 7.9e14}};
  gpu::GpuKernelResult k;
  k.name = "gemv_q4_1";
  k.dram_bytes_counted = 1000;
  k.dram_bytes_note = "CUPTI range profiler unavailable: test";
  c.kernels.push_back(k);
  c.power_note = "NVML not available";
  const std::string j = gpu::to_json(c);
  REQUIRE_THAT(j, Catch::Contains("\"memory_bandwidth_bytes_per_s\": 4.3e+12") ||
                  Catch::Contains("\"memory_bandwidth_bytes_per_s\": 4300000000000.0"));
  REQUIRE_THAT(j, Catch::Contains("\"dram_bytes_measured\": null"));
  REQUIRE_THAT(j, Catch::Contains("\"power_watts_during_decode\": null"));
  REQUIRE_THAT(j, Catch::Contains("\"bf16\": 790000000000000.0") || Catch::Contains("\"bf16\": 7.9e+14"));
  REQUIRE(j.find("nan") == std::string::npos);
}
