// DRAM bytes a kernel really moved, from the hardware counters via CUPTI's Range Profiler.
#pragma once
#include <functional>
#include <optional>
#include <string>

namespace rooftop::cuda {

struct DramBytes {
  std::optional<double> bytes;  // dram__bytes_read.sum + dram__bytes_write.sum
  std::string note;             // why `bytes` is absent ("" when present)
};

// Profiles one call of launch() (kernel replay: the launch may run several times, so it must be
// idempotent) on the current device. Never throws: failures come back as a note.
DramBytes measure_dram_bytes(int device, const std::function<void()>& launch);

}  // namespace rooftop::cuda
