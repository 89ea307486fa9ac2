// Level detection on a synthetic sweep: each cache plateau and DRAM are found from the cache sizes.
#include <catch2/catch.hpp>

#include <random>

#include "measure/calibrate.h"
#include "measure/levels.h"
#include "measure/peak.h"

using namespace rooftop::measure;

namespace {
// A made-up 2-thread machine: L1 32 KiB and L2 1 MiB per core, L3 32 MiB shared. Plateaus 400, 200,
// 100 and 20 GB/s with +-3% random noise, and transition points between them.
std::vector<SweepPoint> synthetic_sweep(unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> noise(0.97, 1.03);
  std::vector<SweepPoint> out;
  for (int64_t ws : sweep_sizes(4096, int64_t(1) << 30, 2.0)) {
    double bw = ws <= 32 * 1024 ? 400e9 : ws <= 2 * 1024 * 1024 ? 200e9 : ws <= 32 * 1024 * 1024 ? 100e9 : 20e9;
    if (ws == 64 * 1024 || ws == 4 * 1024 * 1024 || ws == 64 * 1024 * 1024) bw *= 0.7;  // transitions
    SweepPoint p;
    p.working_set_bytes = ws;
    p.bytes_per_s = bw * noise(rng);
    out.push_back(p);
  }
  return out;
}
}  // namespace

TEST_CASE("sweep_sizes doubles from 4 KiB to 1 GiB") {
  auto s = sweep_sizes(4096, int64_t(1) << 30, 2.0);
  REQUIRE(s.size() == 19);  // 2^12 .. 2^30
  CHECK(s.front() == 4096);
  CHECK(s.back() == (int64_t(1) << 30));
}

TEST_CASE("detect_levels finds each plateau of a synthetic sweep") {
  const CacheSizes caches = aggregate_cache_sizes(32768, 1048576, 33554432, 2);
  CHECK(caches.l1_bytes == 65536);
  CHECK(caches.l2_bytes == 2097152);
  for (unsigned seed : {1u, 2u, 3u}) {
    auto levels = detect_levels(synthetic_sweep(seed), caches);
    REQUIRE(levels.size() == 4);
    const char* names[] = {"L1", "L2", "L3", "DRAM"};
    const double plateau[] = {400e9, 200e9, 100e9, 20e9};
    for (int i = 0; i < 4; ++i) {
      CHECK(levels[i].name == names[i]);
      CHECK(levels[i].bytes_per_s == Approx(plateau[i]).epsilon(0.035));  // never a transition point
    }
    CHECK(levels[0].working_set_bytes <= 32768);     // within L1's band: <= half of 64 KiB
    CHECK(levels[3].working_set_bytes >= 134217728);  // DRAM: >= 4 x 32 MiB
    CHECK(levels[1].points == 3);  // L2 band (128 KiB, 1 MiB]: 256 KiB, 512 KiB, 1 MiB
    CHECK(levels[2].points == 2);  // L3 band (4 MiB, 16 MiB]: 8 MiB, 16 MiB
  }
}

TEST_CASE("a level without a reported size is skipped; a sweep too small has no DRAM level") {
  CacheSizes no_l3{65536, 2097152, 0};
  auto levels = detect_levels(synthetic_sweep(4), no_l3);
  REQUIRE(levels.size() == 3);
  CHECK(levels[2].name == "DRAM");
  std::vector<SweepPoint> small;
  for (const auto& p : synthetic_sweep(5))
    if (p.working_set_bytes <= 16 * 1024 * 1024) small.push_back(p);
  auto lv = detect_levels(small, aggregate_cache_sizes(32768, 1048576, 33554432, 2));
  REQUIRE(lv.size() == 3);
  CHECK(lv.back().name == "L3");
}

TEST_CASE("assign_ceilings: memory-bound kernels against their level, GEMM against the fp32 peak") {
  std::vector<LevelBandwidth> levels = {{"L1", 16384, 400e9, 2}, {"L2", 524288, 200e9, 4}, {"L3", 8388608, 100e9, 3}, {"DRAM", 268435456, 20e9, 3}};
  CacheSizes caches{65536, 2097152, 33554432};
  std::vector<KernelResult> ks(3);
  ks[0].op = "gemv", ks[0].bytes_per_call = 117e6, ks[0].bytes_per_s = 18e9;   // DRAM-sized
  ks[1].op = "gemv", ks[1].bytes_per_call = 0.9e6, ks[1].bytes_per_s = 150e9;  // <= half of L2
  ks[2].op = "gemm", ks[2].flops_per_s = 50e9;
  assign_ceilings(ks, 20e9, levels, caches, {{"fp32", 100e9}, {"bf16", 200e9}});
  CHECK(ks[0].ceiling == "memory_bandwidth_bytes_per_s");
  CHECK(ks[0].fraction_of_ceiling == Approx(0.9));
  CHECK(ks[1].ceiling == "levels.L2");
  CHECK(ks[1].fraction_of_ceiling == Approx(0.75));
  CHECK(ks[2].ceiling == "peak_flops.fp32");
  CHECK(ks[2].fraction_of_ceiling == Approx(0.5));
}

TEST_CASE("a peak variant whose own check fails is reported missing, so it is skipped rather than timed") {
  // The AMX loop returns at once where the OS refused the tile state: timing it would record an absurd peak.
  PeakVariant v{"bf16", "made_up", {}, nullptr, 1.0, [] { return false; }};
  CHECK(peak_variant_missing(v) == "the OS's permission to use it");
  v.usable = [] { return true; };
  CHECK(peak_variant_missing(v).empty());
  v.needs = {"no_such_flag"};
  CHECK(peak_variant_missing(v) == "no_such_flag");
  bool amx_listed = false;
  for (const PeakVariant& p : peak_variants()) amx_listed = amx_listed || (std::string(p.name) == "tdpbf16ps_amx" && p.usable);
  CHECK(amx_listed);
}

TEST_CASE("the cache-resident size is the largest working set read clearly faster than DRAM", "[levels]") {
  // The synthetic machine: 100 GB/s up to its 32 MiB L3, 14 GB/s at the 64 MiB transition, 20 GB/s beyond (STREAM
  // reads 20 GB/s): the L3's last point is the largest set still faster than DRAM.
  for (unsigned seed : {1u, 2u, 3u}) CHECK(cache_resident_bytes(synthetic_sweep(seed), 20e9) == 32.0 * 1024 * 1024);
  // A disturbed last point (half of STREAM's rate, as a quick calibration once read at 1 GiB on this VM) must not
  // make the DRAM points before it look cached: the answer stays the L3's 32 MiB.
  for (unsigned seed : {6u, 7u}) {
    auto slow_end = synthetic_sweep(seed);
    slow_end.back().bytes_per_s = 10e9;
    CHECK(cache_resident_bytes(slow_end, 20e9) == 32.0 * 1024 * 1024);
  }
  // A sweep that ends inside a cache (its last point well above STREAM's rate) tells nothing.
  auto in_cache = synthetic_sweep(4);
  while (in_cache.back().working_set_bytes > 32 * 1024 * 1024) in_cache.pop_back();
  CHECK(cache_resident_bytes(in_cache, 20e9) == 0.0);
  // Flat (no cache faster than the largest set), too few points, or no STREAM figure: 0.
  std::vector<SweepPoint> flat;
  for (int64_t ws : sweep_sizes(4096, int64_t(1) << 26, 2.0)) flat.push_back({ws, 10e9, {}});
  CHECK(cache_resident_bytes(flat, 10e9) == 0.0);
  CHECK(cache_resident_bytes(std::vector<SweepPoint>(flat.begin(), flat.begin() + 3), 10e9) == 0.0);
  CHECK(cache_resident_bytes(synthetic_sweep(5), 0.0) == 0.0);
}
