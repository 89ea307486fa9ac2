// Memory budget: parameter counts, KV cache sizing and fit, checked against the seeds' numbers.
#include <catch2/catch.hpp>

#include "analyzer/chip_spec.h"
#include "base/suggest.h"
#include "analyzer/memory.h"
#include "analyzer/params.h"
#include "seed_models.h"

using namespace rooftop;

namespace {
ChipSpec chip(const char* id, double mem, double bw) { return test::chip_spec(id, "gpu", mem, bw, {{"bf16", 989.4e12}}); }
}  // namespace

TEST_CASE("seed 000: SmolLM2-135M parameters and KV cache") {
  auto m = test::smollm2_135m();
  auto p = count_params(m);
  // "about 135M weights"; 2 FLOPs per weight per token = about 269 MFLOPs (tied embeddings counted once).
  CHECK(p.total == 134515008.0);  // 49152 x 576 + 30 x (884,736 + 2,654,208 + 1,152) + 576
  CHECK(2 * p.total == Approx(269e6).epsilon(0.005));
  // 2 x 30 layers x 3 KV heads x 64 = 11,520 numbers per token; 46,080 bytes in FP32; 23,040 in BF16.
  CHECK(kv_bytes_per_token(m, find_format("fp32")) / 4 == 11520);
  CHECK(kv_bytes_per_token(m, find_format("fp32")) == 46080);
  CHECK(kv_bytes_per_token(m, find_format("bf16")) == 23040);
  CHECK(kv_bytes_per_token(m, find_format("fp32")) / 1024 == 45);  // "45 KiB"
  // The cache overtakes the 8-bit model's 134.6 MB of weights at a few thousand tokens (~2,921 in FP32).
  CHECK(134.6e6 / kv_bytes_per_token(m, find_format("fp32")) == Approx(2921).epsilon(0.001));
}

TEST_CASE("seed 000: a 70B model in BF16 reads about 141 GB; its cache costs 320 KiB per token") {
  auto m = test::llama31_70b();
  PrecisionPlan p;
  p.weights = "bf16";
  auto w = weight_bytes(m, p);
  CHECK(w.total == Approx(141.1e9).epsilon(0.005));
  CHECK(kv_bytes_per_token(m, find_format("bf16")) == 327680);  // 2 x 80 x 8 x 128 x 2 = 320 KiB
}

TEST_CASE("seed 002: KV formula, FP8 halves FP16, full MHA 7B at 4,096 tokens is 2.15 GB") {
  ModelSpec llama2_7b;
  llama2_7b.id = "llama-2-7b";
  llama2_7b.vocab = 32000; llama2_7b.hidden = 4096; llama2_7b.layers = 32; llama2_7b.heads = 32;
  llama2_7b.kv_heads = 32; llama2_7b.head_dim = 128; llama2_7b.ffn = 11008;
  // 2 x 32 layers x 32 heads x 128 x 4096 tokens x 2 bytes = 2,147,483,648 B = 2.15 GB.
  CHECK(kv_bytes(llama2_7b, find_format("fp16"), 4096, 1) == 2147483648.0);
  CHECK(kv_bytes(llama2_7b, find_format("fp8"), 4096, 1) == 2147483648.0 / 2);
  // Batch multiplies.
  CHECK(kv_bytes(llama2_7b, find_format("fp16"), 4096, 3) == 3 * 2147483648.0);
}

TEST_CASE("seed 002: 7B at Q4 plus 0.54 GB of FP16 KV on a 16 GB RTX 5060 Ti leaves 12.0 GB") {
  // 32 layers, 8 KV heads, head dim 128: 131,072 B per token at FP16; 4,096 tokens = 0.537 GB.
  const double kv_per_token = 2.0 * 32 * 8 * 128 * 2;
  CHECK(kv_per_token == 131072);
  auto b = simple_budget(7e9, 0.5, kv_per_token, 4096, 1, 16e9);
  CHECK(b.weights_bytes == 3.5e9);
  CHECK(b.kv_bytes == Approx(0.54e9).epsilon(0.01));
  CHECK(b.total_bytes == Approx(4.04e9).epsilon(0.001));
  CHECK(b.headroom_bytes == Approx(12.0e9).epsilon(0.005));
  CHECK(b.fits);
}

TEST_CASE("seed 002 sandbox: a 120B MoE at 16 bits overflows a B200 by about 49 GB") {
  // gpt-oss-120b at bf16 with 1.01 GB of KV: weights ~240 GB against 192 GB. The seed's 240 GB is
  // 120B x 2 bytes; the derived count (116.8B) gives 233.7 GB, and an overflow of about 43 GB.
  auto m = test::gpt_oss_120b();
  auto b = simple_budget(120e9, 2.0, 0, 0, 1, 192e9);
  CHECK(b.weights_bytes == 240e9);
  auto with_kv = simple_budget(120e9, 2.0, 1.01e9, 1, 1, 192e9);
  CHECK(-with_kv.headroom_bytes == Approx(49.0e9).epsilon(0.001));
  FitOptions o;
  o.simple = true;
  o.context = 4096;
  PrecisionPlan p;
  auto r = fit(m, chip("b200", 192e9, 8e12), p, o);
  CHECK_FALSE(r.fits);
  CHECK(r.params_total == Approx(116.8e9).epsilon(0.005));
}

TEST_CASE("fit: llama-3.1-70b on an H200 at bf16 does not fit; at fp8 it does, with a batch limit") {
  auto m = test::llama31_70b();
  auto h200 = chip("h200", 141e9, 4.8e12);
  FitOptions o;
  o.context = 8192;
  PrecisionPlan p;
  p.weights = "bf16";
  auto r = fit(m, h200, p, o);
  CHECK_FALSE(r.fits);
  CHECK(r.headroom_bytes < 0);
  CHECK(r.max_batch == 0);
  p.weights = "fp8";
  r = fit(m, h200, p, o);
  CHECK(r.fits);
  // Worked by hand: capacity 0.95 x 141 GB = 133.95 GB; weights 70.55 GB; overhead 1 GB; KV per
  // sequence 8192 x 327,680 B = 2.684 GB; activations ~0.1 GB: (133.95 - 70.55 - 1 - 0.1) / 2.684 = 23.
  CHECK(r.max_batch >= 22);
  CHECK(r.max_batch <= 23);
  // The answer is self-consistent: max_batch fits and max_batch + 1 does not.
  o.batch = r.max_batch;
  CHECK(fit(m, h200, p, o).fits);
  o.batch = r.max_batch + 1;
  CHECK_FALSE(fit(m, h200, p, o).fits);
}

TEST_CASE("fit: longest context, KV crossing point, tp split") {
  auto m = test::llama31_8b();
  auto h100 = chip("h100-sxm", 80e9, 3.35e12);
  FitOptions o;
  o.context = 8192;
  o.batch = 4;
  PrecisionPlan p;
  auto r = fit(m, h100, p, o);
  CHECK(r.fits);
  CHECK(r.max_context > 8192);
  o.context = r.max_context;
  if (r.max_context_limited_by == "memory") {
    CHECK(fit(m, h100, p, o).fits);
    o.context = r.max_context + 1;
    CHECK_FALSE(fit(m, h100, p, o).fits);
  }
  // KV (131,072 B/token at bf16) equals weights (16.06 GB) at about 122.5k tokens.
  CHECK(r.kv_equals_weights_at_tokens == Approx(r.weights.total / 131072.0));
  // tp = 2 halves weights and KV per device (8 KV heads split 4 + 4).
  FitOptions t;
  t.context = 8192;
  t.tp = 2;
  auto r2 = fit(m, h100, p, t);
  CHECK(r2.weights_bytes_per_device == Approx(r2.weights.total / 2));
  CHECK(r2.kv_bytes_per_device == Approx(r2.kv_bytes / 2));
}

TEST_CASE("MLA and sliding windows shrink the KV cache") {
  // DeepSeek-V3: 61 layers x (512 + 64) x 2 bytes = 70,272 B per token at bf16.
  CHECK(kv_bytes_per_token(test::deepseek_v3(), find_format("bf16")) == 70272);
  // gpt-oss-120b: half the layers hold at most 128 tokens.
  auto m = test::gpt_oss_120b();
  const double per_layer_token = 2.0 * 8 * 64 * 2;  // bf16
  CHECK(kv_bytes(m, find_format("bf16"), 100, 1) == 36 * 100 * per_layer_token);
  CHECK(kv_bytes(m, find_format("bf16"), 10000, 1) == (18 * 10000 + 18 * 128) * per_layer_token);
}

TEST_CASE("fit rejects bad input with one clear line") {
  auto m = test::llama31_8b();
  auto h100 = chip("h100-sxm", 80e9, 3.35e12);
  PrecisionPlan p;
  FitOptions o;
  o.batch = 0;
  CHECK_THROWS_AS(fit(m, h100, p, o), InputError);
  o.batch = 1;
  o.context = 1'000'000'000'000LL;
  CHECK_THROWS_WITH(fit(m, h100, p, o), Catch::Contains("--context") && Catch::Contains("out of range"));
  o.context = 4096;
  o.tp = 3;
  CHECK_THROWS_WITH(fit(m, h100, p, o), Catch::Contains("does not divide"));
  o.tp = 1;
  p.kv = "q4_k";
  CHECK_THROWS_AS(fit(m, h100, p, o), InputError);
}

TEST_CASE("KV passes the weights later when most layers keep a window") {
  // gpt-oss-120b, bf16 KV: 18 global layers x 2,048 B per token (8 KV heads x 64 x 2 x 2 bytes) grow
  // without bound; the 18 windowed layers stop at 128 tokens. Crossing C solves
  // 18 x 2048 x C + 18 x 2048 x 128 = weights.
  auto m = test::gpt_oss_120b();
  PrecisionPlan p;
  p.per_class[ParamClass::experts] = "mxfp4";
  FitOptions o;
  const ChipSpec c = test::chip_spec("big", "gpu", 1e12, 1e12);
  auto r = fit(m, c, p, o);
  const double expected = r.weights.total / (18 * 2048.0) - 128;
  CHECK(r.kv_equals_weights_at_tokens == Approx(expected).epsilon(1e-5));
  CHECK(r.precision == "bf16 (experts mxfp4)");
  // Without windows it is weights / KV per token.
  auto l = fit(test::llama31_8b(), c, PrecisionPlan{}, o);
  CHECK(l.kv_equals_weights_at_tokens == Approx(l.weights.total / 131072.0));
}

TEST_CASE("activations: the engine's per-token buffers of one layer, and the logits of the batch") {
  auto m = test::smollm2_135m();
  // SmolLM2-135M, 512 prompt tokens in flight in fp32 (engine/forward.cpp's prefill buffers): x, xn and o
  // 3 x 576; q and the attention result 2 x 9 x 64 = 1152; k and v 2 x 3 x 64 = 384; gate and up 2 x 1536
  // (the activation written over the gate): 6,336 values = 25,344 bytes a token, 12,976,128 for 512 tokens;
  // plus one row of fp32 logits, 49,152 x 4 = 196,608. Total 13,172,736.
  CHECK(activation_bytes(m, 512, 1, 4.0) == 13172736.0);
  // Twice the tokens, twice the per-token part; a batch of 4 holds 4 rows of logits.
  CHECK(activation_bytes(m, 1024, 4, 4.0) == 2 * 12976128.0 + 4 * 196608.0);
}
