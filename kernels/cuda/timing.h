// Kernel timing with CUDA events: warm-up, then repeated samples of `inner` launches each; median and spread.
#pragma once
#include <cuda_runtime.h>

#include <functional>
#include <vector>

namespace rooftop::cuda {

struct Timing {
  std::vector<double> samples_s;  // seconds per launch, one per sample
  double median_s = 0;
  double spread = 0;              // (max - min) / median
};

// Runs launch() warmup times, then `samples` times `inner` launches between two events.
Timing time_launches(const std::function<void()>& launch, int warmup, int samples, int inner, cudaStream_t s);

}  // namespace rooftop::cuda
