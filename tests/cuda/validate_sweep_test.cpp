// The bandwidth-law sweep on a real GPU (needs a device; main.cpp skips with exit 77 otherwise): every
// supported (model, format) point is measured, finite, and no faster than the read bandwidth allows.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>

#include "kernels/cuda/gpu.h"

using namespace rooftop;

namespace {
// The plan `rooftop validate --device cuda:0` runs (validate/local/gpu_plan.cpp builds it from the cards; this
// test links the CUDA module alone): the three shapes from their config.json files, and a plain count of the
// weights and the bf16 KV read as the bytes.
std::vector<gpu::GpuPlanPoint> hand_plan() {
  const gpu::GpuModelShape shapes[] = {{"smollm2-135m", 576, 1536, 9, 3, 64, 30, 49152},
                                       {"qwen2.5-1.5b", 1536, 8960, 12, 2, 128, 28, 151936},
                                       {"llama-3.1-8b", 4096, 14336, 32, 8, 128, 32, 128256}};
  std::vector<gpu::GpuPlanPoint> plan;
  for (const auto& m : shapes)
    for (const auto& f : gpu::validation_formats()) {
      const double bytes_per_value = f == "bf16" ? 2.0 : f == "fp8_e4m3" ? 1.0 : f == "q8_0" ? 34.0 / 32 : 20.0 / 32;
      const double q = double(m.heads * m.head_dim), kv = double(m.kv_heads * m.head_dim);
      const double layer = m.hidden * (2 * q + 2 * kv) + 3.0 * m.hidden * m.ffn;
      const double weights = (m.layers * layer + double(m.vocab) * m.hidden) * bytes_per_value;
      plan.push_back({m, f, gpu::kValidationContext, int64_t(weights + 2.0 * 2 * kv * gpu::kValidationContext * m.layers)});
    }
  return plan;
}
}  // namespace

TEST_CASE("validate quick: ten points, each physically possible, summary consistent") {
  const auto plan = hand_plan();
  const gpu::GpuValidation v = gpu::validate(0, true, plan);
  REQUIRE(v.memory_bandwidth_bytes_per_s > 1e11);
  // smollm2-135m has hidden 576: q8_0 (k % 256) and q4_1 (k % 128) cannot run; 12 - 2 = 10 points.
  REQUIRE(v.points.size() == 10);
  std::set<std::string> seen;
  double max_err = 0;
  for (const auto& p : v.points) {
    INFO(p.model << " " << p.format);
    seen.insert(p.model + "/" + p.format);
    CHECK(std::isfinite(p.relative_error));
    CHECK(p.seconds_median > 0);
    // Reading the bytes cannot beat the read kernel by more than timing noise (+10 %).
    CHECK(p.achieved_bytes_per_s < 1.1 * v.memory_bandwidth_bytes_per_s);
    max_err = std::max(max_err, std::fabs(p.relative_error));
  }
  CHECK(seen.count("llama-3.1-8b/q4_1") == 1);
  CHECK(seen.count("smollm2-135m/q8_0") == 0);
  CHECK(v.max_abs_relative_error == Approx(max_err));
  REQUIRE_FALSE(gpu::to_json(v).empty());
}
