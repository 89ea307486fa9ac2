// rooftop validate: the error arithmetic on fixed inputs, and one real sweep point on a toy shape.
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "analyzer/model_spec.h"
#include "toy_model.h"
#include "hwdb/hwdb.h"
#include "kernels/cpu/thread_pool.h"
#include "validate/local/decode.h"
#include "reports/validation_render.h"
#include "reports/validation.h"
#include "validate/local/sweep.h"

using namespace rooftop;
using namespace rooftop::validate;

namespace {

ValidatePoint point(const char* bound, double predicted, double measured, double law, double bw_fraction = 0.9) {
  ValidatePoint p;
  p.bound = bound;
  p.bandwidth_fraction = bw_fraction;
  p.predicted_tokens_per_s = predicted;
  p.measured_tokens_per_s = measured;
  p.relative_error = relative_error(predicted, measured);
  p.law_relative_error = relative_error(law, measured);
  return p;
}

ModelSpec toy() { return rooftop::test::toy_model(); }

}  // namespace

TEST_CASE("relative error is predicted / measured - 1", "[validate]") {
  CHECK(relative_error(120.0, 100.0) == Approx(0.20));   // over-predicts by 20%
  CHECK(relative_error(75.0, 100.0) == Approx(-0.25));   // under-predicts by 25%
  CHECK(relative_error(3.7, 3.7) == Approx(0.0).margin(1e-15));
  CHECK_THROWS_AS(relative_error(1.0, 0.0), std::invalid_argument);
  CHECK_THROWS_AS(relative_error(1.0, std::nan("")), std::invalid_argument);
}

TEST_CASE("median of odd and even counts, and of no values", "[validate]") {
  CHECK(median({3.0, 1.0, 2.0}) == 2.0);
  CHECK(median({4.0, 1.0, 3.0, 2.0}) == 2.5);  // (2 + 3) / 2
  CHECK_THROWS_AS(median({}), std::invalid_argument);
}

TEST_CASE("summary splits memory-bound and compute-bound points and takes |error|", "[validate]") {
  // Memory-bound errors +10%, -30%, +5%  -> |e| sorted 0.05, 0.10, 0.30: median 0.10, max 0.30.
  // Compute-bound errors -50%, +20%      -> |e| 0.20, 0.50: median 0.35, max 0.50.
  // Law errors over all five: +100%, +50%, +200%, 0%, -10% -> |e| 0, .1, .5, 1, 2: median 0.5, max 2.
  const std::vector<ValidatePoint> pts = {
      point("memory", 110, 100, 200), point("memory", 70, 100, 150), point("memory", 105, 100, 300),
      point("compute", 50, 100, 100, 0.3), point("compute", 120, 100, 90, 0.9)};
  const auto s = summarize_points(pts);
  REQUIRE(s.memory_bound.count == 3);
  CHECK(*s.memory_bound.median_abs == Approx(0.10));
  CHECK(*s.memory_bound.max_abs == Approx(0.30));
  REQUIRE(s.compute_bound.count == 2);
  CHECK(*s.compute_bound.median_abs == Approx(0.35));
  CHECK(*s.compute_bound.max_abs == Approx(0.50));
  CHECK(s.compute_agree == 1);  // only the first drew under 70% of the bandwidth
  CHECK(*s.law.median_abs == Approx(0.5));
  CHECK(*s.law.max_abs == Approx(2.0));
}

TEST_CASE("an empty group has no error figures, and the renderers say n/a / null", "[validate]") {
  SweepResult r;
  r.points = {point("memory", 110, 100, 200)};
  r.summary = summarize_points(r.points);
  CHECK(r.summary.compute_bound.count == 0);
  CHECK_FALSE(r.summary.compute_bound.median_abs.has_value());
  CHECK(validate_summary_line(r).find("compute-bound median n/a") != std::string::npos);
  CHECK(validate_json(r).find("\"median_abs_error_compute_bound\": null") != std::string::npos);
}

TEST_CASE("toy shape: bytes and FLOPs per token match a hand count", "[validate]") {
  const ModelSpec m = toy();
  ValidatePoint p;
  p.format = "f32";
  p.context = 32;
  set_point_work(m, p);
  // Per layer f32 matrices: q 64x64, k 32x64, v 32x64, o 64x64, gate/up 128x64, down 64x128
  //   = 4096 + 2048 + 2048 + 4096 + 8192 + 8192 + 8192 = 36864 elements; x2 layers = 73728; LM head 256x64 = 16384.
  // Weights: (73728 + 16384) x 4 B = 360448 B; norms: (2 x 2 + 1) x 64 x 4 B = 1280 B; one embedding row 256 B.
  CHECK(p.weight_bytes_per_token == 361984.0);
  // KV read: 2 (K,V) x 4 B x 2 layers x 32 positions x 2 heads x 16 = 16384 B.
  CHECK(p.kv_read_bytes_per_token == 16384.0);
  // FLOPs: 2 x 90112 matrix elements + 2 layers x 4 x 4 heads x 16 x 32 positions = 180224 + 16384, + norms and
  // residual adds 4 x 64 x 3 x 2 layers = 1536.
  CHECK(p.flops_per_token == 198144.0);
  // Batch 4: the matrices and norms are shared by 4 tokens, each reads its own embedding row and its own KV.
  p.batch = 4;
  set_point_work(m, p);
  CHECK(p.weight_bytes_per_token == Approx((361728.0 + 4 * 256) / 4));
  CHECK(p.kv_read_bytes_per_token == 16384.0);
}

TEST_CASE("a shape the format's blocks do not divide is refused with a reason", "[validate]") {
  ModelSpec m = toy();
  CHECK(decode_shape_problem(m, kernels::WeightFormat::q8_0).empty());
  const std::string why = decode_shape_problem(m, kernels::WeightFormat::q4_k);  // 64 % 256 != 0
  CHECK(why.find("256") != std::string::npos);
  kernels::ThreadPool pool(1);
  CHECK_THROWS_AS(SyntheticEngine(m, kernels::WeightFormat::q4_k, 8, 1, pool), std::invalid_argument);
}

TEST_CASE("one real sweep point on a toy shape gives finite positive numbers", "[validate]") {
  const ModelSpec m = toy();
  kernels::ThreadPool pool(2);
  for (auto f : {kernels::WeightFormat::f32, kernels::WeightFormat::q4_1}) {
    ValidatePoint p = measure_point(m, f, 32, pool, 1, 3);
    predict_point(m, hwdb::load().get("cpu"), p);
    CHECK(p.measured_tokens_per_s > 0);
    CHECK(std::isfinite(p.measured_tokens_per_s));
    CHECK(p.predicted_tokens_per_s > 0);
    CHECK(std::isfinite(p.predicted_tokens_per_s));
    CHECK(std::isfinite(p.relative_error));
    CHECK(p.achieved_bandwidth_bytes_per_s > 0);
    CHECK(p.law_tokens_per_s > 0);
    CHECK((p.bound == "memory" || p.bound == "compute"));
  }
}

TEST_CASE("a decode step over random weights gives finite logits", "[validate]") {
  kernels::ThreadPool pool(1);
  SyntheticEngine model(toy(), kernels::WeightFormat::q8_0, 16, 3, pool);
  for (int i = 0; i < 3; ++i) model.step();
  for (float v : model.logits()) REQUIRE(std::isfinite(v));
  model.set_context(4);
  model.step();
  for (float v : model.logits()) REQUIRE(std::isfinite(v));
  CHECK_THROWS_AS(model.set_context(17), std::invalid_argument);
}
