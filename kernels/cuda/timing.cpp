// Kernel timing with CUDA events (see timing.h).
#include "kernels/cuda/timing.h"

#include <algorithm>

#include "kernels/cuda/cuda_check.h"

namespace rooftop::cuda {

Timing time_launches(const std::function<void()>& launch, int warmup, int samples, int inner, cudaStream_t s) {
  cudaEvent_t start = nullptr, stop = nullptr;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  Timing t;
  try {
    for (int i = 0; i < warmup; ++i) launch();
    CUDA_CHECK(cudaStreamSynchronize(s));
    for (int r = 0; r < samples; ++r) {
      CUDA_CHECK(cudaEventRecord(start, s));
      for (int i = 0; i < inner; ++i) launch();
      CUDA_CHECK(cudaEventRecord(stop, s));
      CUDA_CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      t.samples_s.push_back(double(ms) * 1e-3 / inner);
    }
  } catch (...) {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    throw;
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  std::vector<double> v = t.samples_s;
  std::sort(v.begin(), v.end());
  if (!v.empty()) {
    t.median_s = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
    t.spread = t.median_s > 0 ? (v.back() - v.front()) / t.median_s : 0;
  }
  return t;
}

}  // namespace rooftop::cuda
