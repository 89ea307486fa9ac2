// Host CPU detection: sane figures on this machine, and the peak formula on hand-worked machines.
#include <catch2/catch.hpp>

#include <algorithm>

#include "hwdb/host_cpu.h"
#include "tests/hwdb/made_up_cpu.h"
#include "hwdb/hwdb.h"

using rooftop::hwdb::HostCpuInfo;

TEST_CASE("detect_host_cpu gives a sane chip for this machine", "[hwdb][cpu]") {
  auto c = rooftop::hwdb::detect_host_cpu();
  CHECK(c.id == "cpu");
  CHECK(c.kind == "cpu");
  CHECK(!c.name.empty());
  REQUIRE(c.compute_units.has_value());
  CHECK(*c.compute_units >= 1);
  CHECK(c.memory_bytes > 0);
  CHECK(c.memory_bandwidth_bytes_per_s > 0);
  REQUIRE(c.peak("fp32").has_value());
  CHECK(*c.peak("fp32") > 0);
  CHECK(c.provenance.at("memory_bandwidth_bytes_per_s") == "assumed");
  CHECK(!c.notes.empty());
  auto info = rooftop::hwdb::host_cpu_info();
  CHECK(info.physical_cores <= info.logical_cpus);
  CHECK(info.clock_hz > 0);
  CHECK(info.isa == rooftop::hwdb::host_isa_flags());
#if defined(__x86_64__)
  CHECK(std::find(info.isa.begin(), info.isa.end(), "sse4_2") != info.isa.end());  // every x86-64 this decade
#endif
}

TEST_CASE("peak formula: cores x lanes x FMA pipes x 2 x clock", "[hwdb][cpu]") {
  HostCpuInfo intel = rooftop::test::cpu_info("Made-up Xeon", "GenuineIntel", 6, 4, 8, 3.0e9, 64e9,
                                              {"avx", "avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16"});
  intel.l2_bytes = 2 * 1048576.0;
  auto c = rooftop::hwdb::host_cpu_chip(intel);
  CHECK(*c.peak("fp32") == Approx(768e9));    // 4 x 16 x 2 x 2 x 3e9
  CHECK(*c.peak("bf16") == Approx(1.536e12)); // 2x fp32
  CHECK(*c.peak("int8") == Approx(3.072e12)); // 4 x 16 lanes x 8 ops x 2 pipes x 3e9
  CHECK(c.memory_bandwidth_bytes_per_s == Approx(80e9));  // 4 cores x 20e9
  CHECK(c.l2_bytes.value_or(0) == Approx(4 * 2 * 1048576.0));
  CHECK(c.provenance.at("peak_flops.fp32") == "derived");

  HostCpuInfo spr = intel;  // with AMX tiles: 1,024 bf16 FLOPs and 2,048 int8 ops per core per clock (Intel)
  spr.isa.push_back("amx_bf16");
  spr.isa.push_back("amx_int8");
  auto a = rooftop::hwdb::host_cpu_chip(spr);
  CHECK(*a.peak("fp32") == Approx(768e9));     // AMX adds no fp32
  CHECK(*a.peak("bf16") == Approx(12.288e12)); // 4 x 1024 x 3e9
  CHECK(*a.peak("int8") == Approx(24.576e12)); // 4 x 2048 x 3e9

  HostCpuInfo zen4 = intel;  // Zen 4 double-pumps 512-bit ops: AVX-512 peak equals AVX2 peak
  zen4.vendor = "AuthenticAMD";
  zen4.family = 0x19;
  zen4.physical_cores = 2;
  zen4.clock_hz = 2.6e9;
  auto z = rooftop::hwdb::host_cpu_chip(zen4);
  CHECK(*z.peak("fp32") == Approx(166.4e9));  // 2 x 16 x 1 x 2 x 2.6e9 = 2 x 8 x 2 x 2 x 2.6e9

  HostCpuInfo desktop;
  desktop.physical_cores = 8;
  desktop.clock_hz = 4.0e9;
  desktop.memory_bytes = 32e9;
  desktop.isa = {"avx", "avx2", "fma"};
  auto d = rooftop::hwdb::host_cpu_chip(desktop);
  CHECK(*d.peak("fp32") == Approx(1.024e12));  // 8 x 8 x 2 x 2 x 4e9
  CHECK(!d.peak("bf16"));
  CHECK(!d.peak("int8"));
  CHECK(d.memory_bandwidth_bytes_per_s == Approx(100e9));  // 160e9 capped
}
