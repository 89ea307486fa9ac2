// Calibrated decode GEMV arithmetic rates per input width k: each matrix of an op gets its own width's rate.
#include <catch2/catch.hpp>

#include <cmath>

#include "analyzer/speed.h"
#include "kernels/cpu/dispatch.h"
#include "seed_models.h"

using namespace rooftop;

namespace {

// A calibrated CPU whose memory never binds, with q4_1 GEMV arithmetic rates at k = 576 and 1536 only.
ChipSpec cpu_with_width_rates() {
  ChipSpec c = test::chip_spec("cpu", "cpu", 24e9, 1e15, {{"fp32", 1e11}, {"int8", 1e12}});
  REQUIRE(c.measured.set("gemv_q4_1_bytes_per_s", 1e15));
  REQUIRE(c.measured.set("gemv_q4_1_arith_flops_per_s", 60e9));  // the best width's rate: used only without per-width ones
  REQUIRE(c.measured.set("gemv_q4_1_arith_k576_flops_per_s", 20e9));
  REQUIRE(c.measured.set("gemv_q4_1_arith_k1536_flops_per_s", 60e9));
  REQUIRE(c.measured.set("attention_f32_bytes_per_s", 1e15));
  REQUIRE(c.measured.set("overhead_per_layer_s", 0));
  REQUIRE(c.measured.set("overhead_per_step_s", 0));
  return c;
}

// SmolLM2-135M's layout at widths q4_k's 256-value blocks divide (so bytes / bytes-per-value = weights exactly),
// 2 layers: FFN 3 x 2048 x 1024 weights per layer.
ModelSpec whole_block_model() {
  ModelSpec m = test::smollm2_135m();
  m.hidden = 1024;
  m.heads = 16;
  m.kv_heads = 4;
  m.head_dim = 64;
  m.ffn = 2048;
  m.layers = 2;
  return m;
}

double op_seconds(const SpeedPoint& p, const std::string& name) {
  for (size_t i = 0; i < p.decode_ops.size(); ++i)
    if (p.decode_ops[i].name == name) return p.decode_op_s[i];
  FAIL("no op " << name);
  return 0;
}

SpeedPoint decode_point(const ModelSpec& m, const ChipSpec& c) {
  PrecisionPlan plan;
  plan.weights = "q4_1";
  plan.kv = "fp32";
  SpeedOptions o;
  o.batches = {1};
  o.context = 16;
  return speed(m, c, plan, o).points.at(0);
}

// Seconds of the prefill op `name` for a q4_1 model (fp32 KV) with a prompt of `prompt` tokens.
double q4_1_prefill_op_s(const ModelSpec& m, const ChipSpec& c, const std::string& name, int64_t prompt) {
  SpeedOptions o;
  o.batches = {1};
  o.prompt_tokens = prompt;
  o.output_tokens = 1;
  const SpeedResult r = speed(m, c, PrecisionPlan{"q4_1", {}, "fp32", {}, {}, {}}, o);
  for (size_t i = 0; i < r.prefill_ops.size(); ++i)
    if (r.prefill_ops[i].name == name) return r.prefill_op_s.at(i);
  FAIL("no " << name << " op in the prefill");
  return 0.0;
}

}  // namespace

TEST_CASE("each matrix of an op is priced at its own width's calibrated arithmetic rate", "[speed]") {
  const ModelSpec m = test::smollm2_135m();  // hidden 576, 9 x 64 = 576 query width, FFN 1536, 30 layers
  const SpeedPoint p = decode_point(m, cpu_with_width_rates());
  // FFN: gate and up (1536 x 576 each) at k = 576, down (576 x 1536) at k = 1536: 2/3 and 1/3 of the FLOPs.
  // 2 x 3 x 1536 x 576 x 30 layers = 159,252,480 FLOPs; time = F (2/3 / 20e9 + 1/3 / 60e9).
  const double ffn_flops = 2.0 * 3 * 1536 * 576 * 30;
  CHECK(op_seconds(p, "ffn") == Approx(ffn_flops * (2.0 / 3 / 20e9 + 1.0 / 3 / 60e9)).epsilon(1e-9));
  // q, k, v, o all read k = 576: (576 + 2 x 192 + 576) x 576 x 2 x 30 FLOPs at 20e9.
  const double attn_flops = 2.0 * (576 + 2 * 192 + 576) * 576 * 30;
  CHECK(op_seconds(p, "attn_proj") == Approx(attn_flops / 20e9).epsilon(1e-9));
  // LM head (tied embeddings, 49152 x 576) at k = 576.
  CHECK(op_seconds(p, "lm_head") == Approx(2.0 * 49152 * 576 / 20e9).epsilon(1e-9));
}

TEST_CASE("widths between two calibrated ones interpolate in log k; beyond them the end value holds", "[speed]") {
  ModelSpec m = test::smollm2_135m();
  m.hidden = 896, m.heads = 14, m.kv_heads = 2;  // q and o widths 896; FFN down still 1536
  const SpeedPoint p = decode_point(m, cpu_with_width_rates());
  const double f = std::log(896.0 / 576) / std::log(1536.0 / 576);  // 0.4505
  const double rate896 = 20e9 + f * 40e9;                             // 38.0 GFLOP/s
  const double attn_flops = 2.0 * (896 + 2 * 128 + 896) * 896 * 30;
  CHECK(op_seconds(p, "attn_proj") == Approx(attn_flops / rate896).epsilon(1e-9));
  m.hidden = 4096, m.heads = 64, m.kv_heads = 8, m.ffn = 8192;  // every width above 1536: its rate, 60e9
  const SpeedPoint wide = decode_point(m, cpu_with_width_rates());
  const double wide_attn = 2.0 * (4096 + 2 * 512 + 4096) * 4096 * 30;
  CHECK(op_seconds(wide, "attn_proj") == Approx(wide_attn / 60e9).epsilon(1e-9));
}

TEST_CASE("per-width DRAM streaming rates set each width's memory roof; each width takes its own max", "[speed]") {
  ChipSpec c = cpu_with_width_rates();
  REQUIRE(c.measured.set("gemv_q4_1_arith_k576_flops_per_s", 1e15));  // arithmetic never binds here
  REQUIRE(c.measured.set("gemv_q4_1_arith_k1536_flops_per_s", 1e15));
  REQUIRE(c.measured.set("gemv_q4_1_stream_k576_bytes_per_s", 10e9));
  REQUIRE(c.measured.set("gemv_q4_1_stream_k1536_bytes_per_s", 20e9));
  const SpeedPoint p = decode_point(test::smollm2_135m(), c);
  for (size_t i = 0; i < p.decode_ops.size(); ++i) {
    const OpCost& op = p.decode_ops[i];
    INFO(op.name);
    if (op.name == "ffn")  // gate and up (2/3 of the weights) stream at k = 576, down (1/3) at k = 1536
      CHECK(p.decode_op_s[i] == Approx(op.bytes() * (2.0 / 3 / 10e9 + 1.0 / 3 / 20e9)).epsilon(1e-9));
    if (op.name == "attn_proj" || op.name == "lm_head") CHECK(p.decode_op_s[i] == Approx(op.bytes() / 10e9).epsilon(1e-9));
  }
  CHECK(p.bound == "memory");
}

TEST_CASE("a batch between two measured kernel sizes (1, 4, 16 tokens) is priced on the line between their times", "[speed]") {
  ChipSpec c = cpu_with_width_rates();  // memory never binds: each size's time is its FLOPs at its own rate
  REQUIRE(c.measured.set("gemv_batch4_q4_1_arith_k576_flops_per_s", 50e9));
  REQUIRE(c.measured.set("gemv_batch4_q4_1_arith_k1536_flops_per_s", 50e9));
  REQUIRE(c.measured.set("gemv_batch16_q4_1_arith_k576_flops_per_s", 80e9));
  REQUIRE(c.measured.set("gemv_batch16_q4_1_arith_k1536_flops_per_s", 80e9));
  const ModelSpec m = test::smollm2_135m();
  PrecisionPlan plan;
  plan.weights = "q4_1";
  plan.kv = "fp32";
  SpeedOptions o;
  o.batches = {1, 2, 3, 4, 10, 16, 32};
  o.context = 16;
  const SpeedResult r = speed(m, c, plan, o);
  // The LM head (49152 x 576, k = 576): one token's FLOPs F = 2 x 49152 x 576 = 56,623,104.
  // t(1) = F / 20e9, t(4) = 4F / 50e9, t(16) = 16F / 80e9 (hand-worked: 2.831, 4.530, 11.325 ms).
  const double F = 2.0 * 49152 * 576, t1 = F / 20e9, t4 = 4 * F / 50e9, t16 = 16 * F / 80e9;
  CHECK(op_seconds(r.points.at(0), "lm_head") == Approx(t1).epsilon(1e-9));
  CHECK(op_seconds(r.points.at(1), "lm_head") == Approx(t1 + (t4 - t1) / 3).epsilon(1e-9));      // 2 tokens: 3.397 ms
  CHECK(op_seconds(r.points.at(2), "lm_head") == Approx(t1 + 2 * (t4 - t1) / 3).epsilon(1e-9));  // 3 tokens: 3.964 ms
  CHECK(op_seconds(r.points.at(3), "lm_head") == Approx(t4).epsilon(1e-9));
  CHECK(op_seconds(r.points.at(4), "lm_head") == Approx(t4 + (t16 - t4) * 6 / 12).epsilon(1e-9));  // 10 tokens: 7.928 ms
  CHECK(op_seconds(r.points.at(5), "lm_head") == Approx(t16).epsilon(1e-9));
  CHECK(op_seconds(r.points.at(6), "lm_head") == Approx(2 * t16).epsilon(1e-9));  // past 16: 16's rate, twice the FLOPs
  // Without a 16-token calibration, 10 tokens take the 4-token kernel's rate: 10F / 50e9.
  ChipSpec c4 = cpu_with_width_rates();
  REQUIRE(c4.measured.set("gemv_batch4_q4_1_arith_k576_flops_per_s", 50e9));
  REQUIRE(c4.measured.set("gemv_batch4_q4_1_arith_k1536_flops_per_s", 50e9));
  o.batches = {10};
  CHECK(op_seconds(speed(m, c4, plan, o).points.at(0), "lm_head") == Approx(10 * F / 50e9).epsilon(1e-9));
}

TEST_CASE("a batch size not calibrated for a format takes its own one-token rates times its family's batching speed-up", "[speed]") {
  // q4_1 (legacy family) measured at 1, 4 and 16 tokens: speed-ups 50/20 = 2.5 (4 tokens) and 80/20 = 4 (16) at
  // k = 576. q4_0 (legacy too) has one-token rates only: 10e9 FLOP/s at k = 576. q8_0 (int8 family) batches with a
  // smaller speed-up (1.5), which must not be taken: another family's kernel shares its weight reads differently.
  ChipSpec c = cpu_with_width_rates();
  for (const char* k : {"576", "1536"}) {
    REQUIRE(c.measured.set(std::string("gemv_batch4_q4_1_arith_k") + k + "_flops_per_s", 50e9));
    REQUIRE(c.measured.set(std::string("gemv_batch16_q4_1_arith_k") + k + "_flops_per_s", 80e9));
    REQUIRE(c.measured.set(std::string("gemv_q8_0_arith_k") + k + "_flops_per_s", 20e9));
    REQUIRE(c.measured.set(std::string("gemv_batch4_q8_0_arith_k") + k + "_flops_per_s", 30e9));
    REQUIRE(c.measured.set(std::string("gemv_q4_0_arith_k") + k + "_flops_per_s", 10e9));
  }
  REQUIRE(c.measured.set("gemv_q4_0_bytes_per_s", 1e15));
  const ModelSpec m = test::smollm2_135m();
  auto lm_head_s = [&](const char* weights, int64_t batch) {
    PrecisionPlan plan;
    plan.weights = weights;
    plan.kv = "fp32";
    SpeedOptions o;
    o.batches = {batch};
    o.context = 16;
    return op_seconds(speed(m, c, plan, o).points.at(0), "lm_head");
  };
  // The LM head (49152 x 576): one token's FLOPs F = 2 x 49152 x 576 = 56,623,104. q4_0 at 4 tokens: 4F at
  // 10e9 x 2.5 = 25e9 FLOP/s = 9.060 ms; at 16: 16F at 10e9 x 4 = 40e9 = 22.65 ms; 10 tokens on the line between.
  const double F = 2.0 * 49152 * 576, t4 = 4 * F / 25e9, t16 = 16 * F / 40e9;
  CHECK(lm_head_s("q4_0", 1) == Approx(F / 10e9).epsilon(1e-9));
  CHECK(lm_head_s("q4_0", 4) == Approx(t4).epsilon(1e-9));
  CHECK(lm_head_s("q4_0", 16) == Approx(t16).epsilon(1e-9));
  CHECK(lm_head_s("q4_0", 10) == Approx(t4 + (t16 - t4) / 2).epsilon(1e-9));
  // q8_0's own measurement stands: 4F at 30e9.
  CHECK(lm_head_s("q8_0", 4) == Approx(4 * F / 30e9).epsilon(1e-9));
  // A float format borrows from none (their kernels convert different amounts per weight): fp16's 4 tokens stay four
  // GEMVs' FLOPs at its one-token rate though fp32 batches 4x.
  REQUIRE(c.measured.set("gemv_f32_arith_k576_flops_per_s", 10e9));
  REQUIRE(c.measured.set("gemv_batch4_f32_arith_k576_flops_per_s", 40e9));
  REQUIRE(c.measured.set("gemv_f16_arith_k576_flops_per_s", 10e9));
  CHECK(lm_head_s("fp16", 4) == Approx(4 * F / 10e9).epsilon(1e-9));
  // With q4_1's batches removed, q4_0's 4 tokens are four GEMVs' FLOPs at the one-token rate (not q8_0's speed-up).
  ChipSpec alone = cpu_with_width_rates();
  REQUIRE(alone.measured.set("gemv_q4_0_arith_k576_flops_per_s", 10e9));
  REQUIRE(alone.measured.set("gemv_q8_0_arith_k576_flops_per_s", 20e9));
  REQUIRE(alone.measured.set("gemv_batch4_q8_0_arith_k576_flops_per_s", 30e9));
  c = alone;
  CHECK(lm_head_s("q4_0", 4) == Approx(4 * F / 10e9).epsilon(1e-9));
}

TEST_CASE("a measured DRAM start per matmul region adds 4 regions per layer and the LM head's", "[speed]") {
  const ModelSpec m = test::smollm2_135m();  // 30 layers
  ChipSpec c = cpu_with_width_rates();
  const double without = decode_point(m, c).tpot_s;
  REQUIRE(c.measured.set("overhead_region_start_s", 5e-6));
  const SpeedPoint p = decode_point(m, c);
  // q/k/v, o, gate/up, down per layer, then the LM head: (4 x 30 + 1) x 5 µs = 605 µs.
  CHECK(p.tpot_s - without == Approx(605e-6).epsilon(1e-9));
  // The same cost is in a prompt's prefill pass.
  c.measured.overhead.region_start_s.reset();
  const double ttft_without = speed(m, c, PrecisionPlan{"q4_1", {}, "fp32", {}, {}, {}}, SpeedOptions{}).points.at(0).ttft_s;
  REQUIRE(c.measured.set("overhead_region_start_s", 5e-6));
  const double ttft_with = speed(m, c, PrecisionPlan{"q4_1", {}, "fp32", {}, {}, {}}, SpeedOptions{}).points.at(0).ttft_s;
  CHECK(ttft_with - ttft_without == Approx(605e-6).epsilon(1e-6));
}

TEST_CASE("a format with no GEMM calibration of its own borrows the slowest measured rates of its kind, not the peak", "[speed]") {
  const ModelSpec m = whole_block_model();
  ChipSpec c = cpu_with_width_rates();
  // Integer formats share one GEMM (int8 on VNNI CPUs), float formats another: each borrows from its own kind.
  REQUIRE(c.measured.set("gemm_f32_pack_bytes_per_s", 40e9));      // 10e9 weights/s (4 B each)
  REQUIRE(c.measured.set("gemm_f32_marginal_flops_per_s", 70e9));  // the slowest marginal rate overall
  REQUIRE(c.measured.set("gemm_q4_1_pack_bytes_per_s", 6e9));      // 9.6e9 weights/s (0.625 B each)
  REQUIRE(c.measured.set("gemm_q4_1_marginal_flops_per_s", 80e9));
  REQUIRE(c.measured.set("gemm_q8_0_pack_bytes_per_s", 5e9));      // 4.706e9 weights/s (1.0625 B each): the slowest overall
  REQUIRE(c.measured.set("gemm_q8_0_marginal_flops_per_s", 75e9));
  auto ttft = [&](const std::string& ffn_format) {
    PrecisionPlan plan;
    plan.weights = "q4_1";
    plan.per_class[ParamClass::dense_ffn] = ffn_format;
    plan.kv = "fp32";
    SpeedOptions o;
    o.batches = {1};
    o.prompt_tokens = 64;
    o.output_tokens = 1;
    return speed(m, c, plan, o).points.at(0).ttft_s;
  };
  // Only the FFN differs. Its V = 3 x 2048 x 1024 x 2 layers weights, F = 2 V x 64 tokens FLOPs:
  // q4_1 (its own pair): 0.625 V / 6e9 + F / 80e9; q4_k (borrowed from q4_1 and q8_0, the integer formats):
  // V / 4.706e9 + F / 75e9; fp16 (borrowed from f32, the float format): V / 10e9 + F / 70e9.
  const double V = 3.0 * 2048 * 1024 * 2, F = 2 * V * 64, own = 0.625 * V / 6e9 + F / 80e9;
  CHECK(ttft("q4_k") - ttft("q4_1") == Approx((V / (5e9 / 1.0625) + F / 75e9) - own).epsilon(1e-6));
  CHECK(ttft("fp16") - ttft("q4_1") == Approx((V / 10e9 + F / 70e9) - own).epsilon(1e-6));
  // A format with its own plain n = 128 rate (its pair rejected as noise) keeps that rate: nothing is borrowed.
  REQUIRE(c.measured.set("gemm_q4_k_flops_per_s", 50e9));
  CHECK(ttft("q4_k") - ttft("q4_1") == Approx(F / 50e9 - own).epsilon(1e-6));
  // With no measured format of its kind, a format borrows from every measured one: q4_k then takes f32's pair,
  // as fp16 does.
  for (const char* f : {"q4_1", "q8_0", "q4_k"}) c.measured.formats.at(f).gemm = {};
  CHECK(ttft("q4_k") == Approx(ttft("fp16")).epsilon(1e-9));
}

TEST_CASE("a borrowed GEMM takes the slowest of each rate of its kind: pack at each row length, FLOPs, activations", "[speed]") {
  const ModelSpec m = whole_block_model();
  ChipSpec c = cpu_with_width_rates();
  // q4_1 packs slower at short rows (in weights per second), q8_0 at the wide shape; q8_0's FLOPs are faster,
  // q4_1's activations slower.
  REQUIRE(c.measured.set("gemm_q4_1_pack_bytes_per_s", 6e9));        // 9.6e9 weights/s at k = 4096
  REQUIRE(c.measured.set("gemm_q4_1_pack_k576_bytes_per_s", 6.25e9)); // 10e9 weights/s at k = 576
  REQUIRE(c.measured.set("gemm_q4_1_marginal_flops_per_s", 80e9));
  REQUIRE(c.measured.set("gemm_q4_1_act_bytes_per_s", 2e9));
  REQUIRE(c.measured.set("gemm_q8_0_pack_bytes_per_s", 8.5e9));       // 8e9 weights/s at k = 4096
  REQUIRE(c.measured.set("gemm_q8_0_pack_k576_bytes_per_s", 17e9));   // 16e9 weights/s at k = 576
  REQUIRE(c.measured.set("gemm_q8_0_marginal_flops_per_s", 200e9));
  REQUIRE(c.measured.set("gemm_q8_0_act_bytes_per_s", 4e9));
  PrecisionPlan plan{"q4_k", {}, "fp32", {}, {}, {}};
  SpeedOptions o;
  o.batches = {1};
  o.prompt_tokens = 100;
  o.output_tokens = 1;
  const SpeedResult r = speed(m, c, plan, o);
  double ffn = 0;
  for (size_t i = 0; i < r.prefill_ops.size(); ++i)
    if (r.prefill_ops[i].name == "ffn") ffn = r.prefill_op_s.at(i);
  // The FFN: V = 3 x 2048 x 1024 x 2 layers weights; gate and up at k = 1024 (2/3), down at k = 2048 (1/3).
  // Slowest pack in weights/s: at k = 576 q4_1's 10e9, at k = 4096 q8_0's 8e9; between, each format's own line
  // in log k, then the lower: at k = 1024 q4_1 10e9 - 0.4e9 f = 9.883e9 vs q8_0 16e9 - 8e9 f = 13.653e9 (f = 0.2933);
  // at k = 2048 q4_1 9.741e9 vs q8_0 10.827e9 (f = 0.6467). FLOPs at q4_1's 80e9, activations at q4_1's 2e9:
  // 2 layers x 100 tokens x (3 x 1024 + 3 x 2048) values x 4 B = 7,372,800 B.
  const double V = 3.0 * 2048 * 1024 * 2, f1 = std::log(1024.0 / 576) / std::log(4096.0 / 576),
               f2 = std::log(2048.0 / 576) / std::log(4096.0 / 576);
  const double r1 = std::min(10e9 - 0.4e9 * f1, 16e9 - 8e9 * f1), r2 = std::min(10e9 - 0.4e9 * f2, 16e9 - 8e9 * f2);
  CHECK(r1 == Approx(9.883e9).epsilon(1e-3));
  CHECK(r2 == Approx(9.741e9).epsilon(1e-3));
  CHECK(ffn == Approx(V * (2.0 / 3 / r1 + 1.0 / 3 / r2) + 2 * V * 100 / 80e9 + 7372800 / 2e9).epsilon(1e-9));
}

TEST_CASE("a token's small-op values count every norm and a per-head q/k norm", "[work]") {
  ModelSpec m = test::smollm2_135m();  // d = 576, 9 + 3 heads of 64, FFN 1536
  const PrecisionPlan plan{"q4_1", {}, "fp32", {}, {}, {}};
  // 2 norms + 2 adds = 4 x 576, RoPE on (9 + 3) x 64 = 768, SwiGLU on 1536: 4,608.
  CHECK(pass_work(m, plan, PassShape{1, 1, 0, false}).elementwise_values == 4608);
  // Gemma 3's four norms and q/k norms: 6 x 576 + 2 x 768 + 1536 = 6,528.
  m.norms_per_layer = 4;
  m.qk_norm = true;
  CHECK(pass_work(m, plan, PassShape{1, 1, 0, false}).elementwise_values == 6528);
}

TEST_CASE("a class whose file mixes formats prices each format's matrices at that format's own rates", "[speed]") {
  // A Q4_K_M-like FFN: gate and up (1536 x 576, k = 576) in q4_1, down (576 x 1536, k = 1536) in q8_0.
  ChipSpec c = cpu_with_width_rates();
  REQUIRE(c.measured.set("gemv_q8_0_bytes_per_s", 1e15));
  REQUIRE(c.measured.set("gemv_q8_0_arith_flops_per_s", 30e9));  // no per-width rates: one rate at every width
  const ModelSpec m = test::smollm2_135m();
  PrecisionPlan plan;
  plan.weights = "q4_1";
  plan.kv = "fp32";
  const double gate_up = 2.0 * 1536 * 576 * 30, down = 1536.0 * 576 * 30;  // weights over 30 layers
  plan.stored_matrices[ParamClass::dense_ffn] = {{"q4_1", 576, gate_up, gate_up * 0.75},
                                                 {"q8_0", 1536, down, down * 1.0625}};
  SpeedOptions o;
  o.batches = {1};
  o.context = 16;
  const SpeedPoint p = speed(m, c, plan, o).points.at(0);
  // gate and up at q4_1's k = 576 rate (20e9), down at q8_0's rate (30e9); all of it at q4_1's rates would be
  // 2 gate_up / 20e9 + 2 down / 60e9 instead (the k = 1536 rate for the down matrix).
  CHECK(op_seconds(p, "ffn") == Approx(2 * gate_up / 20e9 + 2 * down / 30e9).epsilon(1e-9));
  // One format in the whole class: the plain path (the class's format and the card's widths).
  plan.stored_matrices[ParamClass::dense_ffn] = {{"q4_1", 576, gate_up, gate_up * 0.75}, {"q4_1", 1536, down, down * 0.75}};
  const SpeedPoint one = speed(m, c, plan, o).points.at(0);
  CHECK(op_seconds(one, "ffn") == Approx(2 * gate_up / 20e9 + 2 * down / 60e9).epsilon(1e-9));
}

TEST_CASE("a prefill GEMM past the calibration's knot prices the tokens beyond it at the slope measured there", "[speed]") {
  const ModelSpec m = whole_block_model();
  ChipSpec c = cpu_with_width_rates();
  REQUIRE(c.measured.set("gemm_q4_1_pack_bytes_per_s", 6e9));
  REQUIRE(c.measured.set("gemm_q4_1_marginal_flops_per_s", 80e9));
  auto ffn_s = [&](int64_t prompt) { return q4_1_prefill_op_s(m, c, "ffn", prompt); };
  // The FFN's V = 3 x 2048 x 1024 x 2 layers weights (q4_1: 0.625 B each); 2 V FLOPs per token.
  const double V = 3.0 * 2048 * 1024 * 2, pack = 0.625 * V / 6e9;
  const double below = ffn_s(512);
  CHECK(below == Approx(pack + 2 * V * 512 / 80e9).epsilon(1e-9));  // one slope without the large-n rate
  REQUIRE(c.measured.set("gemm_q4_1_marginal_large_flops_per_s", 40e9));
  // 512 tokens: the first 128 at 80e9, the other 384 at 40e9.
  CHECK(ffn_s(512) == Approx(pack + 2 * V * 128 / 80e9 + 2 * V * 384 / 40e9).epsilon(1e-9));
  CHECK(ffn_s(100) == Approx(pack + 2 * V * 100 / 80e9).epsilon(1e-9));  // below the knot: unchanged
  // The activations in and out at their own rate: gate, up and down read 1024, 1024 and 2048 values a token and
  // write 2048, 2048 and 1024: 2 layers x 100 tokens x (3 x 1024 + 3 x 2048) values x 4 B = 7,372,800 B at 1e9 B/s
  // = 7.3728 ms on top.
  REQUIRE(c.measured.set("gemm_q4_1_act_bytes_per_s", 1e9));
  CHECK(ffn_s(100) == Approx(pack + 2 * V * 100 / 80e9 + 7.3728e-3).epsilon(1e-9));
  // A pack rate measured at shorter rows (k = 576: 12e9 B/s) beside the wide shape's (k = 4096: 6e9): each width
  // of the op packs at the rate interpolated in log k. Gate and up (k = 1024, 2/3 of the weights): 12e9 - 6e9 x
  // ln(1024/576) / ln(4096/576) = 10.240e9; down (k = 2048, 1/3): 12e9 - 6e9 x 0.6467 = 8.120e9.
  REQUIRE(c.measured.set("gemm_q4_1_pack_k576_bytes_per_s", 12e9));
  const double r1024 = 12e9 - 6e9 * std::log(1024.0 / 576) / std::log(4096.0 / 576), r2048 = 12e9 - 6e9 * std::log(2048.0 / 576) / std::log(4096.0 / 576);
  CHECK(r1024 == Approx(10.240e9).epsilon(1e-3));
  CHECK(r2048 == Approx(8.120e9).epsilon(1e-3));
  const double pack_widths = 0.625 * V * (2.0 / 3 / r1024 + 1.0 / 3 / r2048);
  CHECK(ffn_s(100) == Approx(pack_widths + 2 * V * 100 / 80e9 + 7.3728e-3).epsilon(1e-9));
  CHECK(pack_widths < 0.8 * pack);  // it moved: the test can fail
}

TEST_CASE("a prefill's LM head (one token's logits) is priced as the GEMV the engine runs, not as a GEMM", "[speed]") {
  // The analyzer's limit is the kernels' multi-RHS GEMV limit.
  STATIC_REQUIRE(rooftop::kCpuGemvMaxTokens == double(rooftop::kernels::kSmallGemmMaxN));
  ChipSpec c = cpu_with_width_rates();
  REQUIRE(c.measured.set("gemm_q4_1_pack_bytes_per_s", 1e9));  // slow enough that pricing the head as a GEMM would show
  REQUIRE(c.measured.set("gemm_q4_1_marginal_flops_per_s", 80e9));
  const ModelSpec m = test::smollm2_135m();  // tied embeddings: the head is the 49152 x 576 q4_1 table
  SpeedOptions o;
  o.batches = {1};
  o.prompt_tokens = 64;
  o.output_tokens = 1;
  const SpeedResult r = speed(m, c, PrecisionPlan{"q4_1", {}, "fp32", {}, {}, {}}, o);
  double head = -1;
  for (size_t i = 0; i < r.prefill_ops.size(); ++i)
    if (r.prefill_ops[i].name == "lm_head") head = r.prefill_op_s.at(i);
  // One token's GEMV at k = 576: 2 x 49152 x 576 FLOPs at the k = 576 arithmetic rate, 20e9 (its bytes stream at
  // 1e15 B/s). As a GEMM it would be 0.625 x 49152 x 576 B / 1e9 = 17.7 ms of dequantize-and-pack alone.
  CHECK(head == Approx(2.0 * 49152 * 576 / 20e9).epsilon(1e-9));
  CHECK(head == Approx(op_seconds(r.points.at(0), "lm_head")).epsilon(1e-9));  // as in a decode step
}

TEST_CASE("a prompt below the kernels' recorded GEMM threshold for its format is priced as the GEMV rows the engine runs", "[speed]") {
  ChipSpec c = cpu_with_width_rates();
  REQUIRE(c.measured.set("gemm_q4_1_pack_bytes_per_s", 1e9));  // slow: a GEMM would cost 0.625 B x weights / 1e9 to pack
  REQUIRE(c.measured.set("gemm_q4_1_marginal_flops_per_s", 80e9));
  const ModelSpec m = test::smollm2_135m();
  auto ffn_s = [&](int64_t prompt) { return q4_1_prefill_op_s(m, c, "ffn", prompt); };
  // No threshold recorded: 12 tokens run the GEMM (more than kCpuGemvMaxTokens), at least the FFN's pack time:
  // 3 x 1536 x 576 x 30 weights x 0.625 B / 1e9 B/s = 49.8 ms.
  const double as_gemm = ffn_s(12);
  CHECK(as_gemm > 49.7e-3);
  // The amx table's q4_1 threshold (17): 12 tokens run as GEMV rows, 12 tokens' FLOPs at the per-width arithmetic
  // rates of the single-token kernel (the fixture's only GEMV kind): 12 x 159,252,480 x (2/3 / 20e9 + 1/3 / 60e9).
  REQUIRE(c.measured.set("gemm_q4_1_min_tokens_k32", 17));
  CHECK(c.measured.get("gemm_q4_1_min_tokens_k32") == 17);
  const double ffn_flops = 2.0 * 3 * 1536 * 576 * 30;
  CHECK(ffn_s(12) == Approx(12 * ffn_flops * (2.0 / 3 / 20e9 + 1.0 / 3 / 60e9)).epsilon(1e-9));
  CHECK(ffn_s(17) > 49.7e-3);  // at the threshold: the GEMM again
  // Not a whole number of tokens, or an unknown format: refused.
  CHECK_FALSE(c.measured.set("gemm_q4_1_min_tokens_k32", 8.5));
  CHECK_FALSE(c.measured.set("gemm_q9_9_min_tokens_k32", 8));
  CHECK_FALSE(c.measured.set("gemm_q4_1_min_tokens", 8));  // no row length
  CHECK_FALSE(c.measured.set("gemm_q4_1_min_tokens_k0", 8));
  // A threshold that depends on the row length: from k = 1024, 17; below, 9. The FFN's up and gate (k = 576, 2/3 of
  // its weights) then run the GEMM at 12 tokens and its down (k = 1536, 1/3) GEMV rows: the op is priced as two.
  ChipSpec w = c;
  REQUIRE(w.measured.set("gemm_q4_1_min_tokens_k32", 9));
  REQUIRE(w.measured.set("gemm_q4_1_min_tokens_k1024", 17));
  c = w;
  const double split = ffn_s(12);
  // The down projection's share as GEMV rows: 12 tokens' FLOPs of its 1/3 at 60e9 (k = 1536).
  const double down_gemv = 12 * ffn_flops / 3 / 60e9;
  // The up and gate's share as the GEMM: at least its pack time, 2/3 of the 49.8 ms above.
  CHECK(split > down_gemv + 2.0 / 3 * 49.7e-3);
  CHECK(split < as_gemm);  // a third of the weights no longer packed
  // Priced the same as the two halves computed apart: the all-GEMV op's down share plus the GEMM's up/gate share.
  ChipSpec all_gemm = c;
  REQUIRE(all_gemm.measured.set("gemm_q4_1_min_tokens_k1024", 9));
  c = all_gemm;
  const double gemm_whole = ffn_s(12);
  CHECK(split == Approx(down_gemv + gemm_whole * 2.0 / 3).epsilon(0.02));
}

TEST_CASE("prefill attention with a measured row cost: each (token, head) row's fixed work plus FLOPs at the marginal rate", "[speed]") {
  ChipSpec c = cpu_with_width_rates();
  REQUIRE(c.measured.set("attention_f32_bytes_per_s", 1e15));  // the reads never bind here
  REQUIRE(c.measured.set("attention_prefill_f32_flops_per_s", 80e9));
  const ModelSpec m = test::smollm2_135m();  // 30 layers, 9 query heads of 64
  auto attention_s = [&](int64_t prompt) { return q4_1_prefill_op_s(m, c, "attention", prompt); };
  // 64 tokens: 64 x 65 / 2 = 2080 causal pairs x 9 heads x 2 x (64 + 64) FLOPs x 30 layers = 143,769,600 FLOPs;
  // rows 64 x 9 x 30 = 17,280.
  CHECK(attention_s(64) == Approx(143769600.0 / 80e9).epsilon(1e-9));  // the one rate
  REQUIRE(c.measured.set("attention_prefill_f32_marginal_flops_per_s", 100e9));
  CHECK(attention_s(64) == Approx(143769600.0 / 80e9).epsilon(1e-9));  // a marginal rate alone changes nothing
  REQUIRE(c.measured.set("overhead_attention_row_s", 5e-8));
  CHECK(attention_s(64) == Approx(143769600.0 / 100e9 + 17280 * 5e-8).epsilon(1e-9));  // 2.3017 ms
}

TEST_CASE("a pass whose weights fit the cache-resident size reads them at the in-cache rate; beyond it a GEMM pays "
          "the DRAM cost of its weights", "[speed]") {
  // Decode: SmolLM2-135M's q4_1 FFN with a slow DRAM streaming rate at k = 576 (1e9 B/s) beside the in-cache
  // arithmetic rates of cpu_with_width_rates (20e9 FLOP/s at k = 576, 60e9 at 1536).
  ChipSpec c = cpu_with_width_rates();
  REQUIRE(c.measured.set("gemv_q4_1_stream_k576_bytes_per_s", 1e9));
  const ModelSpec m = test::smollm2_135m();
  const double ffn_flops = 2.0 * 3 * 1536 * 576 * 30;
  const double in_cache = ffn_flops * (2.0 / 3 / 20e9 + 1.0 / 3 / 60e9);
  const double beyond = op_seconds(decode_point(m, c), "ffn");
  CHECK(beyond > 2 * in_cache);  // the DRAM rate binds: gate and up stream at 1e9 B/s
  REQUIRE(c.measured.set("cache_resident_bytes", 1e12));  // the whole pass fits: the in-cache rates alone
  CHECK(op_seconds(decode_point(m, c), "ffn") == Approx(in_cache).epsilon(1e-9));
  // A cache holding a quarter of the pass's weights and KV: each decode step sweeps all of them, so all from DRAM.
  PrecisionPlan plan;
  plan.weights = "q4_1";
  plan.kv = "fp32";
  const PassWork w = pass_work(m, plan, PassShape{1, 1, 15, false}, 4.0);  // decode_point's step: context 16
  REQUIRE(c.measured.set("cache_resident_bytes", 0.25 * (w.weight_bytes + w.kv_read_bytes)));
  CHECK(op_seconds(decode_point(m, c), "ffn") == Approx(beyond).epsilon(1e-9));

  // Prefill: the FFN GEMM of whole_block_model (V = 3 x 2048 x 1024 x 2 layers q4_1 weights, 0.625 B each),
  // 100 tokens, pack 6e9 B/s and 80e9 FLOP/s marginal, plus 0.625 V / 2e9 s with the weights from DRAM.
  ChipSpec g = cpu_with_width_rates();
  REQUIRE(g.measured.set("gemm_q4_1_pack_bytes_per_s", 6e9));
  REQUIRE(g.measured.set("gemm_q4_1_marginal_flops_per_s", 80e9));
  REQUIRE(g.measured.set("gemm_q4_1_dram_bytes_per_s", 2e9));
  const ModelSpec wb = whole_block_model();
  auto ffn_s = [&] { return q4_1_prefill_op_s(wb, g, "ffn", 100); };
  const double V = 3.0 * 2048 * 1024 * 2, cached = 0.625 * V / 6e9 + 2 * V * 100 / 80e9;
  CHECK(ffn_s() == Approx(cached + 0.625 * V / 2e9).epsilon(1e-9));  // no resident size known: DRAM
  REQUIRE(g.measured.set("cache_resident_bytes", 1e12));
  CHECK(ffn_s() == Approx(cached).epsilon(1e-9));
  const PassWork pw = pass_work(wb, PrecisionPlan{"q4_1", {}, "fp32", {}, {}, {}}, PassShape{1, 100, 0, false}, 4.0);
  REQUIRE(g.measured.set("cache_resident_bytes", 0.5 * (pw.weight_bytes + pw.kv_read_bytes)));  // half from DRAM
  CHECK(ffn_s() == Approx(cached + 0.5 * 0.625 * V / 2e9).epsilon(1e-9));
}

TEST_CASE("a calibrated CPU's fixed costs split by the engine's stages, summing to the step's time outside its ops",
          "[speed][explain]") {
  // Hand-worked for SmolLM2-135M's shape (30 layers, width 576, 9 + 3 heads of 64, FFN 1536) at 1 token:
  //   region starts: 4 us each; 2 per layer in attn_proj and in ffn: 2 x 30 x 4 us = 240 us each; lm_head 4 us;
  //   norms: the two input norms' 2 x 576 values x 30 layers x 2 ns = 69.12 us;
  //   small_ops: barriers 30 x 1.5 us + step 100 us + the other values ((2 + 2) x 576 - 2 x 576 (the input norms)
  //     + 768 q/k + 1536 FFN = 3456 values) x 30 x 2 ns = 45 + 100 + 207.36 = 352.36 us.
  ChipSpec c = cpu_with_width_rates();
  REQUIRE(c.measured.set("overhead_sync_per_layer_s", 1.5e-6));
  REQUIRE(c.measured.set("overhead_per_value_s", 2e-9));
  REQUIRE(c.measured.set("overhead_region_start_s", 4e-6));
  REQUIRE(c.measured.set("overhead_per_step_s", 100e-6));
  const ModelSpec m = test::smollm2_135m();
  REQUIRE(m.norms_per_layer == 2);
  const SpeedPoint p = decode_point(m, c);
  const FixedByStage& f = p.decode_fixed;
  CHECK(f.attn_proj == Approx(240e-6).epsilon(1e-9));
  CHECK(f.ffn == Approx(240e-6).epsilon(1e-9));
  CHECK(f.lm_head == Approx(4e-6).epsilon(1e-9));
  CHECK(f.norms == Approx(69.12e-6).epsilon(1e-9));
  CHECK(f.small_ops == Approx(352.36e-6).epsilon(1e-6));
  double ops = 0;
  for (double s : p.decode_op_s) ops += s;
  CHECK(f.total() == Approx(p.tpot_s - ops).epsilon(1e-9));
}
