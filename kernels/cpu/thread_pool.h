// ThreadPool: a fixed set of workers that split a range [0, n) into contiguous chunks.
#pragma once
#include <cstdint>
#include <functional>

namespace rooftop::kernels {

class ThreadPool {
 public:
  explicit ThreadPool(int threads = 0);  // 0 = hardware concurrency
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  int size() const;
  // Calls fn(begin, end, worker) on disjoint chunks covering [0, n); the caller's thread takes part.
  // Returns when every chunk is done. Threads claim chunks as they finish, so more chunks balance uneven
  // progress better: chunks_per_thread (default 4; at most n chunks in all).
  void parallel_for(int64_t n, const std::function<void(int64_t, int64_t, int)>& fn, int64_t chunks_per_thread = 4);
  // True on a thread running a parallel_for chunk: a parallel_for called there runs inline, on this thread alone.
  static bool in_parallel_region();

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace rooftop::kernels
