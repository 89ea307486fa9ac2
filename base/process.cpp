// resident_memory: the VmRSS and VmHWM lines of /proc/self/status ("VmRSS:   123456 kB").
#include "base/process.h"

#include <fstream>
#include <sstream>
#include <string>

namespace rooftop {

std::optional<ResidentMemory> resident_memory() {
  std::ifstream in("/proc/self/status");
  ResidentMemory r;
  bool rss = false, hwm = false;
  for (std::string line; std::getline(in, line);) {
    std::istringstream s(line);
    std::string key, unit;
    double kib = 0;
    if (!(s >> key >> kib >> unit) || unit != "kB") continue;
    if (key == "VmRSS:") r.current_bytes = kib * 1024, rss = true;
    if (key == "VmHWM:") r.peak_bytes = kib * 1024, hwm = true;
  }
  if (!rss || !hwm) return std::nullopt;
  return r;
}

}  // namespace rooftop
