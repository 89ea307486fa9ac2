// OpenBLAS, the reference fp32 GEMM, loaded only when a measurement asks for it. Linked into the binary, its
// thread pool starts when the program loads, and its threads spin (sched_yield) for a while after the start and
// after every call, taking a core from the engine's own pool: a 64-token SmolLM2 prefill in `rooftop run` took
// 58-80 ms beside them and 36-37 ms without (2026-12-04, docs/serving.md).
#pragma once

namespace rooftop::measure {

class OpenBlas {
 public:
  // Y (n, m) = X (n, k) W (m, k)^T, row-major fp32, on `threads` threads.
  void sgemm_xwt(int threads, int n, int m, int k, const float* X, const float* W, float* Y) const;

 private:
  friend const OpenBlas* openblas();
  using Sgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
  using SetThreads = void (*)(int);
  Sgemm sgemm_ = nullptr;
  SetThreads set_threads_ = nullptr;
};

// The library, loaded on the first call (libopenblas.so.0, as Debian installs it); nullptr when it is not installed.
const OpenBlas* openblas();

}  // namespace rooftop::measure
