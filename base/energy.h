// CPU package energy from Linux's RAPL counters (/sys/class/powercap/intel-rapl:N/energy_uj), to price a
// prefill token and a decode token in joules on this machine. Absent counters are said, not guessed.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rooftop {

struct EnergyReading {
  std::vector<uint64_t> microjoules;  // one per package domain
};

class EnergyMeter {
 public:
  // The package domains under $ROOFTOP_POWERCAP_DIR (tests), else /sys/class/powercap; nullopt with `why` set when
  // there are none readable (no RAPL, a VM, no permission).
  static std::optional<EnergyMeter> open(std::string* why);
  EnergyReading read() const;
  // Joules between two readings; a counter that wrapped adds its range (max_energy_range_uj).
  double joules(const EnergyReading& before, const EnergyReading& after) const;
  std::string describe() const;  // "RAPL, 2 packages"

 private:
  std::vector<std::string> files_;
  std::vector<uint64_t> ranges_;
};

}  // namespace rooftop
