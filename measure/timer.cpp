// time_per_call: calibrate the calls per sample from one timed call, then take the samples.
#include "measure/timer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

namespace rooftop::measure {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Stats time_per_call(const std::function<void()>& fn, const TimerOptions& opt) {
  for (int i = 0; i < std::max(0, opt.warmup); ++i) fn();
  double t0 = now_s();
  fn();
  double one_call_s = std::max(now_s() - t0, 1e-9);
  const int calls = static_cast<int>(std::clamp(std::ceil(opt.min_sample_s / one_call_s), 1.0, 1e6));
  std::vector<double> samples;
  for (int r = 0; r < std::max(1, opt.repetitions); ++r) {
    const double start = now_s();
    for (int c = 0; c < calls; ++c) fn();
    samples.push_back(std::max(now_s() - start, 1e-12) / calls);
  }
  return summarize(std::move(samples));
}

}  // namespace rooftop::measure
