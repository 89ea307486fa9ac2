// Runtime profiles: one hand-worked prediction per profile term, the card parser's refusals, the fit
// recovering known terms, and the leave-one-source-out arithmetic on a toy dataset.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <set>

#include "formats/formats.h"
#include "analyzer/runtime.h"
#include "analyzer/speed.h"
#include "base/errors.h"
#include "hwdb/hwdb.h"
#include "hwdb/runtime_cards.h"
#include "models/models.h"
#include "tests/analyzer/seed_models.h"
#include "validate/compare.h"
#include "validate/fit.h"
#include "validate/predict.h"

using namespace rooftop;

namespace {

ChipSpec toy_chip() {
  ChipSpec c = test::chip_spec("toy", "gpu", 80e9, 1e12, {{"fp32", 1e13}, {"bf16", 1e14}, {"fp16", 1e14}, {"int8", 2e14}});
  c.architecture = "ampere";
  return c;
}

CompactPass one_op(CompactOp::Kind kind, FormatFamily fam, double bytes, double flops, double peak, double tokens) {
  CompactPass p;
  p.ops.push_back({kind, fam, bytes, flops, peak});
  p.tokens = tokens;
  p.layers = 32;
  return p;
}

RuntimeProfile zero_fixed(RuntimeProfile p) {
  p.per_layer_s = 0;
  p.per_step_s = 0;
  return p;
}

}  // namespace

TEST_CASE("each profile term, worked by hand", "[runtime]") {
  const ChipSpec chip = toy_chip();
  RuntimeProfile p = zero_fixed(generic_profile(false));
  p.decode_bandwidth_fraction = {{"*/*", 0.8}, {"kquant/*", 0.6}, {"kquant/ampere", 0.5}};
  p.gemm_fraction = {{"*/*", 0.7}, {"float/*", 0.4}};

  SECTION("decode bandwidth fraction: the most specific cell wins") {
    // 1 GB of q4_k weights at 1 TB/s x 0.5 (kquant/ampere) = 2 ms; the FLOPs are negligible.
    CHECK(pass_seconds(one_op(CompactOp::matmul, FormatFamily::kquant, 1e9, 1e6, 2e14, 1), resolve_rates(p, chip, 0)) ==
          Approx(2e-3));
    ChipSpec hopper = chip;
    hopper.architecture = "hopper";  // no kquant/hopper cell: kquant/* = 0.6 -> 1.667 ms
    CHECK(pass_seconds(one_op(CompactOp::matmul, FormatFamily::kquant, 1e9, 1e6, 2e14, 1), resolve_rates(p, hopper, 0)) ==
          Approx(1e-3 / 0.6));
    // fp8 has no cell of its own: */* = 0.8 -> 1.25 ms
    CHECK(pass_seconds(one_op(CompactOp::matmul, FormatFamily::fp8, 1e9, 1e6, 2e14, 1), resolve_rates(p, chip, 0)) == Approx(1.25e-3));
  }
  SECTION("decode bandwidth fraction: a family without a cell of its own on a chip takes the chip's adjustment") {
    // */ampere 0.6 against */* 0.8: ampere chips reach 3/4 of the typical fraction. kquant/ampere has its own cell
    // (0.5, 2 ms); legacy on ampere: legacy/* 0.72 x 0.6 / 0.8 = 0.54 -> 1 GB at 1 TB/s = 1.852 ms; fp8 (no family
    // cell): 0.8 x 0.6 / 0.8 = 0.6 -> 1.667 ms; on hopper (no */hopper) legacy keeps 0.72 -> 1.389 ms.
    p.decode_bandwidth_fraction["*/ampere"] = 0.6;
    p.decode_bandwidth_fraction["legacy/*"] = 0.72;
    auto ms = [&](FormatFamily f, const ChipSpec& c) {
      return pass_seconds(one_op(CompactOp::matmul, f, 1e9, 1e6, 2e14, 1), resolve_rates(p, c, 0));
    };
    CHECK(ms(FormatFamily::kquant, chip) == Approx(2e-3));
    CHECK(ms(FormatFamily::legacy, chip) == Approx(1.852e-3).epsilon(1e-3));
    CHECK(ms(FormatFamily::fp8, chip) == Approx(1.667e-3).epsilon(1e-3));
    ChipSpec hopper = chip;
    hopper.architecture = "hopper";
    CHECK(ms(FormatFamily::legacy, hopper) == Approx(1.389e-3).epsilon(1e-3));
    // A vendor's adjustment stands in for an architecture without one: */nvidia 0.4 -> legacy on hopper 0.36.
    p.decode_bandwidth_fraction["*/nvidia"] = 0.4;
    CHECK(ms(FormatFamily::legacy, hopper) == Approx(1e-3 / 0.36).epsilon(1e-3));
    // Never above the datasheet: legacy/* 0.95 on */ampere 0.9 against */* 0.8 is capped at 1 (1 ms).
    p.decode_bandwidth_fraction["legacy/*"] = 0.95;
    p.decode_bandwidth_fraction["*/ampere"] = 0.9;
    CHECK(ms(FormatFamily::legacy, chip) == Approx(1e-3));
  }
  SECTION("a chip streams at most its compute units x clock x the per-unit, per-cycle rate, as a soft minimum") {
    // fp8 at */* 0.8 of 1 TB/s = 800 GB/s; 100 units x 2.5 B/cycle x 2 GHz = 500 GB/s; (800^-3 + 500^-3)^(-1/3) =
    // 464.9 GB/s: 1 GB in 2.151 ms. With 320 units (1.6 TB/s, twice the fraction's rate): 769.2 GB/s, 1.300 ms;
    // the same 320 units at 1 GHz (800 GB/s, equal to the fraction's): 800 x 2^(-1/3) = 635.0 GB/s, 1.575 ms.
    p.unit_stream_bytes_per_cycle = 2.5;
    ChipSpec c = chip;
    auto ms = [&](const ChipSpec& on) {
      return pass_seconds(one_op(CompactOp::matmul, FormatFamily::fp8, 1e9, 1e6, 2e14, 1), resolve_rates(p, on, 0));
    };
    CHECK(ms(c) == Approx(1.25e-3));  // no compute units or clock on the card: no cap
    c.compute_units = 100;
    CHECK(ms(c) == Approx(1.25e-3));  // units but no clock: no cap
    c.boost_clock_hz = 2e9;
    CHECK(ms(c) == Approx(2.151e-3).epsilon(1e-3));
    c.compute_units = 320;
    CHECK(ms(c) == Approx(1.300e-3).epsilon(1e-3));
    c.boost_clock_hz = 1e9;
    CHECK(ms(c) == Approx(1.575e-3).epsilon(1e-3));
    p.unit_stream_bytes_per_cycle = 0;  // 0: no cap
    CHECK(ms(c) == Approx(1.25e-3));
  }
  SECTION("a low-bit k-quant never streams faster than the k-quants on the same chip") {
    // lowbit/* 0.9 would stream 1 GB at 1 TB/s in 1.111 ms; the kquant cell on this (ampere) chip is 0.5, so lowbit
    // takes 0.5 (2 ms). On hopper (kquant/* 0.6) it takes 0.6 (1.667 ms); a lowbit cell below kquant's stands (0.3).
    auto ms = [&](const ChipSpec& c) {
      return pass_seconds(one_op(CompactOp::matmul, FormatFamily::lowbit, 1e9, 1e6, 2e14, 1), resolve_rates(p, c, 0));
    };
    p.decode_bandwidth_fraction["lowbit/*"] = 0.9;
    CHECK(ms(chip) == Approx(2e-3));
    ChipSpec hopper = chip;
    hopper.architecture = "hopper";
    CHECK(ms(hopper) == Approx(1e-3 / 0.6));
    p.decode_bandwidth_fraction["lowbit/*"] = 0.3;
    CHECK(ms(hopper) == Approx(1e-3 / 0.3));
  }
  SECTION("q2_k and q3_k are their own family (lowbit); q4_k_m's q6_k is kquant") {
    CHECK(format_family("q2_k") == FormatFamily::lowbit);
    CHECK(format_family("q3_k") == FormatFamily::lowbit);
    CHECK(format_family("iq2_xs") == FormatFamily::lowbit);
    CHECK(format_family("q6_k") == FormatFamily::kquant);
    CHECK(format_family("q4_k_m") == FormatFamily::kquant);
    CHECK(format_family("q4_0") == FormatFamily::legacy);
  }
  SECTION("GEMM fraction: 1 TFLOP of bf16 at 100 TFLOP/s x 0.4 = 25 ms") {
    CHECK(pass_seconds(one_op(CompactOp::matmul, FormatFamily::float_, 1e6, 1e12, 1e14, 512), resolve_rates(p, chip, 0)) ==
          Approx(25e-3));
  }
  SECTION("f16 GEMMs that accumulate in fp16 run at the card's fp16-accumulate rate (GeForce: 2x)") {
    ChipSpec g = chip;
    g.peak_flops["fp16_acc16"] = 2e14;
    PassWork w;
    w.tokens = 512;
    w.seqs = 1;
    w.ops.push_back(OpCost{"ffn", "matmul", "f16", 1e12, 1e6});
    w.ops.push_back(OpCost{"attn", "matmul", "bf16", 1e12, 1e6});
    const CompactPass c = compact_pass(w, g, 1, 1);
    // Without the term: 2 x 1 TFLOP at 100 TFLOP/s x 0.4 (float/*) = 50 ms.
    CHECK(pass_seconds(c, resolve_rates(p, g, 0)) == Approx(50e-3));
    // With it, the f16 op runs at 200 TFLOP/s x 0.4: 12.5 ms + 25 ms (bf16 accumulates in fp32 as before).
    p.fp16_accumulate = true;
    CHECK(pass_seconds(c, resolve_rates(p, g, 0)) == Approx(37.5e-3));
    // A card without the figure (full-rate fp32 accumulation) is unchanged.
    CHECK(pass_seconds(compact_pass(w, chip, 1, 1), resolve_rates(p, chip, 0)) == Approx(50e-3));
  }
  SECTION("small batches of quantized weights run on the vector units") {
    p.small_batch_tokens = 8;
    p.small_batch_lane_multiple = 0.5;  // 0.5 x 10 TFLOP/s fp32 (the card states no units or clock)
    // 4 tokens: 1e11 FLOPs / 5e12 = 20 ms (compute-bound; the 1 MB of weights take 2 µs).
    CHECK(pass_seconds(one_op(CompactOp::matmul, FormatFamily::kquant, 1e6, 1e11, 2e14, 4), resolve_rates(p, chip, 0)) ==
          Approx(20e-3));
    // 16 tokens: the int8 tensor path, 2e14 x 0.7 (*/*) -> 1e11 / 1.4e14 = 0.714 ms.
    CHECK(pass_seconds(one_op(CompactOp::matmul, FormatFamily::kquant, 1e6, 1e11, 2e14, 16), resolve_rates(p, chip, 0)) ==
          Approx(1e11 / 1.4e14));
    // Float weights never take the vector path: 1e11 / (1e14 x 0.4) = 2.5 ms.
    CHECK(pass_seconds(one_op(CompactOp::matmul, FormatFamily::float_, 1e6, 1e11, 1e14, 4), resolve_rates(p, chip, 0)) ==
          Approx(2.5e-3));
  }
  SECTION("fixed costs: 32 layers x 10 µs + 50 µs per step") {
    p.per_layer_s = 10e-6;
    p.per_step_s = 50e-6;
    CHECK(pass_seconds(one_op(CompactOp::other, FormatFamily::float_, 0, 0, 1e14, 1), resolve_rates(p, chip, 0)) == Approx(370e-6));
  }
  SECTION("attention: decode streams KV at the float bandwidth x attention fraction; prefill scores at its own fraction") {
    p.attention_fraction = 0.5;
    p.prefill_attention_fraction = 0.25;
    // 1 GB of KV at 1 TB/s x 0.8 (*/*) x 0.5 = 2.5 ms
    CHECK(pass_seconds(one_op(CompactOp::attention, FormatFamily::float_, 1e9, 1e6, 1e14, 1), resolve_rates(p, chip, 0)) ==
          Approx(2.5e-3));
    // prefill: 1e12 FLOPs at 1e14 x 0.4 (float/*) x 0.25 = 100 ms
    CompactPass pre = one_op(CompactOp::attention, FormatFamily::float_, 1e6, 1e12, 1e14, 512);
    pre.prefill = true;
    CHECK(pass_seconds(pre, resolve_rates(p, chip, 0)) == Approx(0.1));
  }
  SECTION("collectives: tp 2 over 2 layers of width 1000, one token") {
    ModelSpec m;
    m.hidden = 1000;
    m.layers = 2;
    CompactPass c = one_op(CompactOp::other, FormatFamily::float_, 0, 0, 1e14, 1);
    add_collectives(c, m, 1, 2, 1, 1, 2.0);
    CHECK(c.collectives == 4);                       // two all-reduces per layer
    CHECK(c.collective_bytes == Approx(4 * 2000.0 * 2 * 1 / 2));  // 2 (n-1)/n x 2,000 bytes each
    p.collective_latency_s = 10e-6;
    p.bus_bandwidth_fraction = 0.5;
    // 4 x 10 µs + 8,000 B / (1e9 B/s x 0.5) = 56 µs
    CHECK(pass_seconds(c, resolve_rates(p, chip, 1e9)) == Approx(56e-6));
    // tp 8: each all-reduce takes log2(8) = 3 latency steps: 4 x 3 x 10 µs + 4 x 2 x 7/8 x 2,000 B / 0.5 GB/s = 148 µs
    CompactPass c8 = one_op(CompactOp::other, FormatFamily::float_, 0, 0, 1e14, 1);
    add_collectives(c8, m, 1, 8, 1, 1, 2.0);
    CHECK(c8.collectives == Approx(12));
    CHECK(pass_seconds(c8, resolve_rates(p, chip, 1e9)) == Approx(120e-6 + 28e-6));
  }
  SECTION("MoE routing skew: tokens land on a hot fraction of the experts") {
    // 8 experts, top-2, 4 tokens: uniform 8 (1 - (6/8)^4) = 5.47; on the hot half 4 (1 - (2/4)^4) = 3.75.
    CHECK(expected_experts_touched(8, 2, 4) == Approx(5.46875));
    CHECK(expected_experts_touched(4, 2, 4) == Approx(3.75));
    const auto db = models::load();
    const ModelSpec& mix = *db.find("mixtral-8x7b");
    PrecisionPlan plan;
    PassShape s{4, 1, 100, false};
    const double uniform = pass_work(mix, plan, s).experts_touched;
    s.moe_expert_fraction = 0.5;
    CHECK(uniform == Approx(5.46875));
    CHECK(pass_work(mix, plan, s).experts_touched == Approx(3.75));
  }
}

TEST_CASE("speed --runtime uses the same pass arithmetic as the published predictions", "[runtime]") {
  const auto chips = hwdb::load();
  const auto models = models::load();
  const ChipSpec& chip = *chips.find("a100-80g");
  const ModelSpec& m = *models.find("llama-3.1-8b");
  RuntimeProfile p = generic_profile(false);
  p.id = "test";
  p.decode_bandwidth_fraction = {{"*/*", 0.55}};
  p.per_layer_s = 20e-6;
  PrecisionPlan plan;
  plan.weights = "q4_k_m";
  SpeedOptions o;
  o.runtime = p;
  o.prompt_tokens = 100;
  o.output_tokens = 2;
  o.context = 100;
  const SpeedResult r = speed(m, chip, plan, o);
  PassShape s{1, 1, 99, false};
  const double step = pass_seconds(compact_pass(pass_work(m, plan, s), chip, 32, 1), resolve_rates(p, chip, 0));
  CHECK(r.points[0].tpot_s == Approx(step));
  CHECK(r.bandwidth_efficiency == Approx(0.55));
  // The weights a step reads (all but the embedding table, of which it reads one row) stream at 55% of
  // 2,039 GB/s: the step takes at least that plus 32 x 20 µs, and little more at context 100.
  const WeightBytes wb = weight_bytes(m, plan);
  const double floor_s = (wb.total - wb.of(ParamClass::embeddings)) / (0.55 * 2.039e12) + 32 * 20e-6;
  CHECK(step > floor_s);
  CHECK(step < 1.05 * floor_s);
  // A served runtime's TTFT: its delay per request (10 ms) and per request in flight (2 ms x batch) on top of the
  // prefill; the decode is untouched.
  p.served = {0.010, 0.002, 0};
  o.runtime = p;
  o.batches = {1, 8};
  const SpeedResult served = speed(m, chip, plan, o);
  REQUIRE(served.points.size() == 2);
  CHECK(served.points[0].ttft_s == Approx(served.points[0].prefill_s + 0.012));
  CHECK(served.points[1].ttft_s == Approx(served.points[1].prefill_s + 0.026));
  CHECK(served.points[0].tpot_s == Approx(step));
  p.served.stream_limit = 4;  // fitted on at most 4 in flight: batch 8 counts 4 (10 + 2 x 4 = 18 ms)
  p.sources = {"a test"};
  o.runtime = p;
  const SpeedResult limited = speed(m, chip, plan, o);
  CHECK(limited.points[1].ttft_s == Approx(limited.points[1].prefill_s + 0.018));
  // The card keeps the three terms through the writer and the reader.
  const RuntimeProfile back = hwdb::parse_runtime_card(hwdb::runtime_card_yaml(p, "h"), "served.yaml");
  CHECK(back.served.per_request_s == Approx(0.010));
  CHECK(back.served.per_stream_s == Approx(0.002));
  CHECK(back.served.stream_limit == Approx(4));
}

TEST_CASE("speed --runtime llama.cpp prices f16 prefill on a GeForce card at its fp16-accumulate peak, and says so", "[runtime]") {
  const auto chips = hwdb::load();
  const auto models = models::load();
  const ModelSpec& m = *models.find("llama-3.1-8b");
  const RuntimeProfile lcp = hwdb::find_runtime(hwdb::load_runtimes(), "llama.cpp");
  REQUIRE(lcp.fp16_accumulate);
  PrecisionPlan plan;
  plan.weights = "f16";
  SpeedOptions o;
  o.prompt_tokens = 4096;
  o.output_tokens = 2;
  auto said = [](const SpeedResult& r) {
    for (const auto& a : r.assumptions)
      if (a.find("accumulate in fp16") != std::string::npos) return true;
    return false;
  };
  for (const char* id : {"rtx-4090", "rtx-a6000"}) {
    ChipSpec chip = *chips.find(id);
    o.runtime = lcp;
    const SpeedResult with = speed(m, chip, plan, o);
    RuntimeProfile off = lcp;
    off.fp16_accumulate = false;
    o.runtime = off;
    const SpeedResult without = speed(m, chip, plan, o);
    const double ratio = without.points[0].ttft_s / with.points[0].ttft_s;
    if (chip.peak("fp16_acc16")) {
      // RTX 4090: 330.3 against 165.2 TFLOP/s. A 4096-token prefill is mostly matmuls, so TTFT drops by most of 2x.
      CHECK(ratio > 1.5);
      CHECK(ratio < 2.0);
      CHECK(said(with));
    } else {  // the RTX A6000 runs fp32 accumulation at full rate: no such figure, no change
      CHECK(ratio == Approx(1.0));
      CHECK_FALSE(said(with));
    }
    CHECK_FALSE(said(without));
  }
}

TEST_CASE("runtime cards: the embedded ones load; hostile cards are refused with file:line and the key", "[runtime][cards]") {
  const auto all = hwdb::load_runtimes();
  const auto ids = hwdb::runtime_ids(all);
  for (const char* id : {"generic", "llama.cpp", "vllm", "trt-llm", "sglang", "mlx", "rooftop"})
    CHECK(std::find(ids.begin(), ids.end(), id) != ids.end());
  try {
    hwdb::find_runtime(all, "vlm");
    FAIL("unknown id accepted");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("vllm") != std::string::npos);
  }
  const std::string head = "id: x\nname: x\ndescription: x\nsources: [a]\n";
  auto refused = [&](const std::string& body, const std::string& needle) {
    try {
      hwdb::parse_runtime_card(head + body, "t.yaml");
      FAIL("accepted: " << body);
    } catch (const InputError& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find("t.yaml:") == 0);
      CHECK(std::string(e.what()).find(needle) != std::string::npos);
    }
  };
  refused("per_layer_sec: 1e-5\n", "did you mean 'per_layer_s'");
  refused("per_layer_s: -1\n", "per_layer_s");
  refused("per_layer_s: nan\n", "per_layer_s");
  refused("attention_fraction: 1.5\n", "attention_fraction");
  refused("decode_bandwidth_fraction: {\"kquant/ampre\": 0.5}\n", "decode_bandwidth_fraction");
  refused("decode_bandwidth_fraction: {\"kquant\": 0.5}\n", "decode_bandwidth_fraction");
  refused("gemm_fraction: {\"*/*\": 0}\n", "gemm_fraction");
  refused("multi_device: sideways\n", "multi_device");
  refused("bands: [{key: a, p10: 0.1, p50: 0, p90: 0.2, records: 3}]\n", "p10 <= p50");
  refused("use_calibration: maybe\n", "use_calibration");
  refused("fp16_accumulate: sometimes\n", "fp16_accumulate");
  refused("per_layer_s: 1e-5\nper_layer_s: 2e-5\n", "duplicate key");
  refused("bands: [{key: a, p10: -1, p50: 0, p90: 0.2, records: 3}]\n", "p10");  // a prediction of zero
  refused("serving_defaults: [{max_seqs: 8}]\n", "token_budget");
  refused("serving_defaults: [{max_seqs: 8, token_budget: 64, min_memory: 70}]\n", "min_memory_gib");
  refused("serving_defaults: [{max_seqs: 0, token_budget: 64}]\n", "max_seqs");
  refused("release_from: latest\nrelease_date: 2025-03-18\n", "release_from");
  refused("release_before: \"8\"\nrelease_date: 2025-03-18\n", "release_before");
  refused("release_from: 0.8.0\n", "release_date");
  refused("release_from: \"0..8\"\nrelease_date: 2025-03-18\n", "release_from");
  refused("release_before: \"1.\"\nrelease_date: 2025-03-18\n", "release_before");
  refused("release_from: b12x\nrelease_date: 2024-06-24\n", "release_from");
  refused("records_by_chip: {h100-sxm: 2.5}\n", "records_by_chip.h100-sxm");
  refused("records_by_chip: {h100-sxm: -1}\n", "records_by_chip.h100-sxm");
  refused("records_by_architecture: {hoper: 3}\n", "records_by_architecture");
  refused("release_from: \"b3216 \"\nrelease_date: 2024-06-24\n", "release_from");
  refused("release_from: 0.8.0\nrelease_date: March 2025\n", "release_date");
  // A stated per-unit rate is never refitted: a stated 0 (no cap) is refused; a fitted 0 is fine.
  refused("unit_stream_bytes_per_cycle: 0\nprovenance: {unit_stream_bytes_per_cycle: \"stated: x\"}\n", "unit_stream_bytes_per_cycle");
  CHECK_NOTHROW(hwdb::parse_runtime_card(head + "unit_stream_bytes_per_cycle: 0\nprovenance: {unit_stream_bytes_per_cycle: \"fitted to 3\"}\n", "t.yaml"));
  CHECK_THROWS_AS(hwdb::parse_runtime_card("name: x\n", "t.yaml"), InputError);  // no id
  CHECK_THROWS_AS(hwdb::parse_runtime_card("[1, 2", "t.yaml"), InputError);     // not YAML
  // What the fit writes reads back to the same terms.
  RuntimeProfile p = hwdb::find_runtime(all, "llama.cpp");
  const RuntimeProfile back = hwdb::parse_runtime_card(hwdb::runtime_card_yaml(p, "header"), "round.yaml");
  CHECK(back.decode_bandwidth_fraction.size() == p.decode_bandwidth_fraction.size());
  for (const auto& [k, v] : p.decode_bandwidth_fraction) CHECK(back.decode_bandwidth_fraction.at(k) == Approx(v).epsilon(1e-3));
  CHECK(back.per_layer_s == Approx(p.per_layer_s).epsilon(1e-3));
  CHECK(back.multi_device == p.multi_device);
  CHECK(back.fp16_accumulate == p.fp16_accumulate);
  CHECK(back.bands.size() == p.bands.size());
  const RuntimeProfile vllm = hwdb::find_runtime(all, "vllm");
  const RuntimeProfile vllm_back = hwdb::parse_runtime_card(hwdb::runtime_card_yaml(vllm, "header"), "round.yaml");
  REQUIRE(vllm_back.serving_defaults.size() == vllm.serving_defaults.size());
  CHECK(vllm_back.serving_defaults.front().min_memory_bytes == Approx(vllm.serving_defaults.front().min_memory_bytes));
  CHECK(vllm_back.serving_defaults.front().except_name == vllm.serving_defaults.front().except_name);
  // The card's notes (which builds it was fitted on, where held-out records disagree) survive a refit's writer and
  // reach the speed result that used the profile.
  REQUIRE(vllm.notes.size() == 2);
  CHECK(vllm_back.notes == vllm.notes);
  SpeedOptions so;
  so.batches = {1};
  so.runtime = vllm;
  const auto notes = speed(*models::load().find("llama-3.1-8b"), *hwdb::load().find("h100-sxm"), PrecisionPlan{}, so).runtime_notes;
  // The card's notes, then the count of the chip's records in the fit (the card's own figure).
  REQUIRE(notes.size() == vllm.notes.size() + 1);
  CHECK(std::vector<std::string>(notes.begin(), notes.end() - 1) == vllm.notes);
  const int64_t h100 = vllm.records_by_chip.count("h100-sxm") ? vllm.records_by_chip.at("h100-sxm") : 0;
  CHECK(notes.back().find(h100 > 0 ? "fitted on " + std::to_string(h100) + " published records of h100-sxm"
                                   : std::string("no published record of h100-sxm")) == 0);
  so.runtime = std::nullopt;
  CHECK(speed(*models::load().find("llama-3.1-8b"), *hwdb::load().find("h100-sxm"), PrecisionPlan{}, so).runtime_notes.empty());
  // Text the parser accepts reads back whatever it holds (a fuzz finding: a key with a space, control characters).
  RuntimeProfile odd = p;
  odd.provenance["a key: with \"quotes\""] = std::string("tab\there, escape \x1b, bell \x07, \\ and \"");
  const RuntimeProfile odd_back = hwdb::parse_runtime_card(hwdb::runtime_card_yaml(odd, "h"), "odd.yaml");
  CHECK(odd_back.provenance.at("a key: with \"quotes\"") == odd.provenance.at("a key: with \"quotes\""));
}

TEST_CASE("a prediction says how many published records of its chip the profile was fitted on", "[runtime][cards]") {
  RuntimeProfile p = generic_profile(false);
  p.id = "counted";
  p.sources = {"a toy"};
  p.records_by_chip = {{"h100-sxm", 5}, {"a100-80g", 0}};
  p.records_by_architecture = {{"hopper", 7}, {"ampere", 3}};
  // The counts survive the card's writer and reader.
  const RuntimeProfile back = hwdb::parse_runtime_card(hwdb::runtime_card_yaml(p, "h"), "round.yaml");
  CHECK(back.records_by_chip == p.records_by_chip);
  CHECK(back.records_by_architecture == p.records_by_architecture);
  SpeedOptions so;
  so.batches = {1};
  so.runtime = p;
  const auto chips = hwdb::load();
  const auto model_db = models::load();
  const auto& m = *model_db.find("llama-3.1-8b");
  auto on = [&](const char* id) { return speed(m, *chips.find(id), PrecisionPlan{}, so); };
  const SpeedResult h100 = on("h100-sxm"), a100 = on("a100-80g"), l40s = on("l40s");
  CHECK(h100.runtime_records == std::make_pair(int64_t{5}, int64_t{7}));
  REQUIRE(h100.runtime_notes.size() == 1);
  CHECK(h100.runtime_notes[0] == "fitted on 5 published records of h100-sxm (7 of hopper chips)");
  CHECK(a100.runtime_records == std::make_pair(int64_t{0}, int64_t{3}));
  CHECK(a100.runtime_notes.at(0).find("no published record of a100-80g") == 0);
  CHECK(a100.runtime_notes.at(0).find("3 records of other ampere chips") != std::string::npos);
  CHECK(l40s.runtime_records == std::make_pair(int64_t{0}, int64_t{0}));
  CHECK(l40s.runtime_notes.at(0).find("or of any ada chip") != std::string::npos);
  // A chip without records takes the band of held-out records on chips no other source measured, where there is one.
  p.bands = {{"decode/hopper", -0.05, 0.01, 0.06, 9}, {"decode/ampere", -0.04, 0.0, 0.05, 8},
             {std::string("decode/") + kUnseenChip, -0.3, 0.05, 0.4, 12}};
  so.runtime = p;
  auto band_key = [&](const char* id) {
    const auto b = on(id).decode_band;
    REQUIRE(b);
    return b->key;
  };
  CHECK(band_key("h100-sxm") == "decode/hopper");
  CHECK(band_key("a100-80g") == "decode/unseen-chip");
  CHECK(band_key("l40s") == "decode/unseen-chip");
  // A measured device counts as the card it was matched to.
  ChipSpec measured = *chips.find("h100-sxm");
  measured.id = "cuda:0";
  measured.card_id = "h100-sxm";
  const SpeedResult dev = speed(m, measured, PrecisionPlan{}, so);
  CHECK(dev.runtime_records == std::make_pair(int64_t{5}, int64_t{7}));
  REQUIRE(dev.decode_band);
  CHECK(dev.decode_band->key == "decode/hopper");
  p.bands.pop_back();  // none: the architecture's band, as before
  so.runtime = p;
  CHECK(band_key("a100-80g") == "decode/ampere");
  // A profile that counts nothing (generic, a hand-written card) says nothing.
  so.runtime = generic_profile(false);
  CHECK_FALSE(on("h100-sxm").runtime_records);
}

TEST_CASE("runtime cards: a release range places each source's build (vLLM's V1 engine from 0.8.0)", "[runtime][cards]") {
  RuntimeProfile v1, v0, any;
  v1.release_from = v0.release_before = "0.8.0";
  v1.release_date = v0.release_date = "2025-03-18";
  // By the leading release number of engine_version, with or without a "v", whatever follows it.
  for (const char* newer : {"0.8.0", "0.8.5 (rocm/vllm-dev image)", "v0.23.0", "0.19.1 (inferred: ...)", "1.0", "0.10.2"}) {
    INFO(newer);
    CHECK(v1.covers_build(newer, ""));
    CHECK_FALSE(v0.covers_build(newer, "2020-01-01"));  // a printed release wins over the date
  }
  for (const char* older : {"0.7.3", "v0.6.6", "0.5.4 (docker image)", "0.3.0"}) {
    INFO(older);
    CHECK(v0.covers_build(older, "2026-01-01"));
    CHECK_FALSE(v1.covers_build(older, ""));
  }
  // No release number ("unknown", a PR branch, "b1618", a bare year): the source's date against the boundary's.
  CHECK(v0.covers_build("PR 2542 branch and master of 2024-01-22", "2024-01-22"));
  CHECK(v1.covers_build("unknown", "2025-03-18"));
  CHECK(v0.covers_build("unknown", "2025-03-17"));
  CHECK(v0.covers_build("b1618", ""));  // neither: the older series
  CHECK_FALSE(v1.covers_build("2025", ""));
  CHECK(any.covers_build("0.1.0", ""));
  CHECK(any.covers_build("", ""));
  // llama.cpp's build tags ("b" and the commit count on master) compare with a boundary tag, by number; a commit
  // hash that starts with "b" is no tag, and a tag against a dotted boundary (or the reverse) falls back to the date.
  RuntimeProfile cur, early;
  cur.release_from = early.release_before = "b3216";
  cur.release_date = early.release_date = "2024-06-24";
  CHECK(cur.covers_build("b7315 (build: 4d3726278 (7315))", "2020-01-01"));  // the tag wins over the date
  CHECK(cur.covers_build("b3216", ""));
  CHECK(early.covers_build("b3215", "2026-01-01"));
  CHECK(early.covers_build("b828e18c7 (7948)", "2024-01-01"));  // a hash: placed by its date
  CHECK(cur.covers_build("b828e18c7 (7948)", "2026"));
  // A dotted number is not of a tag boundary's kind, nor a tag of a dotted one's: both are placed by their date.
  CHECK(cur.covers_build("0.3.4", "2025-01-01"));  // by number, {0, 3, 4} < {3216} would have put it before
  CHECK_FALSE(v1.covers_build("b9000", "2024-01-01"));  // by number, {9000} > {0, 8} would have put it after
  CHECK(v1.covers_build("b9000", "2025-06-01"));
  CHECK_FALSE(early.covers_build("b4006", "2024-11-01"));
  CHECK(parse_release("b3216").build_tag);
  CHECK(parse_release("b3216").parts == std::vector<int>{3216});
  CHECK(parse_release("v0.8.0 (rocm)").parts == std::vector<int>{0, 8});
  CHECK(parse_release("v0.8.0 (rocm)").length == 6);
  CHECK(parse_release("b12x").parts.empty());
  // The card's keys read back, and the real dataset's vLLM sources are split by them.
  const auto all = hwdb::load_runtimes();
  const RuntimeProfile card = hwdb::find_runtime(all, "vllm");
  const RuntimeProfile back = hwdb::parse_runtime_card(hwdb::runtime_card_yaml(card, "h"), "round.yaml");
  CHECK(back.release_from == "0.8.0");
  CHECK(back.release_date == card.release_date);
  const validate::PublishedDataset data = validate::load_published();
  std::map<std::string, std::string> by_file;
  for (const auto& src : data.sources)
    if (src.engine == "vllm") by_file[src.file.substr(src.file.rfind('/') + 1)] = validate::runtime_for_engine(src, all);
  CHECK(by_file.at("vllm-pr2542.yaml") == "vllm-v0");
  CHECK(by_file.at("vllm-oracle-mi300x-llama-3.1-405b.yaml") == "vllm-v0");  // "unknown", dated 2024-10-10
  CHECK(by_file.at("vllm-rocm-dev-docker-mi300x-v0.6.6.yaml") == "vllm-v0");
  CHECK(by_file.at("vllm-rocm-dev-docker-mi300x-v0.8.5.yaml") == "vllm");
  CHECK(by_file.at("vllm-wmx-l4-qwen2.5-0.5b.yaml") == "vllm");
  // llama.cpp's sources split at b3216 (2024-06-24), by build tag where printed, else by date.
  std::map<std::string, std::string> lcp;
  for (const auto& src : data.sources)
    if (src.engine == "llama.cpp") lcp[src.file.substr(src.file.rfind('/') + 1)] = validate::runtime_for_engine(src, all);
  CHECK(lcp.at("llamacpp-llm-tracker-amd-gpus.yaml") == "llama.cpp-early");  // b1988
  CHECK(lcp.at("llamacpp-xiongjiedai-gpu-benchmarks-llama3.yaml") == "llama.cpp-early");  // no build, 2024-05
  CHECK(lcp.at("llamacpp-pr8215.yaml") == "llama.cpp");  // a PR hash, 2024-06-29
  CHECK(lcp.at("llamacpp-llm-tracker-mi300x-testing.yaml") == "llama.cpp");  // b3891
  CHECK(lcp.at("llamacpp-benches-mac-m2-ultra.yaml") == "llama.cpp");  // "b828e18c7": a hash; dated 2026
}

TEST_CASE("runtime cards: vLLM's server limits follow its per-device defaults", "[runtime][serving]") {
  // vllm/engine/arg_utils.py get_batch_defaults (pinned by vLLM's test_defaults_with_usage_context): `vllm serve` on a
  // device of >= 70 GiB whose name lacks "a100" runs 1024 sequences and 8192 tokens per step, on others 256 and 2048.
  const auto chips = hwdb::load();
  const RuntimeProfile vllm = hwdb::find_runtime(hwdb::load_runtimes(), "vllm");
  using Limits = std::pair<int64_t, int64_t>;
  CHECK(vllm.serving_limits(*chips.find("h100-sxm")) == Limits{1024, 8192});  // 80 GB = 74.5 GiB
  CHECK(vllm.serving_limits(*chips.find("mi300x")) == Limits{1024, 8192});
  CHECK(vllm.serving_limits(*chips.find("a100-80g")) == Limits{256, 2048});   // the name rule, not the memory
  CHECK(vllm.serving_limits(*chips.find("l40s")) == Limits{256, 2048});       // 48 GB
  // 70 GiB is 75.2 GB: a card of 75 GB is below it.
  ChipSpec c = *chips.find("h100-sxm");
  c.memory_bytes = 75e9;
  CHECK(vllm.serving_limits(c) == Limits{256, 2048});
  // A runtime that states none: its max_batch and 8192 tokens.
  CHECK(generic_profile(false).serving_limits(c) == Limits{256, 8192});
}

namespace {
// A toy dataset: llama-3.1-8b decode (tg128) and prefill on three chips from three sources, "measured" under a
// known profile. 60 records per source: the fit's prior (the stated 80% / 70% / 15 µs) weighs little against them.
constexpr int kPerSource = 60;
struct Toy {
  hwdb::Database chips = hwdb::load();
  models::Database models = models::load();
  validate::PublishedDataset data;
  std::vector<RuntimeProfile> profiles;
  Toy(const RuntimeProfile& truth, const std::vector<double>& source_scale,
      const std::vector<std::string>& hw = {"a100-80g", "h100-sxm", "l40s"}) {
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> prompt(0, 2000);
    RuntimeProfile start = truth;
    start.id = "toy";
    start.engines = {"toy-engine"};
    profiles = {generic_profile(false), start};
    for (size_t s = 0; s < source_scale.size(); ++s) {
      data.sources.push_back({"src" + std::to_string(s) + ".yaml", "u", "t", "w", "2025", "toy-engine", "1"});
      for (int i = 0; i < kPerSource; ++i) {
        validate::PublishedRecord r;
        r.source = static_cast<int>(s);
        r.hw = hw[static_cast<size_t>(i) % hw.size()];
        r.model = "llama-3.1-8b";
        r.weights = i % 2 ? "q4_k_m" : "fp16";
        r.batch = 1;
        r.prompt_tokens = prompt(rng);
        r.output_tokens = 128;
        r.metric = i % 3 == 2 ? "pp_tok_s" : "tg_tok_s";
        if (r.metric == "pp_tok_s") r.prompt_tokens = 256 + prompt(rng);
        r.value = 1;  // set below from the truth
        data.records.push_back(r);
      }
    }
    const auto set = validate::build_cases(data, profiles, chips, models);
    REQUIRE(set.skipped.empty());
    for (const auto& c : set.cases) {
      auto& r = data.records[static_cast<size_t>(c.record)];
      r.value = validate::predict_case(c, truth) * source_scale[static_cast<size_t>(r.source)];
    }
  }
  // The fit with leave-one-source-out of the toy profile on every record.
  validate::FitResult fit() const {
    const auto set = validate::build_cases(data, profiles, chips, models);
    std::vector<const validate::RecordCase*> cases;
    std::vector<double> values;
    std::vector<int> sources;
    for (const auto& c : set.cases) {
      cases.push_back(&c);
      values.push_back(data.records[static_cast<size_t>(c.record)].value);
      sources.push_back(data.records[static_cast<size_t>(c.record)].source);
    }
    return validate::fit_with_loso(profiles[1], cases, values, sources);
  }
  // One more source: tg128 of llama-3.1-8b q4_k_m on `hw` at these prompt lengths, measured at `scale` x the truth.
  void add_decode_source(const RuntimeProfile& truth, const std::string& hw, const std::vector<int64_t>& prompts, double scale) {
    const int source = static_cast<int>(data.sources.size());
    data.sources.push_back({"src" + std::to_string(source) + ".yaml", "u", "t", "w", "2025", "toy-engine", "1"});
    for (int64_t prompt : prompts) {
      validate::PublishedRecord r;
      r.source = source;
      r.hw = hw;
      r.model = "llama-3.1-8b";
      r.weights = "q4_k_m";
      r.batch = 1;
      r.prompt_tokens = prompt;
      r.output_tokens = 128;
      r.metric = "tg_tok_s";
      r.value = 1;
      data.records.push_back(r);
    }
    for (const auto& c : validate::build_cases(data, profiles, chips, models).cases)
      if (data.records[static_cast<size_t>(c.record)].source == source)
        data.records[static_cast<size_t>(c.record)].value = scale * validate::predict_case(c, truth);
  }
};
}  // namespace

TEST_CASE("the fit recovers known terms; leave-one-source-out never lets a source predict itself", "[runtime][fit]") {
  RuntimeProfile truth = generic_profile(false);
  truth.decode_bandwidth_fraction = {{"*/*", 0.62}};
  truth.gemm_fraction = {{"*/*", 0.35}};
  truth.per_layer_s = 25e-6;
  SECTION("consistent sources: in-sample and held-out errors are small") {
    Toy toy(truth, {1.0, 1.0, 1.0});
    const auto fit = toy.fit();
    CHECK(fit.sources == 3);
    REQUIRE(fit.held_out.size() == 3 * kPerSource);  // each record predicted once, held out with its source
    for (const auto& p : fit.in_sample) CHECK(std::fabs(p.error()) < 0.04);
    for (const auto& p : fit.held_out) CHECK(std::fabs(p.error()) < 0.06);
    CHECK(RuntimeProfile::lookup(fit.profile.decode_bandwidth_fraction, "float", "ampere", 0) == Approx(0.62).epsilon(0.05));
  }
  SECTION("an architecture measured twice gets its own adjustment (RDNA3 at half the truth's speed)") {
    Toy toy(truth, {1.0, 1.0, 1.0});
    toy.add_decode_source(truth, "rx-7900-xtx", {100, 600}, 0.5);
    const auto fit = toy.fit();
    // Two records are enough for "*/rdna3"; without it the chip took the runtime-wide fraction: +100%.
    CHECK(fit.profile.decode_bandwidth_fraction.count("*/rdna3") == 1);
    int n = 0;
    for (const auto& p : fit.in_sample)
      if (p.source == 3) {
        CHECK(std::fabs(p.error()) < 0.2);
        ++n;
      }
    CHECK(n == 2);
  }
  SECTION("records on a chip no other source measured make the unseen-chip band (an L4 source at 0.7x the truth)") {
    Toy toy(truth, {1.0, 1.0, 1.0});
    toy.add_decode_source(truth, "l4", {100, 300, 600, 900, 1200, 1500}, 0.7);
    const auto fit = toy.fit();
    const ErrorBand* b = fit.profile.band("decode", kUnseenChip);
    REQUIRE(b != nullptr);
    CHECK(b->key == "decode/unseen-chip");
    CHECK(b->records == 6);  // the other sources' chips are each measured by two more sources
    // Held out, the L4 is priced near the truth, which its source measured 0.7x: 1 / 0.7 - 1 = +43% (the other
    // chips' fit extrapolates to its 58 SMs and 300 GB/s, here +34%); the records of seen chips err by < 6%.
    CHECK(b->p50 > 0.25);
    CHECK(b->p50 < 0.55);
    CHECK(std::fabs(fit.profile.band("decode", "hopper")->p50) < 0.06);
  }
  SECTION("long-context decode sets the attention fraction despite its prior towards 1") {
    // KV at half the weights' rate (attention_fraction 0.5): at a 64k-100k context llama-3.1-8b reads 8-13 GB of KV
    // per token against 4.9 GB of q4_k_m weights, so those records show it; the prior (towards 1) weighs little.
    RuntimeProfile slow_kv = truth;
    slow_kv.attention_fraction = 0.5;
    Toy toy(slow_kv, {1.0, 1.0, 1.0});
    toy.add_decode_source(slow_kv, "a100-80g", {65536, 81920, 98304, 100000, 110000, 120000}, 1.0);
    const auto fit = toy.fit();
    CHECK(fit.profile.term_on("attention_fraction", fit.profile.attention_fraction, "ampere") == Approx(0.5).epsilon(0.1));
    for (const auto& p : fit.in_sample)
      if (p.source == 3) CHECK(std::fabs(p.error()) < 0.08);
  }
  SECTION("a per-unit streaming limit is recovered from chips of one architecture with different memory") {
    // A100 (HBM, 108 SMs at 1.41 GHz, 2,039 GB/s), RTX 3090 and A40 (GDDR, 82 SMs at 1.695 GHz and 84 at 1.74 GHz,
    // 936 and 696 GB/s), all Ampere: at 4 bytes per SM and cycle the A100 streams at most 609 GB/s, below its
    // 0.62 x 2,039 = 1,264 GB/s; the GDDR cards less so (556 and 585 GB/s against 580 and 432).
    // One architecture: no per-chip cell can stand in for the limit, only the per-unit rate explains all three.
    RuntimeProfile capped = truth;
    capped.unit_stream_bytes_per_cycle = 4;
    Toy toy(capped, {1.0, 1.0, 1.0}, {"a100-80g", "rtx-3090", "a40"});
    const auto fit = toy.fit();
    CHECK(fit.profile.unit_stream_bytes_per_cycle == Approx(4).epsilon(0.15));
    for (const auto& p : fit.held_out) CHECK(std::fabs(p.error()) < 0.08);
  }
  SECTION("a per-unit rate the card states is kept through the fit; an unstated one is refitted") {
    // The same records as above (4 bytes per SM and cycle), but the card states 6 (llama.cpp's current profile
    // states the early builds' rate: its own records cannot fit it). A fit that varied it would return to ~4.
    RuntimeProfile capped = truth;
    capped.unit_stream_bytes_per_cycle = 4;
    Toy toy(capped, {1.0, 1.0, 1.0}, {"a100-80g", "rtx-3090", "a40"});
    toy.profiles[1].unit_stream_bytes_per_cycle = 6;
    toy.profiles[1].provenance["unit_stream_bytes_per_cycle"] = "stated: a test's value";
    CHECK(validate::unfitted(toy.profiles[1]).unit_stream_bytes_per_cycle == 6);
    const auto fit = toy.fit();
    CHECK(fit.profile.unit_stream_bytes_per_cycle == 6);
    CHECK(std::none_of(fit.fitted_terms.begin(), fit.fitted_terms.end(),
                       [](const std::string& t) { return t == "unit_stream_bytes_per_cycle"; }));
    // Without the stated provenance the term is fitted (and unfitted() clears it).
    toy.profiles[1].provenance["unit_stream_bytes_per_cycle"] = "fitted to 180 records";
    CHECK(validate::unfitted(toy.profiles[1]).unit_stream_bytes_per_cycle == 0);
    CHECK(toy.fit().profile.unit_stream_bytes_per_cycle == Approx(4).epsilon(0.15));
  }
  SECTION("one source measured 2x slower: held out, it is predicted from the other two (about +100%)") {
    Toy toy(truth, {1.0, 1.0, 0.5});
    const auto fit = toy.fit();
    double held_slow = 0, in_slow = 0;
    int n = 0;
    for (size_t i = 0; i < fit.held_out.size(); ++i)
      if (fit.held_out[i].source == 2) {
        held_slow += fit.held_out[i].error();
        ++n;
      }
    for (const auto& p : fit.in_sample)
      if (p.source == 2) in_slow += p.error();
    REQUIRE(n == kPerSource);
    // Predicted from sources 0 and 1 alone (the truth), source 2's values are half: error +100%.
    CHECK(held_slow / n == Approx(1.0).epsilon(0.05));
    // In-sample, source 2 pulls the fit towards itself: its own error is smaller.
    CHECK(in_slow / n < held_slow / n - 0.2);
    // Bands come from the held-out errors: the 90th percentile reaches source 2's +100%.
    const ErrorBand* all = fit.profile.band("*", "");
    REQUIRE(all != nullptr);
    CHECK(all->records == 3 * kPerSource);
    CHECK(all->p90 > 0.9);
  }
}

TEST_CASE("validate --published on the real dataset: every record predicted or skipped with a reason", "[runtime][published]") {
  const auto data = validate::load_published();
  const auto chips = hwdb::load();
  const auto models = models::load();
  const auto profiles = hwdb::load_runtimes();
  const auto c = validate::compare_published(data, profiles, chips, models);
  CHECK(c.rows.size() + c.skipped.size() == data.records.size());
  CHECK(c.rows.size() >= 1400);
  for (const auto& s : c.skipped) CHECK(!s.reason.empty());
  for (const auto& r : c.rows) {
    INFO(data.sources[static_cast<size_t>(r.source)].file << ":" << data.records[static_cast<size_t>(r.record)].line);
    CHECK(std::isfinite(r.predicted));
    CHECK(r.predicted > 0);
  }
  std::set<std::string> engines;
  for (const auto& r : c.rows) engines.insert(r.engine);
  CHECK(engines.size() >= 6);
}

namespace {
// One made-up source of the published dataset on the real chips, models and runtime profiles; add() appends a record.
struct OneSource {
  hwdb::Database chips = hwdb::load();
  models::Database models = models::load();
  std::vector<RuntimeProfile> profiles = hwdb::load_runtimes();
  validate::PublishedDataset data;
  OneSource(const std::string& date, const std::string& engine, const std::string& version) {
    data.sources.push_back({"s.yaml", "u", "t", "w", date, engine, version});
  }
  validate::PublishedRecord& add(const std::string& hw, const std::string& model, const std::string& weights,
                                 const std::string& metric, int64_t batch, int64_t prompt, std::optional<int64_t> output) {
    validate::PublishedRecord r;
    r.line = static_cast<int>(data.records.size());
    r.hw = hw;
    r.model = model;
    r.weights = weights;
    r.metric = metric;
    r.batch = batch;
    r.prompt_tokens = prompt;
    r.output_tokens = output;
    r.value = 1;
    data.records.push_back(r);
    return data.records.back();
  }
  validate::CaseSet cases() const { return validate::build_cases(data, profiles, chips, models); }
};
}  // namespace

TEST_CASE("a run whose weights exceed the runtime's memory share but fit the devices is predicted, not skipped", "[runtime][published]") {
  // Qwen2.5-72B in bf16 is 145.4 GB of weights (the card's count). Two 80 GB H100s hold 160 GB; vLLM's default share
  // (gpu_memory_utilization 0.9) is 144 GB, below the weights, so a measured run shows its user raised the share.
  // The KV cache then has the rest of the whole memory. One H100 (80 GB) cannot hold them at all.
  OneSource src("2025-04-01", "vllm", "0.9.0");
  // 64 sequences: more than the KV cache left beside the weights holds at 4,096 tokens each
  for (int devices : {2, 1}) src.add("h100-sxm", "qwen2.5-72b", "bf16", "tpot_s", 64, 2048, 2048).hw_count = devices;
  const auto set = src.cases();
  REQUIRE(set.cases.size() == 1);
  REQUIRE(set.skipped.size() == 1);
  CHECK(set.cases[0].record == 0);
  CHECK(set.skipped[0].reason.find("do not fit") != std::string::npos);
  // The batch is what 160 GB less the weights holds. Weights by hand: embeddings and head 2 x 152,064 x 8,192 = 2.49 G;
  // a layer 2 x 8,192^2 + 2 x 8,192 x 1,024 + 3 x 8,192 x 29,568 = 877.7 M, x 80 = 70.2 G; 72.7 G x 2 bytes = 145.4 GB.
  // KV: 80 layers x 8 heads x 128 x 2 (K, V) x 2 bytes = 327,680 bytes a token, 1.342 GB a 4,096-token sequence.
  // 14.6 GB hold 10 sequences (11 would need 14.8 GB).
  CHECK(set.cases[0].batch == 10);
}

TEST_CASE("closed-loop fixed-length requests arrive in groups of what one step's token budget prefills", "[runtime][published]") {
  // vLLM on an H100 (80 GB, not an A100) runs 1024 sequences and 8192 tokens a step (the serving-limits test above).
  OneSource src("2025-06-01", "vllm", "0.9.0");
  struct Row { int64_t concurrency, prompt; double group; };
  // 8192 / 1024 = 8 prompts a step; 8192 / 3000 = 2; a prompt beyond the budget is its own group (none);
  // 4 clients cap the group at 4; one client is alone. (A record without its output length, as ShareGPT's varied
  // ones, is skipped before this: no lockstep is assumed for it.)
  const std::vector<Row> rows = {{32, 1024, 8}, {32, 3000, 2}, {32, 10000, 1}, {4, 1024, 4}, {1, 1024, 1}};
  for (const auto& row : rows) src.add("h100-sxm", "llama-3.1-8b", "bf16", "ttft_s", row.concurrency, row.prompt, 256);
  const auto set = src.cases();
  REQUIRE(set.cases.size() == rows.size());
  for (const auto& c : set.cases) {
    INFO("row " << c.record);
    CHECK(c.group == rows[static_cast<size_t>(c.record)].group);
    CHECK(c.prefill_group.empty() == (c.group == 1));
  }
  // The group's step costs more than one prompt's prefill, and less than the group's prompts one by one
  // (the weights are read once).
  const auto& eight = set.cases[0];
  const RuntimeProfile& vllm = validate::profile_by_id(src.profiles, "vllm");
  const RuntimeRates rates = resolve_rates(vllm, *eight.chip, 0);
  double one = 0, group = 0;
  for (const auto& p : eight.prefill_one) one += pass_seconds(p, rates);
  for (const auto& p : eight.prefill_group) group += pass_seconds(p, rates);
  CHECK(group > 2 * one);
  CHECK(group < 8 * one);
}

TEST_CASE("the small-batch rate is a multiple of the lane rate (units x clock x 256), per architecture where stated", "[runtime]") {
  const auto chips = hwdb::load();
  RuntimeProfile p = generic_profile(false);
  p.small_batch_tokens = 8;
  p.small_batch_lane_multiple = 0.2;
  p.by_architecture["small_batch_lane_multiple/ada"] = 0.5;
  // RTX 4090 (ada): 0.5 x 128 SMs x 2.52 GHz x 256 = 41.3 TFLOP/s (its fp32 peak: 128 lanes per SM).
  CHECK(resolve_rates(p, *chips.find("rtx-4090"), 0).small_batch_flops == Approx(0.5 * 82.58e12).epsilon(1e-3));
  // A100 (ampere, no cell): 0.2 x 108 SMs x 1.41 GHz x 256 = 7.80 TFLOP/s, twice 0.2 x its 19.5 TFLOP/s fp32 peak
  // (64 FP32 lanes per SM, but 64 INT32 lanes like every Ampere SM).
  CHECK(resolve_rates(p, *chips.find("a100-80g"), 0).small_batch_flops == Approx(7.797e12).epsilon(1e-3));
  ChipSpec no_clock = *chips.find("a100-80g");
  no_clock.boost_clock_hz.reset();  // no clock: the fp32 peak, 0.2 x 19.5 = 3.9 TFLOP/s
  CHECK(resolve_rates(p, no_clock, 0).small_batch_flops == Approx(3.9e12));
  CHECK(resolve_rates(p, *chips.find("rtx-4090"), 0).small_batch_tokens == 8);
}

TEST_CASE("a stated microbatch (llama-bench -ub) splits the prompt into passes of that size", "[runtime][published]") {
  OneSource src("2025-08-01", "llama.cpp", "b6000");
  for (int64_t ub : {0, 4, 16}) {  // 0: not stated (the profile's 512-token chunk)
    auto& rec = src.add("rtx-4090", "llama-3.1-8b", "q4_0", "pp_tok_s", 1, 512, std::nullopt);
    if (ub) rec.ubatch = ub;
  }
  const auto set = src.cases();
  REQUIRE(set.cases.size() == 3);
  CHECK(set.cases[0].prefill_one.size() == 1);    // 512 tokens in one pass
  CHECK(set.cases[1].prefill_one.size() == 128);  // 512 / 4
  CHECK(set.cases[2].prefill_one.size() == 32);   // 512 / 16
  for (const auto& p : set.cases[1].prefill_one) CHECK(p.tokens == 4);
  // Passes of 4 tokens run llama.cpp's small-batch kernels (on the vector units, at most 8 tokens) and each reads every
  // weight, so they process the prompt at under a quarter of one 512-token pass's tokens per second; 16-token passes
  // (tensor cores) fall between.
  const RuntimeRates rates = resolve_rates(validate::profile_by_id(src.profiles, "llama.cpp"), *set.cases[0].chip, 0);
  const double whole = validate::predict_case(set.cases[0], rates), by4 = validate::predict_case(set.cases[1], rates),
               by16 = validate::predict_case(set.cases[2], rates);
  CHECK(by4 < by16);
  CHECK(by16 < whole);
  CHECK(by4 < whole / 4);
}

namespace {
// A pass that takes exactly `s` seconds under unit_rates(): one op streaming s x 1e12 bytes at 1 TB/s.
CompactPass pass_of(double s) {
  CompactPass p;
  p.ops.push_back({CompactOp::other, FormatFamily::float_, s * 1e12, 0, 1e14});
  p.tokens = 1;
  return p;
}
// A prefill pass of `s` seconds whose arithmetic alone takes `compute_s` under unit_rates(): one matmul streaming
// s x 1e12 bytes with compute_s x 1e14 FLOPs at a 1e14 FLOP/s peak.
CompactPass prefill_pass(double s, double compute_s) {
  CompactPass p;
  p.ops.push_back({CompactOp::matmul, FormatFamily::float_, s * 1e12, compute_s * 1e14, 1e14});
  p.tokens = 1000;
  p.prefill = true;
  return p;
}
RuntimeRates unit_rates() {
  RuntimeRates r;
  r.weight_bw.fill(1e12);
  r.gemm_fraction.fill(1);
  r.float_bw = 1e12;
  return r;
}
}  // namespace

TEST_CASE("a record's metric from its passes, worked by hand", "[runtime][predict]") {
  validate::RecordCase c;
  c.window = {pass_of(0.010), pass_of(0.012), pass_of(0.020)};  // the steps at P, P + O/2, P + O - 1
  c.prefill_one = {prefill_pass(0.5, 0.2)};  // 0.5 s alone, of which 0.2 s is arithmetic
  c.prefill_batch = {pass_of(2.0)};
  c.prompt = 1000;
  c.output = 100;
  c.batch = c.concurrency = 4;
  const RuntimeRates r = unit_rates();
  const double step = (0.010 + 4 * 0.012 + 0.020) / 6;  // Simpson: 13 ms
  c.metric = "tg_tok_s";
  CHECK(validate::predict_case(c, r) == Approx(4 / step));  // 4 streams / 13 ms = 307.7 tok/s
  c.metric = "pp_tok_s";
  CHECK(validate::predict_case(c, r) == Approx(4 * 1000 / 2.0));
  // the step plus the other 3 requests' prompts riding in the running steps (their arithmetic only: the steps
  // stream the weights anyway) spread over 100 tokens: 13 + 3 x 0.2 / 100 = 19 ms
  c.metric = "tpot_s";
  CHECK(validate::predict_case(c, r) == Approx(step + 3 * 0.2 / 100));
  CHECK(validate::predict_case(c, r) == Approx(0.019));
  c.metric = "ttft_s";  // one prefill and one running step
  CHECK(validate::predict_case(c, r) == Approx(0.5 + step));
  // Static batch: the prefill's last pass gives each sequence its first token, 99 decode steps give the rest:
  // 4 x 100 tokens / (2 s + 99 x 13 ms) = 121.7 tok/s.
  c.metric = "throughput_tok_s";
  CHECK(validate::predict_case(c, r) == Approx(400 / (2.0 + 99 * step)));
  CHECK(validate::predict_case(c, r) == Approx(121.7).epsilon(0.001));
  c.metric = "total_tok_s";
  CHECK(validate::predict_case(c, r) == Approx(4 * 1100 / (2.0 + 99 * step)));
  c.metric = "request_s";
  CHECK(validate::predict_case(c, r) == Approx(2.0 + 99 * step));
  c.replicas = 2;  // two copies of the group: twice the throughput, the same latency
  CHECK(validate::predict_case(c, r) == Approx(2.0 + 99 * step));
  c.metric = "throughput_tok_s";
  CHECK(validate::predict_case(c, r) == Approx(800 / (2.0 + 99 * step)));
  c.replicas = 1;
  SECTION("an offered rate below capacity is delivered as offered") {
    c.metric = "throughput_tok_s";
    c.request_rate = 0.5;  // 0.5 requests/s x 100 tokens = 50 tok/s < 121 tok/s
    CHECK(validate::predict_case(c, r) == Approx(50));
    c.request_rate = 10;  // beyond capacity: the capacity
    CHECK(validate::predict_case(c, r) == Approx(400 / (2.0 + 99 * step)));
  }
  SECTION("more clients than the KV cache holds wait: closed-loop TTFT by Little's law") {
    c.concurrency = 12;  // 4 running, 8 waiting
    c.metric = "ttft_s";
    const double tpot = step + 3 * 0.2 / 100, ttft = 0.5 + step, request = ttft + 99 * tpot;
    // each client's cycle is 12 x request / 4; what is not its own decode is TTFT: 7.182 s - 99 x 19 ms = 5.30 s
    CHECK(validate::predict_case(c, r) == Approx(12 * request / 4 - 99 * tpot));
    CHECK(validate::predict_case(c, r) == Approx(5.301).epsilon(0.001));
    CHECK(validate::predict_case(c, r) > 3 * ttft);
  }
  SECTION("prompts that arrive together are prefilled in one step, and each waits for all of it") {
    c.metric = "ttft_s";
    c.prefill_group = {pass_of(1.2)};  // the step that prefills the group's prompts: 1.2 s
    c.group = 3;
    CHECK(validate::predict_case(c, r) == Approx(1.2 + step));  // not the lone prompt's 0.5 s
  }
  SECTION("a client of a served runtime sees its delay per request and per request in flight, once") {
    RuntimeRates served = r;
    served.served = {0.018, 0.004, 0};
    c.metric = "ttft_s";
    CHECK(validate::predict_case(c, served) == Approx(0.5 + step));  // the engine's own benchmark: no server
    c.client = true;  // 18 ms + 4 in flight x 4 ms = 34 ms before the prefill and its step
    CHECK(validate::predict_case(c, served) == Approx(0.034 + 0.5 + step));
    // 12 clients, 4 running: the delay counts the 4 in flight and is added once after Little's law (5.301 s above)
    c.concurrency = 12;
    CHECK(validate::predict_case(c, served) == Approx(validate::predict_case(c, r) + 0.034));
    c.concurrency = 4;
    c.concurrency = 1;
    c.batch = 1;
    CHECK(validate::predict_case(c, served) == Approx(0.018 + 0.004 + 0.5));
    // A request's time and the throughput carry it too (2 s of prefill + 99 x 13 ms + 22 ms); TPOT does not.
    c.metric = "request_s";
    CHECK(validate::predict_case(c, served) == Approx(2.0 + 99 * step + 0.022));
    c.metric = "throughput_tok_s";
    CHECK(validate::predict_case(c, served) == Approx(100 / (2.0 + 99 * step + 0.022)));
    for (const char* m : {"tpot_s", "tg_tok_s"}) {
      c.metric = m;
      CHECK(validate::predict_case(c, served) == Approx(validate::predict_case(c, r)));
    }
  }
}

TEST_CASE("each op computes at its own format's peak: mxfp4 experts at fp4, attention at 16 bits", "[runtime]") {
  // Before runtime profiles every op used the attention weights' compute format; now a plan mixing formats runs
  // each matmul on its own path (gpt-oss's MXFP4 experts on a B200's FP4 tensor cores), attention and the
  // small ops at the 16-bit rate.
  const auto chips = hwdb::load();
  const auto models = models::load();
  const ChipSpec& b200 = *chips.find("b200");
  const ModelSpec& m = *models.find("gpt-oss-120b");
  PrecisionPlan plan;
  plan.weights = "bf16";
  plan.per_class[ParamClass::experts] = "mxfp4";
  const PassWork w = pass_work(m, plan, PassShape{1, 512, 0, false});
  const CompactPass c = compact_pass(w, b200, static_cast<double>(m.layers), 1);
  REQUIRE(c.ops.size() == w.ops.size());
  int checked = 0;
  for (size_t i = 0; i < w.ops.size(); ++i) {
    INFO(w.ops[i].name);
    if (w.ops[i].name == "experts") {
      CHECK(c.ops[i].peak == *b200.peak("fp4"));
      CHECK(c.ops[i].family == FormatFamily::fp4);
      ++checked;
    } else if (w.ops[i].kind == "attention" || w.ops[i].name == "attn_qkv") {
      CHECK(c.ops[i].peak == *b200.peak("bf16"));
      ++checked;
    }
  }
  CHECK(checked >= 2);
  CHECK(c.prefill);
}
