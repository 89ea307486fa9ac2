// Lints the whole embedded chip database and checks it against seed 002's landscape figures.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "hwdb/card_keys.h"
#include "hwdb/hwdb.h"

using rooftop::ChipSpec;

namespace {
bool has_note(const ChipSpec& c, const std::string& needle) {
  for (const auto& n : c.notes)
    if (n.find(needle) != std::string::npos) return true;
  return false;
}
}  // namespace

TEST_CASE("the embedded database holds exactly the seed-era chips and those the published dataset needs", "[hwdb][lint]") {
  auto db = rooftop::hwdb::load();
  std::vector<std::string> ids;
  for (const auto& c : db.chips) ids.push_back(c.id);
  std::sort(ids.begin(), ids.end());
  std::vector<std::string> expected = {"a100-80g", "b200",     "b300",    "h100-sxm",    "h200",
                                       "l40s",     "m3-ultra", "mi300x",  "mi355x",      "rtx-4090",
                                       "rtx-5060-ti", "rtx-5090", "tpu-v7", "trainium3",
                                       // added for validate/published (issue 13)
                                       "a100-40g", "a10g", "h100-pcie", "l4", "m1-max", "m1-ultra", "m2-max", "m2-ultra",
                                       "m3-max", "m4-max", "mi250x", "rtx-3060", "rtx-3090", "rtx-4080", "rtx-a6000",
                                       "rx-7900-xtx", "rtx-pro-6000-blackwell-server", "gb200", "gh200-480gb", "gh200-144gb",
                                       "rtx-6000-ada", "a40", "a100-80g-pcie", "rtx-4000-ada", "rtx-5000-ada", "tesla-p40",
                                       "rtx-3070", "rtx-3080", "rtx-3080-ti", "rtx-4070-ti", "m1", "m3-pro", "rx-5700-xt",
                                       "rx-6800-xt", "rtx-pro-6000-blackwell-workstation"};
  std::sort(expected.begin(), expected.end());
  CHECK(ids == expected);
  auto all = db.ids();
  CHECK(std::find(all.begin(), all.end(), "cpu") != all.end());
}

TEST_CASE("every card is complete, sourced, positive and dense", "[hwdb][lint]") {
  auto db = rooftop::hwdb::load();
  for (const auto& c : db.chips) {
    INFO("chip " << c.id);
    CHECK(c.file == "hwdb/cards/" + c.id + ".yaml");
    CHECK(!c.name.empty());
    CHECK(!c.vendor.empty());
    CHECK((c.kind == "gpu" || c.kind == "accelerator" || c.kind == "soc"));
    CHECK(c.memory_bytes >= 1e9);
    CHECK(c.memory_bytes <= 1e12);
    CHECK(c.memory_bandwidth_bytes_per_s >= 5e10);  // Apple M1: 68.25 GB/s
    const auto& archs = rooftop::hwdb::architectures();
    CHECK(std::find(archs.begin(), archs.end(), c.architecture) != archs.end());  // runtime profiles key on it
    CHECK(c.memory_bandwidth_bytes_per_s <= 2e13);
    REQUIRE(!c.sources.empty());
    for (const auto& s : c.sources) CHECK(s.rfind("https://", 0) == 0);
    REQUIRE(!c.peak_flops.empty());
    for (const auto& [fmt, flops] : c.peak_flops) {
      INFO("format " << fmt);
      CHECK(flops > 1e11);  // Tesla P40's fp16: 0.18 TFLOP/s (1/64 rate)
      CHECK(flops < 2e16);  // no single 2026 chip has a dense rate of 20 PFLOP/s
      CHECK(c.provenance.count("peak_flops." + fmt) == 1);
    }
    // Dense rates: sparse figures double these ratios. A genuine exception must say "not sparsity".
    auto p = [&](const char* f) { return c.peak(f).value_or(0.0); };
    double half = std::max(p("bf16"), p("fp16"));
    REQUIRE(half > 0);  // every chip in the database has a 16-bit rate
    if (!has_note(c, "not sparsity")) {
      CHECK(p("fp8") <= 2.1 * half);
      CHECK(p("int8") <= 4.2 * half);
      CHECK(p("tf32") <= 0.55 * half);
      if (p("fp8") > 0) CHECK(p("fp4") <= 4.1 * p("fp8"));
    }
    if (p("bf16") > 0 && p("fp16") > 0) CHECK(p("bf16") == Approx(p("fp16")));
    // The ridge of the chip's best matmul rate (16-bit or int8: Pascal's fp16 is a 1/64-rate path).
    double ridge = std::max(half, p("int8")) / c.memory_bandwidth_bytes_per_s;
    CHECK(ridge > 10);
    CHECK(ridge < 1000);
    for (const auto& [key, how] : c.provenance) {
      INFO("provenance " << key);
      CHECK((how == "datasheet" || how == "derived" || how == "assumed"));
    }
    if (c.usd_per_hour) {
      CHECK(*c.usd_per_hour > 0);
      CHECK(*c.usd_per_hour < 20);
      CHECK(c.usd_per_hour_date.rfind("2026", 0) == 0);
      bool marked = c.usd_per_hour_source.find("illustrative") != std::string::npos ||
                    c.usd_per_hour_source.find("derived") != std::string::npos ||
                    c.usd_per_hour_source.find("seed 002") != std::string::npos;
      CHECK(marked);
    }
    if (c.tdp_watts) CHECK((*c.tdp_watts >= 50 && *c.tdp_watts <= 2000));  // NVIDIA L4: 72 W
    if (c.scaleup_bandwidth_bytes_per_s) CHECK(c.scaleup_domain_size.has_value());
  }
}

// Seed 002, "The accelerator landscape": "B200 — 192 GB, 8 TB/s ... M3 Ultra — 512 GB, 0.819 TB/s";
// the memory-budget widget: "16 GB RTX 5060 Ti".
TEST_CASE("cards reproduce seed 002's capacities and bandwidths", "[hwdb][seed]") {
  struct Row {
    const char* id;
    double gb, tb_per_s;
  };
  const Row rows[] = {{"b200", 192, 8},       {"mi355x", 288, 8},      {"b300", 288, 8},
                      {"tpu-v7", 192, 7.4},   {"mi300x", 192, 5.3},    {"trainium3", 144, 4.9},
                      {"h200", 141, 4.8},     {"h100-sxm", 80, 3.35},  {"rtx-5090", 32, 1.8},
                      {"m3-ultra", 512, 0.819}, {"rtx-5060-ti", 16, 0.448}};
  auto db = rooftop::hwdb::load();
  for (const auto& r : rows) {
    INFO(r.id);
    const ChipSpec* c = db.find(r.id);
    REQUIRE(c);
    CHECK(c->memory_bytes == Approx(r.gb * 1e9));
    CHECK(c->memory_bandwidth_bytes_per_s == Approx(r.tb_per_s * 1e12).epsilon(0.01));  // 5090: 1.792 datasheet
  }
}

// Seed 002, GPU tour: "B200: 148 SMs x 4 tensor cores = 592 cores ... L2 cache 96 MB ... shared 228 KB".
TEST_CASE("B200 card carries the seed's SM count, L2 and shared memory", "[hwdb][seed]") {
  auto c = rooftop::hwdb::load().get("b200");
  CHECK(c.compute_units.value_or(0) == 148);
  CHECK(c.l2_bytes.value_or(0) == Approx(96e6));
  CHECK(c.sram_bytes.value_or(0) == Approx(148 * 228 * 1024.0));
  CHECK(c.provenance.at("l2_bytes") == "assumed");
}

// Seed 002, roofline: "ridge = peak / bandwidth ... H100 example ridge 299" (with ~1,000 TFLOP/s).
TEST_CASE("H100 ridge is within 2% of the seed's 299 FLOPs/byte", "[hwdb][seed]") {
  auto c = rooftop::hwdb::load().get("h100-sxm");
  double ridge = *c.peak("bf16") / c.memory_bandwidth_bytes_per_s;  // 989.4e12 / 3.35e12 = 295.3
  CHECK(std::abs(ridge - 299) / 299 < 0.02);
  CHECK(*c.peak("fp8") == Approx(1978.9e12));
  CHECK(*c.tdp_watts == 700);
  CHECK(*c.usd_per_hour == 2.50);  // seed 002's illustrative H100 price
}

// Seed 002, decode speed: "70B dense at FP8 streams ~70 GB per token": B200 114 ... M3 Ultra 12 tok/s,
// and "70 GB <= 80 GB, so it loads on one H100"; the RTX 5090 "won't fit".
TEST_CASE("decode ceilings for a 70 GB model match seed 002", "[hwdb][seed]") {
  struct Row {
    const char* id;
    double tokens_per_s;
    bool fits;
  };
  const Row rows[] = {{"b200", 114, true},   {"mi355x", 114, true},   {"b300", 114, true},
                      {"tpu-v7", 106, true}, {"mi300x", 76, true},    {"trainium3", 70, true},
                      {"h200", 69, true},    {"h100-sxm", 48, true},  {"rtx-5090", 26, false},
                      {"m3-ultra", 12, true}};
  auto db = rooftop::hwdb::load();
  const double weights_bytes = 70e9;
  for (const auto& r : rows) {
    INFO(r.id);
    auto c = db.get(r.id);
    CHECK(std::round(c.memory_bandwidth_bytes_per_s / weights_bytes) == r.tokens_per_s);
    CHECK((weights_bytes <= c.memory_bytes) == r.fits);
  }
}
