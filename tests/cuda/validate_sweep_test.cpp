// The bandwidth-law sweep on a real GPU (needs a device; main.cpp skips with exit 77 otherwise): every
// supported (model, format) point is measured, finite, and no faster than the read bandwidth allows.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>

#include "kernels/cuda/gpu.h"

using namespace rooftop;

TEST_CASE("validate quick: ten points, each physically possible, summary consistent") {
  const gpu::GpuValidation v = gpu::validate(0, true);
  REQUIRE(v.memory_bandwidth_bytes_per_s > 1e11);
  // smollm2-135m has hidden 576: q8_0 (k % 256) and q4_1 (k % 128) cannot run; 12 - 2 = 10 points.
  REQUIRE(v.points.size() == 10);
  std::set<std::string> seen;
  double max_err = 0;
  for (const auto& p : v.points) {
    INFO(p.model << " " << p.format);
    seen.insert(p.model + "/" + p.format);
    for (const auto& m : gpu::validation_models())
      if (m.id == p.model) CHECK(p.bytes_per_token == gpu::decode_bytes_per_token(m, p.format, p.context));
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
