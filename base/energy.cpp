// EnergyMeter: sums the package-level RAPL domains (intel-rapl:N, not the intel-rapl:N:M subdomains).
#include "base/energy.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace rooftop {
namespace {
std::optional<uint64_t> read_number(const std::string& path) {
  std::ifstream f(path);
  uint64_t v = 0;
  if (!(f >> v)) return std::nullopt;
  return v;
}
}  // namespace

std::optional<EnergyMeter> EnergyMeter::open(std::string* why) {
  namespace fs = std::filesystem;
  const char* env = std::getenv("ROOFTOP_POWERCAP_DIR");
  const fs::path root = env && *env ? fs::path(env) : fs::path("/sys/class/powercap");
  EnergyMeter m;
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    // Package domains: intel-rapl:0, intel-rapl:1 ... (one colon).
    if (name.rfind("intel-rapl:", 0) != 0 || name.find(':', 11) != std::string::npos) continue;
    const std::string energy = (it->path() / "energy_uj").string();
    const auto range = read_number((it->path() / "max_energy_range_uj").string());
    if (!read_number(energy) || !range || *range == 0) continue;
    m.files_.push_back(energy);
    m.ranges_.push_back(*range);
  }
  if (m.files_.empty()) {
    if (why) *why = "no readable RAPL package counters under " + root.string() + " (a virtual machine, or no permission)";
    return std::nullopt;
  }
  return m;
}

EnergyReading EnergyMeter::read() const {
  EnergyReading r;
  for (const auto& f : files_) r.microjoules.push_back(read_number(f).value_or(0));
  return r;
}

double EnergyMeter::joules(const EnergyReading& before, const EnergyReading& after) const {
  double uj = 0;
  for (size_t i = 0; i < files_.size() && i < before.microjoules.size() && i < after.microjoules.size(); ++i) {
    const uint64_t a = before.microjoules[i], b = after.microjoules[i];
    uj += static_cast<double>(b >= a ? b - a : ranges_[i] - a + b);  // wrapped once
  }
  return uj * 1e-6;
}

std::string EnergyMeter::describe() const {
  return "RAPL, " + std::to_string(files_.size()) + " package" + (files_.size() == 1 ? "" : "s");
}

}  // namespace rooftop
