// rooftop validate on the real SmolLM2-135M file: the analyzer's view of its formats, and its measured points.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>

#include "../engine/model_file.h"
#include "formats/ggml_types.h"
#include "engine/model.h"
#include "hwdb/hwdb.h"
#include "validate/local/file.h"
#include "validate/local/sweep.h"
#include "models/models.h"

using namespace rooftop;
using namespace rooftop::validate;

namespace {
const engine::LlamaModel& smol() {
  static const engine::LlamaModel m = engine::load_llama(rooftop::test::smollm2_path());
  return m;
}
}  // namespace

TEST_CASE("the file's precision plan: dominant layer format, the embedding's own, exact bytes", "[validate][file]") {
  // Independent count from the GGUF's tensor table: bytes per ggml type over the blk.* matrices.
  const engine::GgufFile& g = smol().file;
  std::map<std::string, uint64_t> bytes;
  for (const auto& t : g.tensors)
    if (t.name.rfind("blk.", 0) == 0 && t.dims.size() == 2) bytes[formats::ggml_type_info(t.type)->name] += t.bytes;
  std::string most;
  for (const auto& [name, b] : bytes)
    if (most.empty() || b > bytes[most]) most = name;
  const PrecisionPlan plan = models::gguf_precision_plan(g, "fp32");
  CHECK(plan.weights == (most == "f32" ? "fp32" : most));
  CHECK(most == "q4_1");  // the file's name says Q4_1
  const std::string embd = formats::ggml_type_info(g.find_tensor("token_embd.weight")->type)->name;
  CHECK(plan.per_class.at(ParamClass::embeddings) == (embd == "f32" ? "fp32" : embd));
  CHECK(plan.per_class.count(ParamClass::lm_head) == 0);  // tied: the embedding is the output
  CHECK(plan.kv == "fp32");
  uint64_t all = 0;  // every tensor of the file is a weight of some class
  for (const auto& t : g.tensors) all += t.bytes;
  CHECK(weight_bytes(models::from_gguf(g), plan).total == double(all));
}

TEST_CASE("plan_for: a file point's embedding and output formats override its layer format", "[validate][file]") {
  ValidatePoint p;
  p.format = "q4_1";
  CHECK(plan_for(p).per_class.count(ParamClass::embeddings) == 0);  // synthetic: one format for every class
  p.embedding_format = "q8_0";
  p.lm_head_format = "q6_k";
  const PrecisionPlan plan = plan_for(p);
  CHECK(plan.weights == "q4_1");
  CHECK(plan.per_class.at(ParamClass::embeddings) == "q8_0");
  CHECK(plan.per_class.at(ParamClass::lm_head) == "q6_k");
}

TEST_CASE("a sweep with the real file measures the engine's decode at each context", "[validate][file]") {
  SweepConfig config;  // no synthetic shapes: only the file
  config.plan.contexts = {16, 40};
  config.threads = 2;
  config.warmup = 1;
  config.repetitions = 3;
  config.refresh_calibration = true;
  config.model_file = rooftop::test::smollm2_path();
  config.file_spec = models::from_gguf(config.model_file);
  ChipSpec calibrated = hwdb::detect_host_cpu();
  REQUIRE(calibrated.measured.set("overhead_per_layer_s", 30e-6));  // marks it calibrated; the refresh measures the rest
  const SweepResult r = run_sweep(config, calibrated, {});
  INFO("skipped: " << (r.skipped.empty() ? std::string() : r.skipped[0]));
  REQUIRE(r.skipped.empty());
  REQUIRE(r.points.size() == 2);
  CHECK(r.refreshed_bandwidths_bytes_per_s.size() == 1);  // one refresh for the file's formats
  for (size_t i = 0; i < 2; ++i) {
    const ValidatePoint& p = r.points[i];
    INFO("context " << p.context);
    CHECK(p.context == config.plan.contexts[i]);
    CHECK(p.file == config.model_file);
    CHECK(p.format == "q4_1");
    CHECK(p.batch == 1);
    // Seed 000: every token adds 46,080 bytes of fp32 KV; a step at context c reads c of them.
    CHECK(p.kv_read_bytes_per_token == Approx(46080.0 * p.context));
    CHECK(p.weight_bytes_per_token == Approx(double(smol().weights_bytes_per_step())));
    // FLOPs: 2 x (30 layers x (576 x (576 + 2 x 192 + 576) + 3 x 576 x 1536) + 49152 x 576) + attention
    // 4 x 30 x 9 x 64 x c + norms and residual adds 4 x 576 x 3 x 30.
    const double macs = 30.0 * (576.0 * (576 + 2 * 192 + 576) + 3.0 * 576 * 1536) + 49152.0 * 576;
    CHECK(p.flops_per_token == Approx(2 * macs + 4.0 * 30 * 9 * 64 * p.context + 4.0 * 576 * 3 * 30));
    CHECK(p.probe_bytes_per_s > 1e8);  // GB/s in release; 0.99 GB/s seen under ASan on a slow VM
    CHECK(p.relative_error == Approx(p.predicted_tokens_per_s / p.measured_tokens_per_s - 1.0).margin(1e-12));
    // the raw prediction (the refreshed figures, not paired with the probe's rounds) is reported beside it
    CHECK((std::isfinite(p.raw_predicted_tokens_per_s) && p.raw_predicted_tokens_per_s > 0));
    CHECK(p.raw_relative_error == Approx(p.raw_predicted_tokens_per_s / p.measured_tokens_per_s - 1.0).margin(1e-12));
    CHECK((std::isfinite(p.measured_tokens_per_s) && p.measured_tokens_per_s > 0));
    CHECK((std::isfinite(p.predicted_tokens_per_s) && p.predicted_tokens_per_s > 0));
  }
}
