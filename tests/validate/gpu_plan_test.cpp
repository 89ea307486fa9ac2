// The GPU sweep's plan: shapes from the model cards, bytes per token from the analyzer's pass_work.
#include <catch2/catch.hpp>

#include "validate/local/gpu_plan.h"
#include "models/models.h"

using namespace rooftop;

TEST_CASE("the GPU plan takes its shapes from the cards and its bytes from pass_work", "[validate][gpu]") {
  const auto db = models::load();
  std::vector<ModelSpec> cards;
  for (const auto& id : validate::gpu_validation_model_ids()) cards.push_back(*db.find(id));
  cards.push_back(*db.find("qwen3-30b-a3b"));  // MoE: the GPU decode step runs a dense llama layer
  std::vector<std::string> skipped;
  const auto plan = validate::gpu_validation_plan(cards, &skipped);
  REQUIRE(plan.size() == 12);  // 3 cards x bf16, fp8_e4m3, q8_0, q4_1
  REQUIRE(skipped.size() == 1);
  CHECK(skipped[0].find("qwen3-30b-a3b") != std::string::npos);
  CHECK(skipped[0].find("mixture of experts") != std::string::npos);
  auto point = [&](const std::string& id, const std::string& format) {
    for (const auto& p : plan)
      if (p.model.id == id && p.format == format) return p;
    FAIL("no point " << id << " " << format);
    return gpu::GpuPlanPoint{};
  };
  // Llama 3.1 8B's config.json: hidden 4096, FFN 14336, 32 heads (8 KV) of 128, 32 layers, vocab 128256.
  const auto l = point("llama-3.1-8b", "bf16");
  CHECK(l.model.hidden == 4096);
  CHECK(l.model.ffn == 14336);
  CHECK(l.model.kv_heads == 8);
  CHECK(l.model.vocab == 128256);
  CHECK(l.context == gpu::kValidationContext);
  // Hand-worked, bf16: per layer q, o 4096*4096*2 = 33,554,432 each; k, v 1024*4096*2 = 8,388,608 each; gate, up,
  // down 14336*4096*2 = 117,440,512 each -> 436,207,616 x 32 = 13,958,643,712; LM head 128256*4096*2 =
  // 1,050,673,152 -> 15,009,316,864. KV read at 1024 positions: 2*1024*8*128*2 = 4,194,304 x 32 = 134,217,728.
  // pass_work adds the embedding row (8 KB) and the fp32 norm vectors (65 x 4096 x 4 = 1.06 MB): < 0.01%.
  const double bf16_weights = 15009316864.0, kv = 134217728.0;
  CHECK(double(l.bytes_per_token) == Approx(bf16_weights + kv).epsilon(1e-4));
  CHECK(double(l.bytes_per_token) > bf16_weights + kv);
  // q4_1 stores 32 values in 20 bytes (x 20/64), fp8 in one byte (x 1/2), q8_0 in 34 (x 34/64); KV stays bf16.
  CHECK(double(point("llama-3.1-8b", "q4_1").bytes_per_token) == Approx(bf16_weights * 20 / 64 + kv).epsilon(1e-3));
  CHECK(double(point("llama-3.1-8b", "fp8_e4m3").bytes_per_token) == Approx(bf16_weights / 2 + kv).epsilon(1e-3));
  CHECK(double(point("llama-3.1-8b", "q8_0").bytes_per_token) == Approx(bf16_weights * 34 / 64 + kv).epsilon(1e-3));
  CHECK(point("smollm2-135m", "bf16").model.head_dim == 64);
  CHECK(point("qwen2.5-1.5b", "q8_0").model.ffn == 8960);
}
