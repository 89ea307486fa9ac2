// Timing a callable: warm-up, then repeated samples on the monotonic clock, each long enough to read.
#pragma once
#include <functional>

#include "measure/stats.h"

namespace rooftop::measure {

struct TimerOptions {
  int warmup = 1;              // untimed calls first (touch caches, page in buffers, spin up threads)
  int repetitions = 5;         // timed samples
  double min_sample_s = 2e-3;  // a sample repeats the call until it lasts at least this long
};

// Seconds per call of fn: `repetitions` samples after `warmup` calls, summarized.
Stats time_per_call(const std::function<void()>& fn, const TimerOptions& opt);

// Seconds since an arbitrary fixed point (std::chrono::steady_clock).
double now_s();

}  // namespace rooftop::measure
