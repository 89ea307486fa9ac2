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
  hwdb::HostCpuInfo info;
  info.model_name = std::move(model_name);
  info.vendor = std::move(vendor);
  info.family = family;
  info.physical_cores = cores;
  info.logical_cpus = logical;
  info.clock_hz = clock_hz;
  info.memory_bytes = memory_bytes;
  info.isa = std::move(isa);
  return info;
}

}  // namespace rooftop::test
