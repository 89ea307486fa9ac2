// Calibration overlay: a valid file replaces figures and provenance; damaged, foreign or wrong-schema files are ignored whole.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "hwdb/calibration.h"
#include "hwdb/host_cpu.h"
#include "hwdb/hwdb.h"
#include "tests/hwdb/made_up_cpu.h"

using nlohmann::json;
using rooftop::ChipSpec;

namespace {

ChipSpec made_up_cpu() {
  return rooftop::hwdb::host_cpu_chip(rooftop::test::cpu_info(
      "Made-up EPYC", "AuthenticAMD", 0x19, 2, 2, 2.6e9, 25.27e9,
      {"avx", "avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16"}));
}

struct Figures {
  double bw, bw1, fp32, bf16, gemv, gemm, l1, per_layer;
};

Figures random_figures(unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  return {30e9 * u(rng), 15e9 * u(rng), 150e9 * u(rng), 300e9 * u(rng), 25e9 * u(rng), 100e9 * u(rng),
          500e9 * u(rng), 2e-6 * u(rng)};
}

json calibration_json(const std::string& fingerprint, const Figures& f) {
  return json{
      {"schema", "rooftop-calibration-1"},
      {"date", "2026-11-29T13:00:00Z"},
      {"quick", true},
      {"machine", {{"cpu_model", "Made-up EPYC"}, {"cores", 2}, {"fingerprint", fingerprint}}},
      {"memory_bandwidth_bytes_per_s", f.bw},
      {"memory_bandwidth_1thread_bytes_per_s", f.bw1},
      {"stream", {{"copy", f.bw * 0.9}, {"triad", f.bw * 0.95}}},
      {"levels", json::array({{{"name", "L1"}, {"working_set_bytes", 16384}, {"bandwidth_bytes_per_s", f.l1}}})},
      {"peak_flops", {{"fp32", f.fp32}, {"bf16", f.bf16}, {"int8", 0}}},
      {"kernels", json::array({{{"name", "gemv_q4_1"}, {"op", "gemv"}, {"bytes_per_s", f.gemv},
                                {"flops_per_s", f.gemv / 2}, {"fraction_of_ceiling", f.gemv / f.bw}},
                               {{"name", "gemm_f32"}, {"op", "gemm"}, {"bytes_per_s", 0}, {"flops_per_s", f.gemm}}})},
      {"overhead", {{"per_layer_s", f.per_layer}, {"per_step_s", 10 * f.per_layer}}}};
}

// A calibration file written on made_up_cpu() (its fingerprint is "Made-up EPYC|2|25") with the figures f.
json made_up_cpus_file(const Figures& f) { return calibration_json("Made-up EPYC|2|25", f); }

}  // namespace

TEST_CASE("machine fingerprint is model|cores|GB", "[hwdb][calibration]") {
  CHECK(rooftop::hwdb::machine_fingerprint(made_up_cpu()) == "Made-up EPYC|2|25");
}

TEST_CASE("a valid calibration file changes figures and provenance", "[hwdb][calibration]") {
  ChipSpec cpu = made_up_cpu();
  Figures f = random_figures(7);
  std::string why = "stale";
  auto c = rooftop::hwdb::apply_calibration(cpu, made_up_cpus_file(f).dump(), &why);
  CHECK(why.empty());
  CHECK(c.memory_bandwidth_bytes_per_s == f.bw);
  CHECK(c.provenance.at("memory_bandwidth_bytes_per_s") == "measured 2026-11-29");
  CHECK(c.measured.measured_at == "2026-11-29T13:00:00Z");  // the time whose age `rooftop run` states
  CHECK(cpu.measured.measured_at.empty());
  CHECK(*c.peak("fp32") == f.fp32);
  CHECK(*c.peak("bf16") == f.bf16);
  CHECK(c.provenance.at("peak_flops.fp32") == "measured 2026-11-29");
  CHECK(*c.peak("int8") == *cpu.peak("int8"));  // 0 = not measured: the derived figure stays
  CHECK(c.provenance.at("peak_flops.int8") == "derived");
  CHECK(c.measured.get("gemv_q4_1_bytes_per_s").value_or(-1) == f.gemv);
  CHECK(c.measured.get("gemv_q4_1_flops_per_s").value_or(-1) == f.gemv / 2);
  CHECK(c.measured.get("gemv_q4_1_fraction_of_ceiling").value_or(-1) == Approx(f.gemv / f.bw));
  CHECK(c.measured.get("gemm_f32_flops_per_s").value_or(-1) == f.gemm);
  CHECK(c.measured.get("gemm_f32_bytes_per_s").has_value() == false);
  CHECK(c.measured.get("l1_bytes_per_s").value_or(-1) == f.l1);
  CHECK(c.measured.get("stream_triad_bytes_per_s").value_or(-1) == Approx(f.bw * 0.95));
  CHECK(c.measured.get("memory_bandwidth_1thread_bytes_per_s").value_or(-1) == f.bw1);
  CHECK(c.measured.get("overhead_per_layer_s").value_or(-1) == f.per_layer);
  CHECK(c.measured.get("overhead_per_step_s").value_or(-1) == Approx(10 * f.per_layer));
  CHECK(c.provenance.at("gemv_q4_1_bytes_per_s") == "measured 2026-11-29");
  CHECK(c.measured.get("overhead_region_start_s").has_value() == false);  // an older file without it: no region cost
}

TEST_CASE("the DRAM start per GEMV region is read when present; 0 is a measurement, 1 ms or more is not", "[hwdb][calibration]") {
  ChipSpec cpu = made_up_cpu();
  std::string why;
  auto j = made_up_cpus_file(random_figures(13));
  j["overhead"]["region_start_s"] = 4.7e-6;
  auto c = rooftop::hwdb::apply_calibration(cpu, j.dump(), &why);
  CHECK(why.empty());
  CHECK(c.measured.get("overhead_region_start_s").value_or(-1) == 4.7e-6);
  CHECK(c.provenance.at("overhead_region_start_s") == "measured 2026-11-29");
  j["overhead"]["region_start_s"] = 0.0;
  CHECK(rooftop::hwdb::apply_calibration(cpu, j.dump(), &why).measured.get("overhead_region_start_s").value_or(-1) == 0.0);
  for (double bad : {-1e-6, 2e-3}) {
    j["overhead"]["region_start_s"] = bad;
    CHECK(rooftop::hwdb::apply_calibration(cpu, j.dump(), &why).measured.empty());  // the file is refused whole
    CHECK(why.find("overhead.region_start_s") != std::string::npos);
  }
}

TEST_CASE("prefill attention's row cost is read when present; 0, negative or 1 ms or more refuses the file", "[hwdb][calibration]") {
  ChipSpec cpu = made_up_cpu();
  std::string why;
  auto j = made_up_cpus_file(random_figures(17));
  auto c = rooftop::hwdb::apply_calibration(cpu, j.dump(), &why);
  CHECK(!c.measured.overhead.attention_row_s);  // an older file without it: the one prefill attention rate
  j["overhead"]["attention_row_s"] = 6.9e-8;
  c = rooftop::hwdb::apply_calibration(cpu, j.dump(), &why);
  CHECK(why.empty());
  CHECK(c.measured.overhead.attention_row_s.value_or(-1) == 6.9e-8);
  for (double bad : {0.0, -1e-8, 2e-3}) {
    j["overhead"]["attention_row_s"] = bad;
    CHECK(rooftop::hwdb::apply_calibration(cpu, j.dump(), &why).measured.empty());
    CHECK(why.find("overhead.attention_row_s") != std::string::npos);
  }
}

TEST_CASE("foreign, truncated, wrong-schema or half-bad files are ignored whole", "[hwdb][calibration]") {
  ChipSpec cpu = made_up_cpu();
  Figures f = random_figures(11);
  std::string why;

  auto foreign = rooftop::hwdb::apply_calibration(cpu, calibration_json("Other CPU|64|512", f).dump(), &why);
  CHECK(foreign.memory_bandwidth_bytes_per_s == cpu.memory_bandwidth_bytes_per_s);
  CHECK(foreign.provenance == cpu.provenance);
  CHECK(why.find("another machine") != std::string::npos);

  std::string text = made_up_cpus_file(f).dump();
  auto truncated = rooftop::hwdb::apply_calibration(cpu, text.substr(0, text.size() / 2), &why);
  CHECK(truncated.memory_bandwidth_bytes_per_s == cpu.memory_bandwidth_bytes_per_s);
  CHECK(truncated.measured.empty());
  CHECK(why.find("damaged JSON") != std::string::npos);

  auto j = made_up_cpus_file(f);
  j["schema"] = "rooftop-calibration-0";
  auto old = rooftop::hwdb::apply_calibration(cpu, j.dump(), &why);
  CHECK(old.memory_bandwidth_bytes_per_s == cpu.memory_bandwidth_bytes_per_s);
  CHECK(why.find("schema") != std::string::npos);

  // A late bad entry must not leave the earlier (valid) figures applied.
  j = made_up_cpus_file(f);
  j["overhead"]["per_step_s"] = -1;
  auto half = rooftop::hwdb::apply_calibration(cpu, j.dump(), &why);
  CHECK(half.memory_bandwidth_bytes_per_s == cpu.memory_bandwidth_bytes_per_s);
  CHECK(half.measured.empty());
  CHECK(why.find("overhead.per_step_s") != std::string::npos);

  j = made_up_cpus_file(f);
  j["memory_bandwidth_bytes_per_s"] = "fast";
  CHECK(rooftop::hwdb::apply_calibration(cpu, j.dump(), &why).measured.empty());
  CHECK(why.find("memory_bandwidth_bytes_per_s is not a number") != std::string::npos);
}

TEST_CASE("a kernel figure the key grammar does not know refuses the file, naming it", "[hwdb][calibration]") {
  ChipSpec cpu = made_up_cpu();
  std::string why;
  auto j = made_up_cpus_file(random_figures(17));
  // A misspelt width key: before the typed rates it was passed over and the datasheet bandwidth priced instead.
  j["kernels"].push_back({{"name", "gemv_q4_1_strem_k576"}, {"op", "gemv"}, {"bytes_per_s", 20e9}});
  auto c = rooftop::hwdb::apply_calibration(cpu, j.dump(), &why);
  CHECK(c.measured.empty());
  CHECK(c.memory_bandwidth_bytes_per_s == cpu.memory_bandwidth_bytes_per_s);
  CHECK(why.find("gemv_q4_1_strem_k576_bytes_per_s") != std::string::npos);
  // Spelt right, it is filed as the q4_1 GEMV's streaming rate at width 576.
  j["kernels"].back()["name"] = "gemv_q4_1_stream_k576";
  c = rooftop::hwdb::apply_calibration(cpu, j.dump(), &why);
  CHECK(why.empty());
  REQUIRE(c.measured.format("q4_1") != nullptr);
  CHECK(c.measured.format("q4_1")->gemv.stream_bytes_per_s == rooftop::WidthRates{{576.0, 20e9}});
}

TEST_CASE("Database::get(\"cpu\") reads this machine's calibration file", "[hwdb][calibration]") {
  std::random_device rd;
  auto dir = std::filesystem::temp_directory_path() / ("rooftop-cache-" + std::to_string(rd()));
  std::filesystem::create_directories(dir / "calibration");
  ::setenv("ROOFTOP_CACHE_DIR", dir.c_str(), 1);
  CHECK(rooftop::hwdb::calibration_path() == (dir / "calibration" / "local.json").string());
  auto db = rooftop::hwdb::load();
  ChipSpec detected = rooftop::hwdb::detect_host_cpu();

  ChipSpec none = db.get("cpu");  // no file yet: detected figures
  CHECK(none.memory_bandwidth_bytes_per_s == detected.memory_bandwidth_bytes_per_s);

  Figures f = random_figures(3);
  std::ofstream(dir / "calibration" / "local.json")
      << calibration_json(rooftop::hwdb::machine_fingerprint(detected), f).dump(2);
  ChipSpec local = db.get("local");
  CHECK(local.memory_bandwidth_bytes_per_s == f.bw);
  CHECK(local.provenance.at("memory_bandwidth_bytes_per_s") == "measured 2026-11-29");

  std::ofstream(dir / "calibration" / "local.json") << calibration_json("Other CPU|64|512", f).dump();
  ChipSpec foreign = db.get("cpu");
  CHECK(foreign.memory_bandwidth_bytes_per_s == detected.memory_bandwidth_bytes_per_s);
  CHECK(foreign.provenance.at("memory_bandwidth_bytes_per_s") == "assumed");

  ::unsetenv("ROOFTOP_CACHE_DIR");
  std::filesystem::remove_all(dir);
}

TEST_CASE("the cache-resident size is read when present; 0 or negative refuses the file", "[hwdb][calibration]") {
  ChipSpec cpu = made_up_cpu();
  std::string why;
  auto j = made_up_cpus_file(random_figures(19));
  CHECK(rooftop::hwdb::apply_calibration(cpu, j.dump(), &why).measured.cache_resident_bytes == 0);  // an older file
  j["cache_resident_bytes"] = 190e6;
  CHECK(rooftop::hwdb::apply_calibration(cpu, j.dump(), &why).measured.cache_resident_bytes == 190e6);
  for (double bad : {0.0, -1.0}) {
    j["cache_resident_bytes"] = bad;
    CHECK(rooftop::hwdb::apply_calibration(cpu, j.dump(), &why).measured.empty());
    CHECK(why.find("cache_resident_bytes") != std::string::npos);
  }
}

TEST_CASE("the kernels' GEMM thresholds are read per format and row length; a fraction, 0, a bad width or an unknown "
          "format refuses the file", "[hwdb][calibration]") {
  ChipSpec cpu = made_up_cpu();
  std::string why;
  auto j = made_up_cpus_file(random_figures(23));
  CHECK(rooftop::hwdb::apply_calibration(cpu, j.dump(), &why).measured.get("gemm_q4_0_min_tokens_k1") == std::nullopt);  // an older file
  // The form calibrate writes: a step function of the row length.
  j["gemm_min_tokens"] = {{"q4_0", {{"32", 12}, {"1024", 21}}}, {"f16", {{"32", 7}}}};
  const ChipSpec c = rooftop::hwdb::apply_calibration(cpu, j.dump(), &why);
  CHECK(c.measured.get("gemm_q4_0_min_tokens_k32") == 12);
  CHECK(c.measured.get("gemm_q4_0_min_tokens_k1024") == 21);
  const rooftop::GemmRates& q4 = c.measured.format("q4_0")->gemm;
  CHECK(q4.min_tokens_at(576) == 12);   // below the step at 1024
  CHECK(q4.min_tokens_at(1024) == 21);  // from it on
  CHECK(q4.min_tokens_at(14336) == 21);
  CHECK(q4.min_tokens_at(16) == 12);    // below the first step: the first
  CHECK(c.measured.format("fp16")->gemm.min_tokens_at(4096) == 7);  // the kernels' "f16" is the analyzer's fp16
  CHECK(c.provenance.count("gemm_f16_min_tokens_k32") == 1);
  // The stop-41 form (one number per format) holds for every width.
  j["gemm_min_tokens"] = {{"q4_0", 17}};
  CHECK(rooftop::hwdb::apply_calibration(cpu, j.dump(), &why).measured.format("q4_0")->gemm.min_tokens_at(576) == 17);
  for (const auto& [fmt, bad] : std::vector<std::pair<std::string, double>>{{"q4_0", 7.5}, {"q4_0", 0}, {"q4_0", -3}, {"q9_9", 8}}) {
    j["gemm_min_tokens"] = {{fmt, bad}};
    CHECK(rooftop::hwdb::apply_calibration(cpu, j.dump(), &why).measured.empty());
    CHECK(why.find(fmt) != std::string::npos);
    j["gemm_min_tokens"] = {{fmt, {{"1024", bad}}}};
    CHECK(rooftop::hwdb::apply_calibration(cpu, j.dump(), &why).measured.empty());
    CHECK(why.find(fmt) != std::string::npos);
  }
  for (const std::string k : {"0", "0512", "x", "", "1e3", "-32"}) {
    j["gemm_min_tokens"] = {{"q4_0", {{k, 12}}}};
    CHECK(rooftop::hwdb::apply_calibration(cpu, j.dump(), &why).measured.empty());
    CHECK(why.find("row length") != std::string::npos);
  }
}
