// Test helper: a made-up CPU description, for tests that feed host_cpu_chip or a calibration a machine of their own.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hwdb/host_cpu.h"

namespace rooftop::test {

// A HostCpuInfo as host_cpu_info() would read it: name, vendor, CPUID family, cores (physical, logical), clock,
// memory and ISA flags; caches left unreported.
inline hwdb::HostCpuInfo cpu_info(std::string model_name, std::string vendor, int family, int64_t cores,
                                  int64_t logical, double clock_hz, double memory_bytes, std::vector<std::string> isa) {
  return {.model_name = std::move(model_name), .vendor = std::move(vendor), .family = family,
          .physical_cores = cores, .logical_cpus = logical, .clock_hz = clock_hz, .clock_source = "",
          .l1d_bytes = 0, .l2_bytes = 0, .l3_bytes = 0, .memory_bytes = memory_bytes, .isa = std::move(isa)};
}

}  // namespace rooftop::test
