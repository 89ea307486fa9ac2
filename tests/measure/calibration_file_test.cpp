// The calibration file: written by calibration_json, read back by hwdb::apply_calibration.
#include <catch2/catch.hpp>

#include "kernels/cpu/dispatch.h"

#include <cmath>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <unistd.h>

#include "base/suggest.h"
#include "hwdb/calibration.h"
#include "hwdb/host_cpu.h"
#include "hwdb/hwdb.h"
#include "tests/hwdb/made_up_cpu.h"
#include "measure/calibrate.h"
#include "measure/calibration_record.h"
#include "measure/kernel_bench.h"
#include "measure/shapes.h"
#include "kernels/cpu/thread_pool.h"

using namespace rooftop::measure;
namespace fs = std::filesystem;

namespace {
rooftop::hwdb::HostCpuInfo made_up_info() {
  rooftop::hwdb::HostCpuInfo info = rooftop::test::cpu_info("Made-up EPYC 9999", "AuthenticAMD", 0, 2, 2, 2.6e9, 25.27e9,
                                                             {"avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16"});
  info.l1d_bytes = 32768, info.l2_bytes = 1048576, info.l3_bytes = 33554432;
  return info;
}

Stats stats_of(double median) { return summarize({median * 0.99, median, median * 1.01}); }

// A record with random non-zero figures (as run_calibration would fill it).
CalibrationRecord random_record(unsigned seed, const rooftop::ChipSpec& chip) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  CalibrationRecord r;
  r.date = "2026-11-29T13:00:00Z";
  r.quick = true;
  r.threads = 2;
  r.machine = made_up_info();
  r.fingerprint = rooftop::hwdb::machine_fingerprint(chip);
  for (const char* name : {"copy", "scale", "add", "triad", "read"}) {
    BandwidthResult b{name, 2, 1e8, 10e9 * u(rng), 12e9, stats_of(0.01)};
    r.stream.kernels.push_back(b);
    b.threads = 1;
    b.bytes_per_s *= 0.6;
    r.stream_1thread.kernels.push_back(b);
  }
  r.memory_bandwidth_bytes_per_s = r.stream.get("read").bytes_per_s;
  r.memory_bandwidth_1thread_bytes_per_s = r.stream_1thread.get("read").bytes_per_s;
  r.levels = {{"L1", 16384, 400e9 * u(rng), 2}, {"L2", 524288, 200e9 * u(rng), 3},
              {"L3", 8388608, 100e9 * u(rng), 2}, {"DRAM", 268435456, r.memory_bandwidth_bytes_per_s, 3}};
  PeakResult p;
  p.format = "fp32", p.variant = "fma_avx512", p.measured = true, p.threads = 2, p.ops_per_s = 150e9 * u(rng), p.seconds = stats_of(1e-3);
  r.peaks.push_back(p);
  p.variant = "fma_avx2", p.ops_per_s = 0.5 * r.peaks[0].ops_per_s;  // the best variant wins
  r.peaks.push_back(p);
  p.format = "bf16", p.variant = "vdpbf16ps_avx512", p.ops_per_s = 300e9 * u(rng);
  r.peaks.push_back(p);
  PeakResult skipped;
  skipped.format = "int8", skipped.variant = "vpdpbusd_avx512_vnni", skipped.skipped_reason = "this CPU lacks avx512_vnni";
  r.peaks.push_back(skipped);
  KernelResult g;
  g.name = "gemv_q4_1", g.op = "gemv", g.format = "q4_1", g.m = 14336, g.k = 4096, g.n = 1;
  g.bytes_per_call = 33e6, g.flops_per_call = 2.0 * 14336 * 4096, g.seconds = stats_of(3e-3);
  g.bytes_per_s = g.bytes_per_call / 3e-3, g.flops_per_s = g.flops_per_call / 3e-3;
  KernelResult m = g;
  m.name = "gemm_f32", m.op = "gemm", m.format = "f32", m.n = 128, m.flops_per_s = 80e9 * u(rng);
  r.kernels = {g, m};
  assign_ceilings(r.kernels, r.memory_bandwidth_bytes_per_s, r.levels,
                  aggregate_cache_sizes(32768, 1048576, 33554432, 2), best_peaks(r.peaks));
  r.overhead.per_layer_s = 20e-6 * u(rng);
  r.overhead.per_step_s = 50e-6 * u(rng);
  r.overhead.layer_seconds = stats_of(r.overhead.per_layer_s);
  r.overhead.step_seconds = stats_of(r.overhead.per_step_s);
  r.overhead.region_start.per_region_s = 5e-6 * u(rng);
  r.notes.push_back(skipped.skipped_reason);
  return r;
}

// Appends to r a q4_1 GEMM entry per name, copied from `like`, with bytes and FLOPs both at `rate` per second.
void add_q4_1_gemm_entries(CalibrationRecord& r, const KernelResult& like, std::initializer_list<const char*> names,
                           double rate) {
  for (const char* name : names) {
    KernelResult k = like;
    k.name = name, k.op = "gemm", k.format = "q4_1";
    k.bytes_per_s = k.flops_per_s = rate;
    r.kernels.push_back(k);
  }
}

}  // namespace

TEST_CASE("a calibration written by calibration_json is read back by hwdb with the same figures, as measured") {
  const rooftop::ChipSpec chip = rooftop::hwdb::host_cpu_chip(made_up_info());
  for (unsigned seed : {1u, 2u, 3u}) {
    CalibrationRecord r = random_record(seed, chip);
    std::string why = "not cleared";
    rooftop::ChipSpec c = rooftop::hwdb::apply_calibration(chip, calibration_json(r), &why);
    CHECK(why.empty());
    CHECK(c.memory_bandwidth_bytes_per_s == Approx(r.memory_bandwidth_bytes_per_s));
    CHECK(c.provenance.at("memory_bandwidth_bytes_per_s") == "measured 2026-11-29");
    CHECK(c.peak_flops.at("fp32") == Approx(r.peaks[0].ops_per_s));  // best of the two fp32 variants
    CHECK(c.peak_flops.at("bf16") == Approx(r.peaks[2].ops_per_s));
    CHECK(c.provenance.at("peak_flops.fp32") == "measured 2026-11-29");
    // int8 was skipped: the derived figure stays, and says so.
    CHECK(c.provenance.at("peak_flops.int8") != "measured 2026-11-29");
    CHECK(c.measured.get("memory_bandwidth_1thread_bytes_per_s").value_or(-1) == Approx(r.memory_bandwidth_1thread_bytes_per_s));
    CHECK(c.measured.get("l1_bytes_per_s").value_or(-1) == Approx(r.levels[0].bytes_per_s));
    CHECK(c.measured.get("dram_bytes_per_s").value_or(-1) == Approx(r.levels[3].bytes_per_s));
    CHECK(c.measured.get("stream_triad_bytes_per_s").value_or(-1) == Approx(r.stream.get("triad").bytes_per_s));
    CHECK(c.measured.get("gemv_q4_1_bytes_per_s").value_or(-1) == Approx(r.kernels[0].bytes_per_s));
    CHECK(c.measured.get("gemv_q4_1_fraction_of_ceiling").value_or(-1) == Approx(r.kernels[0].bytes_per_s / r.memory_bandwidth_bytes_per_s));
    CHECK(c.measured.get("gemm_f32_flops_per_s").value_or(-1) == Approx(r.kernels[1].flops_per_s));
    // The GEMM's roof: the peak of the operands this machine's kernel table multiplies f32 weights with (bf16 where
    // it rounds both operands: the avx512_bf16 and amx tables; else fp32).
    const bool bf16_operands = rooftop::kernels::active_kernels().gemm_operand_rounding > 0;
    CHECK(c.measured.get("gemm_f32_fraction_of_ceiling").value_or(-1) ==
          Approx(r.kernels[1].flops_per_s / (bf16_operands ? r.peaks[2].ops_per_s : r.peaks[0].ops_per_s)));
    CHECK(r.kernels[1].ceiling == (bf16_operands ? "peak_flops.bf16" : "peak_flops.fp32"));
    CHECK(c.measured.get("overhead_per_layer_s").value_or(-1) == Approx(r.overhead.per_layer_s));
    CHECK(c.measured.get("overhead_per_step_s").value_or(-1) == Approx(r.overhead.per_step_s));
    CHECK(c.measured.get("overhead_region_start_s").value_or(-1) == Approx(r.overhead.region_start.per_region_s));
    CHECK(c.provenance.at("gemv_q4_1_bytes_per_s") == "measured 2026-11-29");
  }
}

TEST_CASE("the calibration JSON carries the schema's keys and no NaN") {
  const rooftop::ChipSpec chip = rooftop::hwdb::host_cpu_chip(made_up_info());
  auto j = nlohmann::json::parse(calibration_json(random_record(7, chip)));
  for (const char* key : {"schema", "date", "quick", "machine", "memory_bandwidth_bytes_per_s", "stream", "levels",
                          "peak_flops", "kernels", "overhead"})
    CHECK(j.contains(key));
  CHECK(j["schema"] == rooftop::hwdb::calibration_schema);
  CHECK(j["machine"]["fingerprint"] == rooftop::hwdb::machine_fingerprint(chip));
  CHECK_FALSE(j["peak_flops"].contains("int8"));  // skipped, listed in notes instead
  CHECK(j["notes"][0] == "this CPU lacks avx512_vnni");
  CHECK(j["kernels"][0]["ceiling"] == "memory_bandwidth_bytes_per_s");
}

TEST_CASE("a calibration from another machine is rejected by hwdb") {
  const rooftop::ChipSpec chip = rooftop::hwdb::host_cpu_chip(made_up_info());
  CalibrationRecord r = random_record(9, chip);
  r.fingerprint = "Other CPU|64|512";
  std::string why;
  rooftop::ChipSpec c = rooftop::hwdb::apply_calibration(chip, calibration_json(r), &why);
  CHECK_FALSE(why.empty());
  CHECK(c.memory_bandwidth_bytes_per_s == chip.memory_bandwidth_bytes_per_s);
}

TEST_CASE("a refresh overlaid on a full calibration replaces what it measured and keeps the rest") {
  const rooftop::ChipSpec chip = rooftop::hwdb::host_cpu_chip(made_up_info());
  const CalibrationRecord full = random_record(4, chip);
  CalibrationRecord refresh = random_record(5, chip);  // as run_calibration's refresh mode leaves it:
  refresh.stream_1thread = {};                         // no 1-thread STREAM, sweep, levels or peaks,
  refresh.memory_bandwidth_1thread_bytes_per_s = 0;
  refresh.levels.clear();
  refresh.peaks.clear();
  refresh.kernels.resize(1);  // and only the GEMV of the format under test
  std::string why = "not cleared";
  const rooftop::ChipSpec first = rooftop::hwdb::apply_calibration(chip, calibration_json(full), &why);
  REQUIRE(why.empty());
  const rooftop::ChipSpec both = rooftop::hwdb::apply_calibration(first, calibration_json(refresh), &why);
  REQUIRE(why.empty());
  CHECK(both.memory_bandwidth_bytes_per_s == Approx(refresh.memory_bandwidth_bytes_per_s));
  CHECK(both.measured.get("gemv_q4_1_bytes_per_s").value_or(-1) == Approx(refresh.kernels[0].bytes_per_s));
  CHECK(both.measured.get("overhead_per_layer_s").value_or(-1) == Approx(refresh.overhead.per_layer_s));
  // Not measured by the refresh: the full calibration's figures stay.
  CHECK(both.measured.get("gemm_f32_flops_per_s").value_or(-1) == Approx(full.kernels[1].flops_per_s));
  CHECK(both.measured.get("memory_bandwidth_1thread_bytes_per_s").value_or(-1) == Approx(full.memory_bandwidth_1thread_bytes_per_s));
  CHECK(both.peak_flops.at("fp32") == Approx(full.peaks[0].ops_per_s));
  CHECK(both.measured.get("dram_bytes_per_s").value_or(-1) == Approx(full.levels[3].bytes_per_s));
  CHECK(refresh.memory_bandwidth_bytes_per_s != Approx(full.memory_bandwidth_bytes_per_s));  // the seeds differ
  // A refresh that derives a format's GEMM model anew replaces the stored one whole: the stored short-row pack rate
  // and activation rate do not outlive it when the refresh could not derive them.
  CalibrationRecord with_gemm = full;
  add_q4_1_gemm_entries(with_gemm, full.kernels[0],
                        {"gemm_q4_1_pack", "gemm_q4_1_pack_k576", "gemm_q4_1_marginal", "gemm_q4_1_act"}, 3e9);
  const rooftop::ChipSpec stored = rooftop::hwdb::apply_calibration(chip, calibration_json(with_gemm), &why);
  REQUIRE(why.empty());
  REQUIRE(stored.measured.format("q4_1")->gemm.pack_widths.size() == 1);
  REQUIRE(stored.measured.format("q4_1")->gemm.act_bytes_per_s == 3e9);
  CalibrationRecord noisy = refresh;  // its n = 16 narrow run did not give a pack rate, nor a split an activation rate
  add_q4_1_gemm_entries(noisy, full.kernels[0], {"gemm_q4_1_pack", "gemm_q4_1_marginal"}, 5e9);
  const rooftop::ChipSpec after = rooftop::hwdb::apply_calibration(stored, calibration_json(noisy), &why);
  REQUIRE(why.empty());
  CHECK(after.measured.format("q4_1")->gemm.pack_bytes_per_s == 5e9);
  CHECK(after.measured.format("q4_1")->gemm.pack_widths.empty());
  CHECK(after.measured.format("q4_1")->gemm.act_bytes_per_s == 0);
  CHECK(after.measured.get("gemv_q4_1_bytes_per_s").value_or(-1) == Approx(refresh.kernels[0].bytes_per_s));  // not a GEMM figure
}

TEST_CASE("run_calibration's refresh mode measures only the asked format's figures") {
  CalibrateOptions opt;
  opt.threads = 2;
  opt.refresh_formats = {rooftop::kernels::WeightFormat::q8_0};
  const CalibrationRecord r = run_calibration(opt);
  CHECK(r.memory_bandwidth_bytes_per_s > 0);
  CHECK(r.memory_bandwidth_1thread_bytes_per_s == 0);
  REQUIRE(r.stream.kernels.size() == 1);  // the memory roof alone: STREAM's read kernel
  CHECK(r.stream.kernels[0].name == "read");
  CHECK(r.stream.kernels[0].bytes_per_s == r.memory_bandwidth_bytes_per_s);
  CHECK(r.peaks.empty());
  CHECK(r.levels.empty());
  std::vector<std::string> names;
  for (const auto& k : r.kernels) names.push_back(k.name);
  INFO("kernels: " << [&] { std::string s; for (auto& n : names) s += n + " "; return s; }());
  auto has = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  CHECK(has("gemv_q8_0"));
  CHECK(has("gemv_q8_0_arith"));
  CHECK(has("attention_f32"));
  CHECK_FALSE(has("attention_f16"));
  CHECK_FALSE(has("attention_prefill_f32"));  // refresh_prefill not asked
  CHECK_FALSE(has("gemm_q8_0"));
  for (const auto& n : names) {
    INFO(n);
    CHECK((n.find("f32") == std::string::npos || n == "attention_f32"));  // no other format's kernels
    CHECK(n.find("gemv_batch") == std::string::npos);                    // refresh_batched not asked
  }
  std::string why;
  const rooftop::ChipSpec c = rooftop::hwdb::apply_calibration(rooftop::hwdb::detect_host_cpu(), calibration_json(r), &why);
  CHECK(why.empty());
  CHECK(c.measured.get("gemv_q8_0_bytes_per_s").has_value());
  // The DRAM start of a GEMV region, measured in every mode (quick: the q8_0 SmolLM2 FFN shape only).
  REQUIRE(r.overhead.region_start.shapes.size() == 1);
  const auto& shape = r.overhead.region_start.shapes[0];
  CHECK(shape.format == "q8_0");
  CHECK((shape.m == 1536 && shape.k == 576));
  CHECK(shape.chain_bytes_per_s > 1e8);   // a GEMV from DRAM streams at GB/s (0.99 GB/s seen under ASan on a slow VM)
  CHECK(shape.stream_bytes_per_s > 1e8);
  CHECK(std::isfinite(shape.excess_s));
  CHECK(r.overhead.region_start.per_region_s == std::max(0.0, shape.excess_s));  // the one shape's median excess
  CHECK(r.overhead.region_start.per_region_s < 1e-3);
  CHECK(c.measured.get("overhead_region_start_s").value_or(-1) == r.overhead.region_start.per_region_s);
}

TEST_CASE("busy_reason: quiet figures pass; a busy set of all figures, or of the DRAM-read ones alone, is named") {
  // Spreads (interquartile range over median) of a made-up record: 60 in-cache figures and 30 read from DRAM.
  auto record = [](double cache_spread, double dram_spread, double dram_wide_share) {
    CalibrationRecord r;
    for (int i = 0; i < 90; ++i) {
      KernelResult k;
      k.name = "k" + std::to_string(i);
      k.op = "gemv";
      const bool dram = i >= 60;
      k.ceiling = dram ? "memory_bandwidth_bytes_per_s" : "levels.L3";
      // The DRAM set: the first dram_wide_share of them spread 40%, the rest dram_spread.
      k.seconds.iqr_relative = !dram ? cache_spread : (i - 60) < dram_wide_share * 30 ? 0.40 : dram_spread;
      r.kernels.push_back(k);
    }
    return r;
  };
  CHECK(busy_reason(record(0.03, 0.03, 0.0)).empty());
  CHECK(busy_reason(record(0.03, 0.05, 0.05)).empty());  // 2 of 30 DRAM figures wide (i < 1.5): 6.7%, under 10%
  // All figures noisy: the median of the whole set names it.
  const std::string all = busy_reason(record(0.12, 0.12, 0.0));
  CHECK(all.find("the kernel figures") != std::string::npos);
  CHECK(all.find("12%") != std::string::npos);
  // Quiet caches, a contended memory bus: 5 of 30 DRAM figures wide is 5.6% of all 90 (the whole-set rule passes)
  // but 17% of the DRAM set (over 10%).
  const std::string dram = busy_reason(record(0.03, 0.05, 5.0 / 30));
  INFO(dram);
  CHECK(dram.find("the figures read from DRAM") != std::string::npos);
  CHECK(dram.find("17% of them spread over 25%") != std::string::npos);
  // A GEMM's derived entries (its timings under the DRAM ceiling) are not DRAM reads: 8 noisy ones are 8.2% of all 98
  // figures (quiet) and would have been 21% of the DRAM set (busy) had they counted there.
  CalibrationRecord with_gemm = record(0.03, 0.03, 0.0);
  for (int i = 0; i < 8; ++i) {
    KernelResult g;
    g.name = "gemm_q4_1_pack" + std::to_string(i);
    g.op = "gemm";
    g.ceiling = "memory_bandwidth_bytes_per_s";
    g.seconds.iqr_relative = 0.40;
    with_gemm.kernels.push_back(g);
  }
  CHECK(busy_reason(with_gemm).empty());
  // And a DRAM set whose median spread is high while few are wide.
  CHECK(busy_reason(record(0.03, 0.09, 0.0)).find("the figures read from DRAM is 9%") != std::string::npos);
}

TEST_CASE("derive_gemm_models recovers the pack rates, the FLOP rate and the activation rate its runs were made from") {
  // Runs of q4_1 built from a known model: t(n) = W / pack + n (2 m k x + 4 (k + m) y), with the wide shape packing
  // at 3e9 B/s and the narrow one (short rows) at 6e9, x = 1 / 2e12 s per FLOP, y = 1 / 5e9 s per activation byte.
  const double pack_wide = 3e9, pack_narrow = 6e9, x = 1 / 2e12, y = 1 / 5e9;
  auto run = [&](const MatrixShape& s, int64_t n, double pack, const std::string& name) {
    KernelResult r;
    r.name = name, r.op = "gemm", r.format = "q4_1";
    r.m = s.m, r.k = s.k, r.n = n;
    const double weights = 0.625 * static_cast<double>(s.m * s.k), act = 4.0 * static_cast<double>(s.k + s.m);
    r.bytes_per_call = weights + act * static_cast<double>(n);
    r.flops_per_call = 2.0 * static_cast<double>(n * s.m * s.k);
    r.seconds.median = weights / pack + static_cast<double>(n) * (2.0 * static_cast<double>(s.m * s.k) * x + act * y);
    return r;
  };
  const MatrixShape &wide = llama8b_ffn(), &narrow = smollm2_ffn();
  REQUIRE(narrow.k == 576);
  // The narrow shape keeps k = 576 where it is whole blocks, else the nearest whole number of them.
  CHECK(narrow_gemm_shape(rooftop::kernels::WeightFormat::q4_1).k == 576);
  CHECK(narrow_gemm_shape(rooftop::kernels::WeightFormat::q4_k).k == 512);
  CHECK(narrow_gemm_shape(rooftop::kernels::WeightFormat::q6_k).m == 1536);
  std::vector<KernelResult> runs = {run(wide, 128, pack_wide, "gemm_q4_1"), run(wide, 16, pack_wide, "gemm_q4_1_n16"),
                                    run(wide, 512, pack_wide, "gemm_q4_1_n512"), run(narrow, 128, pack_narrow, "gemm_q4_1_m1536_k576")};
  auto get = [](const std::vector<KernelResult>& d, const std::string& name) -> const KernelResult* {
    for (const auto& k : d)
      if (k.name == name) return &k;
    return nullptr;
  };
  // Without the narrow shape's n = 16 run: the older split (its n = 128 time less the wide pack rate), no short-row
  // pack rate, and the activations' rate off (the narrow shape's faster packing is charged to them).
  const auto older = derive_gemm_models(runs, 30e9);
  REQUIRE(get(older, "gemm_q4_1_pack"));
  CHECK(get(older, "gemm_q4_1_pack")->bytes_per_s == Approx(pack_wide).epsilon(1e-9));
  CHECK_FALSE(get(older, "gemm_q4_1_pack_k576"));
  REQUIRE(get(older, "gemm_q4_1_act"));
  // With it: every rate back.
  runs.push_back(run(narrow, 16, pack_narrow, "gemm_q4_1_m1536_k576_n16"));
  const auto d = derive_gemm_models(runs, 30e9);
  REQUIRE(get(d, "gemm_q4_1_pack_k576"));
  CHECK(get(d, "gemm_q4_1_pack_k576")->bytes_per_s == Approx(pack_narrow).epsilon(1e-9));
  CHECK(get(d, "gemm_q4_1_pack_k576")->k == 576);
  CHECK(get(d, "gemm_q4_1_pack")->bytes_per_s == Approx(pack_wide).epsilon(1e-9));
  REQUIRE(get(d, "gemm_q4_1_marginal"));
  CHECK(get(d, "gemm_q4_1_marginal")->flops_per_s == Approx(1 / x).epsilon(1e-6));
  REQUIRE(get(d, "gemm_q4_1_act"));
  CHECK(get(d, "gemm_q4_1_act")->bytes_per_s == Approx(1 / y).epsilon(1e-6));
  // The slope past 128 tokens is the same line here: its FLOP rate is x's.
  REQUIRE(get(d, "gemm_q4_1_marginal_large"));
  CHECK(get(d, "gemm_q4_1_marginal_large")->flops_per_s == Approx(1 / x).epsilon(1e-6));
  // A wide slope that is nearly all activations (the FLOPs almost free) is kept with the narrow line: both shapes'
  // slopes are what the model must reproduce.
  const double x_tiny = 1 / 100e12;
  for (auto& r : runs) {
    const MatrixShape& s = r.m == wide.m ? wide : narrow;
    const double weights = 0.625 * static_cast<double>(s.m * s.k), act = 4.0 * static_cast<double>(s.k + s.m);
    r.seconds.median = weights / (r.m == wide.m ? pack_wide : pack_narrow) +
                       static_cast<double>(r.n) * (2.0 * static_cast<double>(s.m * s.k) * x_tiny + act * y);
  }
  const auto tiny = derive_gemm_models(runs, 30e9);
  CHECK(get(tiny, "gemm_q4_1_act")->bytes_per_s == Approx(1 / y).epsilon(1e-6));
  CHECK(get(tiny, "gemm_q4_1_marginal")->flops_per_s == Approx(1 / x_tiny).epsilon(1e-4));
  // A narrow slope that no positive split explains (twice what activations at the whole wide slope's rate give):
  // the activations take at most half the wide slope and the FLOPs the rest, so the wide line still holds.
  const double F = 2.0 * static_cast<double>(wide.m * wide.k), A = 4.0 * static_cast<double>(wide.k + wide.m);
  const double As = 4.0 * static_cast<double>(narrow.k + narrow.m);
  const double b = 2.0 * static_cast<double>(wide.m * wide.k) * x + A * y;  // the wide runs' slope (as first built)
  for (auto& r : runs) {
    const bool w = r.m == wide.m;
    const MatrixShape& s = w ? wide : narrow;
    const double weights = 0.625 * static_cast<double>(s.m * s.k);
    r.seconds.median = weights / (w ? pack_wide : pack_narrow) + static_cast<double>(r.n) * (w ? b : 2.0 * b * As / A);
  }
  const auto capped = derive_gemm_models(runs, 30e9);
  const double x_c = 1 / get(capped, "gemm_q4_1_marginal")->flops_per_s, y_c = 1 / get(capped, "gemm_q4_1_act")->bytes_per_s;
  CHECK(F * x_c + A * y_c == Approx(b).epsilon(1e-9));
  CHECK(A * y_c == Approx(0.5 * b).epsilon(1e-9));
}

TEST_CASE("measure_gemm over a working set cycles slices of one matrix and counts one matrix's bytes a call") {
  rooftop::kernels::ThreadPool pool(2);
  const int64_t m = 64, k = 64, n = 16;
  const double one = static_cast<double>(m * rooftop::kernels::row_bytes(rooftop::kernels::WeightFormat::q4_1, k));
  // 200 slices: past the 64 copies the older code stopped at, which also read a reference the copies had moved.
  // 1 warm-up and 9 timed calls over 3 slices: every slice, the last one and the wrap back to the first (under the
  // sanitizer job, an out-of-range slice would be caught).
  const KernelResult three = measure_gemm(pool, rooftop::kernels::WeightFormat::q4_1, m, k, n, TimerOptions{1, 9, 0}, 3 * one);
  CHECK(three.working_set_bytes == Approx(3 * one));
  const KernelResult r = measure_gemm(pool, rooftop::kernels::WeightFormat::q4_1, m, k, n, TimerOptions{0, 3, 0}, 200 * one);
  CHECK(r.working_set_bytes == Approx(200 * one));
  CHECK(r.bytes_per_call == Approx(one + 4.0 * static_cast<double>(n * (k + m))));
  CHECK(r.flops_per_call == Approx(2.0 * n * m * k));
  CHECK(r.seconds.median > 0);
}
