// The bandwidth-law sweep's host arithmetic (the law, summary, JSON) and its no-device path (the plan: tests/validate).
#include <catch2/catch.hpp>

#include <random>

#include "base/suggest.h"
#include "kernels/cuda/gpu.h"

using namespace rooftop;

TEST_CASE("the plain law and its relative error") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.5, 2.0);
  for (int i = 0; i < 20; ++i) {
    gpu::GpuValidationPoint p;
    p.bytes_per_token = int64_t(1e9 * u(rng));
    p.seconds_median = 2.5e-4 * u(rng);
    const double bw = 4.4e12 * u(rng);
    gpu::apply_law(p, bw);
    CHECK(p.measured_tokens_per_s == Approx(1 / p.seconds_median));
    CHECK(p.achieved_bytes_per_s == Approx(double(p.bytes_per_token) / p.seconds_median));
    CHECK(p.predicted_tokens_per_s == Approx(bw / double(p.bytes_per_token)));
    // error = achieved bandwidth falls short of bw by this ratio: bw / achieved - 1.
    CHECK(p.relative_error == Approx(bw / p.achieved_bytes_per_s - 1));
  }
  gpu::GpuValidationPoint p;  // 1 GB at 250 us = 4 TB/s; law 4.4 TB/s -> 4400 vs 4000 tok/s, +10 %
  p.bytes_per_token = 1000000000;
  p.seconds_median = 2.5e-4;
  gpu::apply_law(p, 4.4e12);
  CHECK(p.relative_error == Approx(0.1));
  gpu::GpuValidationPoint bad;
  bad.bytes_per_token = 1000;
  REQUIRE_THROWS_AS(gpu::apply_law(bad, 4.4e12), InputError);  // seconds 0
}

TEST_CASE("summary is the median and max of |relative error|; JSON has every point") {
  gpu::GpuValidation v;
  REQUIRE_NOTHROW(gpu::summarize(v));
  CHECK(v.max_abs_relative_error == 0);
  for (double e : {0.1, -0.3, 0.2}) {
    gpu::GpuValidationPoint p;
    p.model = "llama-3.1-8b";
    p.format = "q4_1";
    p.relative_error = e;
    v.points.push_back(p);
  }
  gpu::summarize(v);
  CHECK(v.median_abs_relative_error == Approx(0.2));
  CHECK(v.max_abs_relative_error == Approx(0.3));
  v.points.pop_back();
  gpu::summarize(v);
  CHECK(v.median_abs_relative_error == Approx(0.2));  // (0.1 + 0.3) / 2
  const std::string j = gpu::to_json(v);
  CHECK_THAT(j, Catch::Contains("\"schema\": \"rooftop-gpu-validation-1\""));
  CHECK_THAT(j, Catch::Contains("\"predicted_tokens_per_s\""));
  CHECK_THAT(j, Catch::Contains("\"bound\": \"memory\""));
  CHECK_THAT(j, Catch::Contains("\"max_abs_error_memory_bound\": 0.3"));
}

TEST_CASE("validate with no device or a bad ordinal throws InputError naming the device") {
  const int n = gpu::device_count();
  try {
    gpu::validate(n, true, {});
    FAIL("validate(" << n << ") did not throw");
  } catch (const InputError& e) {
    REQUIRE_THAT(e.what(), Catch::Contains("no CUDA device cuda:" + std::to_string(n)));
  }
  REQUIRE_THROWS_AS(gpu::validate(-1, true, {}), InputError);
}
