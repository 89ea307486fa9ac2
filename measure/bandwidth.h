// Memory bandwidth: STREAM-style copy/scale/add/triad/read-only, and the working-set sweep.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "measure/stats.h"
#include "measure/timer.h"

namespace rooftop::kernels {
class ThreadPool;
}

namespace rooftop::measure {

// One bandwidth figure: bytes moved per call / seconds per call (median), with the timing spread.
struct BandwidthResult {
  std::string name;             // "copy", "scale", "add", "triad", "read"
  int threads = 1;
  double bytes_per_call = 0;    // STREAM counting: bytes read + bytes written (no write-allocate)
  double bytes_per_s = 0;       // bytes_per_call / seconds.median
  double best_bytes_per_s = 0;  // bytes_per_call / seconds.min
  Stats seconds;
};

struct StreamResult {
  int threads = 1;
  int64_t array_bytes = 0;      // per array
  std::vector<BandwidthResult> kernels;  // copy, scale, add, triad, read
  const BandwidthResult& get(const std::string& name) const;  // throws std::out_of_range
};

// STREAM kernels over three arrays of array_bytes each, split across pool (all its threads). read_only: the read
// kernel alone over one array (a calibration refresh needs only the memory roof: a third of the allocation and a
// fifth of the traffic; 18 s -> 3 s of a 2-core VM's refresh).
StreamResult measure_stream(kernels::ThreadPool& pool, int64_t array_bytes, const TimerOptions& opt, bool read_only = false);

// One point of the working-set sweep: read-only bandwidth with ws bytes split across the threads.
struct SweepPoint {
  int64_t working_set_bytes = 0;
  double bytes_per_s = 0;
  Stats seconds;
};

// Working sets from min_bytes to max_bytes, multiplying by `step` (2 = every power of two).
std::vector<int64_t> sweep_sizes(int64_t min_bytes, int64_t max_bytes, double step);
// Read-only sweep on all threads of pool; each sample reads at least bytes_per_sample bytes.
std::vector<SweepPoint> measure_sweep(kernels::ThreadPool& pool, const std::vector<int64_t>& sizes,
                                      double bytes_per_sample, const TimerOptions& opt);

}  // namespace rooftop::measure
