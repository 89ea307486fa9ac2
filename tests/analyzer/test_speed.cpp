// Speed, cost, roofline and the small calculators, against seed 002's numbers and hand-worked examples.
#include <catch2/catch.hpp>

#include <cmath>

#include "analyzer/calculators.h"
#include "base/suggest.h"
#include "analyzer/roofline.h"
#include "analyzer/speed.h"
#include "seed_models.h"

using namespace rooftop;

namespace {
// H100 SXM: 80 GB, 3.35 TB/s; dense bf16 989.4 TFLOP/s, fp8 1978.9 TFLOP/s; 700 W; $2.50/h (seed 002).
ChipSpec h100() {
  ChipSpec c = test::chip_spec("h100-sxm", "gpu", 80e9, 3.35e12,
                               {{"bf16", 989.4e12}, {"fp16", 989.4e12}, {"fp8", 1978.9e12}, {"int8", 1978.9e12}});
  c.tdp_watts = 700;
  c.usd_per_hour = 2.50;
  c.scaleup_bandwidth_bytes_per_s = 900e9;
  c.scaleup_domain_size = 8;
  return c;
}
ChipSpec h200() {
  ChipSpec c = h100();
  c.id = "h200";
  c.memory_bytes = 141e9;
  c.memory_bandwidth_bytes_per_s = 4.8e12;
  return c;
}
// Seed 002's setting: Llama-3.1-70B with fp8 weights on the H100 above, under the seeds' simplifications
// (o.simple); `o` sets the rest (batches, prompt, speculative decoding).
SpeedResult seed_002_fp8(SpeedOptions o) {
  PrecisionPlan p;
  p.weights = "fp8";
  o.simple = true;
  return speed(test::llama31_70b(), h100(), p, o);
}
}  // namespace

TEST_CASE("seed 002 roofline: H100 ridge about 299 FLOPs/byte; decode x32 attains 107 TFLOP/s") {
  auto m = test::llama31_70b();
  PrecisionPlan p;
  p.weights = "bf16";
  RooflineOptions o;
  o.simple = true;
  o.decode_batches = {1, 32};
  auto r = roofline(m, h100(), p, o);
  CHECK(r.ridge_flops_per_byte == Approx(299).epsilon(0.015));  // 989.4 / 3.35 = 295.3 (seed: ~1,000 TFLOP/s)
  const auto& x32 = r.points[2];
  CHECK(x32.name == "decode x32");
  CHECK(x32.arithmetic_intensity == Approx(32).epsilon(0.001));  // 2 FLOPs x 32 tokens per 2-byte weight
  CHECK(x32.attainable_flops == Approx(107e12).epsilon(0.005));  // 32 x 3.35e12 = 107.2e12
  CHECK(x32.bound == "memory");
  CHECK(r.points[0].bound == "compute");  // prefill of 1024 tokens: intensity ~1024
  CHECK(attainable_flops(1000, 989e12, 3.35e12) == 989e12);
}

TEST_CASE("faithful decode: KV reads lower the intensity below the seeds' batch-size rule") {
  auto m = test::llama31_70b();
  PrecisionPlan p;
  p.weights = "bf16";
  RooflineOptions o;
  o.decode_batches = {32};
  o.context = 8192;
  auto r = roofline(m, h100(), p, o);
  // 32 sequences x 8192 tokens x 327,680 B = 85.9 GB of KV per step on top of 141.1 GB of weights;
  // FLOPs 2 x 70.55e9 x 32 = 4.515e12 plus attention 80 x 64 heads x 8192 x 512 x 32 = 0.687e12:
  // 5.20e12 / 227e9 = 22.9 FLOPs/byte instead of the seeds' 32.
  CHECK(r.points[1].arithmetic_intensity == Approx(22.9).epsilon(0.01));
}

TEST_CASE("seed 002 cost table: 70B at fp8 on an H100 with the seeds' simplifications") {
  SpeedOptions o;
  o.batches = {1, 8, 64, 256, 1024};
  auto r = seed_002_fp8(o);
  REQUIRE(r.compute_format == "fp8");
  // The seed uses 70 GB and 2,000 TFLOP/s; the derived 70.55B parameters and the dense 1,979 TFLOP/s
  // datasheet rate move each figure by under 2.5%.
  const double tol = 0.025;
  CHECK(r.points[0].decode_tokens_per_s == Approx(48).epsilon(tol));
  CHECK(r.points[0].usd_per_mtok_output == Approx(15).epsilon(0.04));  // $14.5 -> "$15"
  CHECK(r.points[1].decode_tokens_per_s == Approx(383).epsilon(tol));
  CHECK(r.points[1].usd_per_mtok_output == Approx(1.81).epsilon(tol));
  CHECK(r.points[2].decode_tokens_per_s == Approx(3100).epsilon(tol));
  CHECK(r.points[2].usd_per_mtok_output == Approx(0.227).epsilon(tol));
  CHECK(r.points[3].decode_tokens_per_s == Approx(12300).epsilon(tol));
  CHECK(r.points[3].usd_per_mtok_output == Approx(0.057).epsilon(tol));
  CHECK(r.points[3].bound == "memory");
  CHECK(r.points[4].decode_tokens_per_s == Approx(14300).epsilon(tol));  // compute roof
  CHECK(r.points[4].usd_per_mtok_output == Approx(0.049).epsilon(tol));
  CHECK(r.points[4].bound == "compute");
  // "about 299x cheaper" from batch 1 to batch 1024.
  CHECK(r.points[0].usd_per_mtok_output / r.points[4].usd_per_mtok_output == Approx(299).epsilon(0.03));
  // The plateau sits between 256 and 1024: ridge 591 x weights 70.55 GB / 141.1 GFLOP per token = 295.
  CHECK(r.plateau_batch > 256);
  CHECK(r.plateau_batch < 1024);
}

TEST_CASE("seed 002 energy: 700 W at 12,000 tok/s is about 0.06 J per token; 500 tokens about 30 J") {
  SpeedOptions o;
  o.batches = {1, 256};
  auto r = seed_002_fp8(o);
  const double j = r.points[1].joules_per_token;  // 700 W / 12,156 tok/s
  CHECK(j == Approx(0.06).epsilon(0.05));
  CHECK(500 * j == Approx(30).epsilon(0.05));
  // Single stream is far worse per token: 256x here (the seed's 50-100x is for a smaller local GPU).
  CHECK(r.points[0].joules_per_token / j == Approx(256).epsilon(0.001));
}

TEST_CASE("seed 002 decode ceilings: 70 GB per token across the field") {
  // bandwidth / 70e9: B200 114, H200 69, H100 48, M3 Ultra 12 tok/s.
  CHECK(std::round(8e12 / 70e9) == 114);
  CHECK(std::round(4.8e12 / 70e9) == 69);
  CHECK(std::round(3.35e12 / 70e9) == 48);
  CHECK(std::round(0.819e12 / 70e9) == 12);
  // Sandbox: 5B active at 16 bits on a B200 if it fit: 8e12 / (5e9 x 2) = 800 tok/s.
  CHECK(8e12 / (5e9 * 2) == 800);
}

TEST_CASE("speed: llama-3.1-8b on an H200 at bf16: ceiling ~299 tok/s, modeled lower") {
  auto m = test::llama31_8b();
  PrecisionPlan p;
  SpeedOptions o;
  o.context = 1024;
  auto r = speed(m, h200(), p, o);
  const auto& pt = r.points[0];
  // 4.8e12 B/s / 16.06e9 B of bf16 weights = 298.9 tok/s.
  CHECK(pt.weights_only_tokens_per_s == Approx(299).epsilon(0.005));
  CHECK(pt.decode_tokens_per_s < pt.weights_only_tokens_per_s);
  // Worked by hand: 80% of 4.8 TB/s over 16.06 GB of weights less the 1.05 GB input embedding (one
  // row is read, not the matrix) plus 134 MB of KV (1024 x 131,072 B): 15.14e9 / 3.84e12 = 3.94 ms,
  // plus 32 layers x 15 µs of launch gaps = 0.48 ms: 4.42 ms, 226 tok/s.
  CHECK(pt.tpot_s == Approx((16.06e9 - 1.0506e9 + 1024 * 131072.0) / (4.8e12 * 0.8) + 32 * 15e-6).epsilon(0.01));
  CHECK(r.overhead_per_layer_s == 15e-6);
  CHECK(pt.bound == "memory");
  CHECK(pt.prefill_bound == "compute");
  // Prefill of 1,024 tokens: the matmuls other than the embedding lookup and the LM head (logits for
  // the last token only) hold 8.03e9 - 2 x 0.525e9 = 6.98e9 weights: 2 x 6.98e9 x 1024 = 14.3 TFLOP at
  // 70% of 989 TFLOP/s = 20.6 ms, plus 32 x 15 µs of launch gaps (0.48 ms), attention and small
  // memory-bound ops (about 1 ms): 22.1 ms.
  CHECK(pt.ttft_s == Approx(2 * 6.98e9 * 1024 / (0.7 * 989.4e12) + 32 * 15e-6).epsilon(0.06));
}

TEST_CASE("MoE: the batch touches more experts than k") {
  // 128 experts, 4 per token: one token reads 4; 8 tokens expect 128 x (1 - (124/128)^8) = 29.0.
  CHECK(expected_experts_touched(128, 4, 1) == Approx(4));
  CHECK(expected_experts_touched(128, 4, 8) == Approx(128 * (1 - std::pow(124.0 / 128, 8))));
  CHECK(expected_experts_touched(128, 4, 8) == Approx(29.0).epsilon(0.01));
  CHECK(expected_experts_touched(128, 4, 10000) == Approx(128).epsilon(1e-6));
  auto m = test::gpt_oss_120b();
  PrecisionPlan p;
  p.per_class[ParamClass::experts] = "mxfp4";
  auto w1 = pass_work(m, p, PassShape{1, 1, 100, false});
  auto w8 = pass_work(m, p, PassShape{8, 1, 100, false});
  CHECK(w8.experts_touched == Approx(29.0).epsilon(0.01));
  auto experts = [](const PassWork& w) {
    for (const auto& o : w.ops)
      if (o.name == "experts") return o.weight_bytes;
    return 0.0;
  };
  CHECK(experts(w8) / experts(w1) == Approx(29.0 / 4).epsilon(0.01));  // 7.25x the expert bytes
}

TEST_CASE("attention FLOPs grow with context; prefill is causal") {
  auto m = test::smollm2_135m();
  PrecisionPlan p;
  auto attn = [&](const PassShape& s) { return pass_work(m, p, s).ops[2]; };
  // Decode at context C: 30 layers x 9 heads x (C + 1) keys x 2 x (64 + 64) FLOPs.
  auto d = attn(PassShape{1, 1, 999, false});
  CHECK(d.name == "attention");
  CHECK(d.flops == Approx(30.0 * 9 * 1000 * 2 * 128));
  CHECK(d.kv_read_bytes == Approx(1000 * 23040.0));  // bf16 KV: 23,040 B per token
  // Prefill of P tokens: sum_{i=1..P} i = P (P + 1) / 2 pairs.
  auto pf = attn(PassShape{1, 100, 0, false});
  CHECK(pf.flops == Approx(30.0 * 9 * (100 * 101 / 2) * 2 * 128));
}

TEST_CASE("speculative decoding: seed 002's k = 5, a = 0.7, draft at 15%") {
  CHECK(spec_tokens_per_pass(5, 0.7) == Approx(2.94).epsilon(0.001));  // (1 - 0.7^6) / 0.3 = 2.9412
  CHECK(spec_speedup(5, 0.7, 0.15) == Approx(1.68).epsilon(0.002));    // 2.9412 / 1.75 = 1.6807
  CHECK(spec_tokens_per_pass(5, 1.0) == 6);                            // a = 1: every draft accepted
  CHECK(spec_tokens_per_pass(0, 0.5) == 1);                            // k = 0: plain decoding
  CHECK(spec_tokens_per_pass(3, 0.0) == 1);                            // nothing accepted
  CHECK_THROWS_AS(spec_tokens_per_pass(3, 1.5), InputError);
  SpeedOptions o;
  o.draft_len = 5;
  o.acceptance = 0.7;
  o.draft_cost_ratio = 0.15;
  auto r = seed_002_fp8(o);
  REQUIRE(r.spec);
  CHECK(r.spec->speedup == Approx(1.68).epsilon(0.002));
  CHECK(r.points[0].decode_tokens_per_s == Approx(1.6807 * 3.35e12 / 70.55e9).epsilon(0.01));
}

TEST_CASE("tensor parallelism: weights split, all-reduce time added") {
  auto m = test::llama31_70b();
  PrecisionPlan p;
  SpeedOptions o;
  o.context = 1024;
  o.tp = 4;
  auto r4 = speed(m, h100(), p, o);
  o.tp = 1;
  auto r1 = speed(m, h100(), p, o);
  // All-reduce of 8192 x 2 bytes over 4 GPUs at 450 GB/s: 2 x 3/4 x 16,384 / 450e9 + 10 µs x log2(4) = 74.6 ns + 20 µs.
  CHECK(ring_allreduce_s(16384, 4, 450e9, 10e-6) == Approx(1.5 * 16384 / 450e9 + 20e-6));
  CHECK(r4.points[0].comm_s == Approx(160 * ring_allreduce_s(16384, 4, 450e9, 10e-6)));
  CHECK(r4.points[0].tpot_s < r1.points[0].tpot_s / 3);
  CHECK(r4.points[0].tpot_s > r1.points[0].tpot_s / 4);
}

TEST_CASE("seed 002 calculators: tiles, FlashAttention traffic, paged KV, batching") {
  // A 256 x 256 output over K = 1,024 is 134.2 MFLOP; tile 64 at fp16 is 32 FLOPs/byte, 2.0x tile 32.
  CHECK(gemm_flops(256, 256, 1024) == Approx(134.2e6).epsilon(0.001));
  CHECK(gemm_tile_intensity(64, 2) == 32);
  CHECK(gemm_tile_intensity(64, 2) / gemm_tile_intensity(32, 2) == 2.0);
  // n = 2,048, d = 64, fp16: 4,194,304 scores; naive 17.0 MiB, fused 1.0 MiB (the seed prints 16.9x).
  auto a = attention_traffic(2048, 64, 2);
  CHECK(a.scores == 4194304);
  CHECK(a.naive_bytes / 1048576 == Approx(17.0).epsilon(0.001));
  CHECK(a.fused_bytes / 1048576 == Approx(1.0));
  CHECK(a.ratio() == Approx(16.9).epsilon(0.01));
  // Blocks of 4 tokens, sequences of 5, 10 and 3: 2 + 3 + 1 = 6 pages; 12 reserved, 6 never used.
  auto pk = paged_kv({5, 10, 3}, 4, 12);
  CHECK(pk.blocks_needed == 6);
  CHECK(pk.unused_blocks == 6);
  CHECK(pk.slots_wasted_in_pages == 3 + 2 + 1);
  // 3 slots, sequences of 5, 2, 1, 4, 2: static 14 / 27 = 52%, continuous 14 / 15 = 93%.
  auto u = batching_utilization({5, 2, 1, 4, 2}, 3);
  CHECK(u.static_utilization == Approx(14.0 / 27));
  CHECK(std::round(u.static_utilization * 100) == 52);
  CHECK(std::round(u.continuous_utilization * 100) == 93);
}

TEST_CASE("speed rejects impossible requests") {
  auto m = test::llama31_8b();
  PrecisionPlan p;
  SpeedOptions o;
  o.batches = {0};
  CHECK_THROWS_AS(speed(m, h100(), p, o), InputError);
  o.batches = {1};
  o.ep = 2;
  CHECK_THROWS_WITH(speed(m, h100(), p, o), Catch::Contains("mixture-of-experts"));
  o.ep = 1;
  ChipSpec no_fp8 = h100();
  no_fp8.peak_flops.erase("fp8");
  p.weights = "fp8";
  // An fp8 model on a chip with no fp8 rate computes in bf16 (its next preference).
  CHECK(speed(m, no_fp8, p, o).compute_format == "bf16");
  o.compute_format = "fp8";
  CHECK_THROWS_WITH(speed(m, no_fp8, p, o), Catch::Contains("no fp8 peak"));
  for (auto& pt : speed(m, h100(), PrecisionPlan{}, SpeedOptions{}).points) {
    CHECK(std::isfinite(pt.decode_tokens_per_s));
    CHECK(std::isfinite(pt.usd_per_mtok_output));
  }
}

TEST_CASE("a format the chip runs slower than fp32 is computed in fp32 (GP102's 1/64-rate fp16)") {
  // Tesla P40 datasheet: 12 TFLOP/s fp32, 47 TOPS int8 (dp4a); fp16 at 1/64 of fp32 on GP102 (0.18 TFLOP/s).
  const ChipSpec p40 = test::chip_spec("tesla-p40", "gpu", 24e9, 346e9, {{"fp32", 12e12}, {"fp16", 0.1837e12}, {"int8", 47e12}});
  CHECK(compute_format_for(p40, find_format("f16")) == "fp32");   // fp16 -> bf16 (absent) -> fp32
  CHECK(compute_format_for(p40, find_format("bf16")) == "fp32");  // bf16 (absent) -> fp16 (slow) -> fp32
  CHECK(compute_format_for(p40, find_format("q4_0")) == "int8");  // int8 is 4x fp32: kept
  CHECK(compute_format_for(p40, find_format("mxfp4")) == "fp32");  // fp4, bf16 absent; fp16 slow; fp32 not listed
  // The same chip with fp16 at twice fp32 (a Pascal P100) keeps fp16.
  ChipSpec p100 = p40;
  p100.peak_flops["fp16"] = 24e12;
  CHECK(compute_format_for(p100, find_format("f16")) == "fp16");
  // speed() reports the rate it prices an f16 model's matmuls and attention at: the fp32 one.
  PrecisionPlan p;
  p.weights = "f16";
  SpeedOptions o;
  o.prompt_tokens = 512;
  const SpeedResult r = speed(test::llama31_8b(), p40, p, o);
  CHECK(r.compute_format == "fp32");
  CHECK(r.peak_flops == 12e12);
}

TEST_CASE("prefill and decode energy per token, and their ratio (seed 004: decode 20-35x prefill on one machine)") {
  SpeedOptions o;
  o.batches = {1, 256};
  o.prompt_tokens = 1000;
  auto r = seed_002_fp8(o);
  // Simple model, H100 SXM at 700 W: a 1000-token prompt of a 70.55B-parameter model is compute-bound at the fp8
  // peak, 2 x 70.55e9 x 1000 FLOPs / 1,978.9e12 FLOP/s = 71.3 ms, so 700 W x 71.3 ms / 1000 = 0.0499 J per input token.
  CHECK(r.points[0].joules_per_input_token == Approx(700.0 * 2 * 70.55e9 / 1978.9e12).epsilon(0.01));
  CHECK(r.points[0].joules_per_input_token == Approx(r.points[1].joules_per_input_token));  // one prompt either way
  // Batch 1 decode streams 70.55 GB per token at 3.35 TB/s: 21.1 ms, 14.7 J per token, ~295x prefill's (the ridge:
  // the same weights serve 1000 prompt tokens at once); at batch 256, 0.06 J per token, about 1.2x.
  CHECK(r.points[0].decode_to_prefill_energy_ratio == Approx(r.points[0].joules_per_token / r.points[0].joules_per_input_token));
  CHECK(r.points[0].decode_to_prefill_energy_ratio == Approx(295).epsilon(0.03));
  CHECK(r.points[1].decode_to_prefill_energy_ratio == Approx(1.2).epsilon(0.1));
}
