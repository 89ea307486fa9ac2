// The host CPU: what /proc, sysfs and CPUID say about it, and its figures as a ChipSpec.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/chip_spec.h"

namespace rooftop::hwdb {

// Raw facts about the machine this process runs on. Cache sizes are as seen by cpu0 (per core for L1/L2).
struct HostCpuInfo {
  std::string model_name;          // /proc/cpuinfo "model name" (else the CPUID brand string)
  std::string vendor;              // "AuthenticAMD", "GenuineIntel", ... ("" when unknown)
  int family = 0;                  // CPUID display family (x86), 0 elsewhere
  int64_t physical_cores = 1;      // distinct (physical id, core id) pairs
  int64_t logical_cpus = 1;        // online CPUs (SMT threads included)
  double clock_hz = 0;             // max frequency from cpufreq, else /proc/cpuinfo "cpu MHz"
  std::string clock_source;        // "cpufreq max", "cpuinfo MHz" or "assumed"
  double l1d_bytes = 0, l2_bytes = 0, l3_bytes = 0;  // 0 = not reported
  double memory_bytes = 0;         // /proc/meminfo MemTotal
  std::vector<std::string> isa;    // lowercase flags: "avx2", "fma", "avx512f", "avx512_bf16", ...
};

// Reads /proc/cpuinfo, /proc/meminfo, sysfs and CPUID. Never throws; missing facts stay 0/empty.
HostCpuInfo host_cpu_info();

// The SIMD/matrix ISA extensions of this CPU that matter for kernels (CPUID on x86, checked against
// what the OS enables; /proc/cpuinfo flags elsewhere), lowercase, e.g. {"sse4_2","avx","avx2","fma",...}.
std::vector<std::string> host_isa_flags();

// The CPU as a chip (id "cpu", kind "cpu"): pure arithmetic over `info`, so tests can feed made-up machines.
// peak fp32 = cores x fp32 lanes x FMA units x 2 FLOPs x clock ("derived"); bf16 = 2x fp32 with avx512_bf16;
// int8 = VNNI lanes x 4 MACs x 2 ops per lane; with AMX, bf16 = 1,024 and int8 = 2,048 per core per clock; memory
// bandwidth "assumed" (20e9 B/s per core, capped at 100e9).
ChipSpec host_cpu_chip(const HostCpuInfo& info);

}  // namespace rooftop::hwdb
