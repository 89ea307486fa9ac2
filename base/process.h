// This process's resident memory, from /proc/self/status (Linux).
#pragma once
#include <optional>

namespace rooftop {

struct ResidentMemory {
  double current_bytes = 0;  // VmRSS: pages resident now (anonymous and file-backed, mmapped weights included)
  double peak_bytes = 0;     // VmHWM: the most resident at once so far
};

// nullopt where /proc/self/status cannot be read or lacks the two lines.
std::optional<ResidentMemory> resident_memory();

}  // namespace rooftop
