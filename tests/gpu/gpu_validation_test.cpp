// The bandwidth-law sweep's host arithmetic (bytes per token, the law, summary, JSON) and its no-device path.
#include <catch2/catch.hpp>

#include <random>

#include "analyzer/errors.h"
#include "kernels/cuda/gpu.h"

using namespace rooftop;

namespace {
const gpu::GpuModelShape& model(const std::string& id) {
  for (const auto& m : gpu::validation_models())
    if (m.id == id) return m;
  throw std::runtime_error("no model " + id);
}
}  // namespace

TEST_CASE("validation models carry their config.json shapes") {
  REQUIRE(gpu::validation_models().size() == 3);
  const auto& l = model("llama-3.1-8b");
  CHECK(l.hidden == 4096);
  CHECK(l.ffn == 14336);
  CHECK(l.heads == 32);
  CHECK(l.kv_heads == 8);
  CHECK(l.layers == 32);
  CHECK(l.vocab == 128256);
  CHECK(model("qwen2.5-1.5b").ffn == 8960);
  CHECK(model("smollm2-135m").head_dim == 64);
}

TEST_CASE("decode bytes per token match the hand-worked Llama 3.1 8B figures") {
  // bf16 weights per layer: q, o 4096*4096*2 = 33,554,432 each; k, v 1024*4096*2 = 8,388,608 each;
  // gate, up, down 14336*4096*2 = 117,440,512 each -> 436,207,616; x 32 = 13,958,643,712;
  // LM head 128256*4096*2 = 1,050,673,152 -> weights 15,009,316,864.
  // fp32 x and y per layer: 4*(8192 + 5120 + 5120 + 8192 + 3*18432) = 327,680 -> 10,485,760; LM head 529,408.
  // KV at 1024: 2*1024*8*128*2 = 4,194,304 + q and out 2*4*4096 = 32,768 -> x 32 = 135,266,304.
  const int64_t other = 10485760 + 529408 + 135266304;
  CHECK(gpu::decode_bytes_per_token(model("llama-3.1-8b"), "bf16", 1024) == 15009316864 + other);
  // q4_1 stores 32 values in 20 bytes: weights x 20/64 exactly -> 4,690,411,520.
  CHECK(gpu::decode_bytes_per_token(model("llama-3.1-8b"), "q4_1", 1024) == 4690411520 + other);
  // fp8: half of bf16 weights; q8_0: 34/64 of them.
  CHECK(gpu::decode_bytes_per_token(model("llama-3.1-8b"), "fp8_e4m3", 1024) == 15009316864 / 2 + other);
  CHECK(gpu::decode_bytes_per_token(model("llama-3.1-8b"), "q8_0", 1024) == 15009316864 / 64 * 34 + other);
  // Context only changes the KV term: + 1024 positions x 32 layers x 4096 bytes.
  CHECK(gpu::decode_bytes_per_token(model("llama-3.1-8b"), "bf16", 2048) -
            gpu::decode_bytes_per_token(model("llama-3.1-8b"), "bf16", 1024) == int64_t(1024) * 32 * 4096);
  REQUIRE_THROWS_AS(gpu::decode_bytes_per_token(model("llama-3.1-8b"), "q4_k", 1024), InputError);
}

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
    gpu::validate(n, true);
    FAIL("validate(" << n << ") did not throw");
  } catch (const InputError& e) {
    REQUIRE_THAT(e.what(), Catch::Contains("no CUDA device cuda:" + std::to_string(n)));
  }
  REQUIRE_THROWS_AS(gpu::validate(-1, true), InputError);
}
