// Shared pieces of the suites: the thread pools, counters in bytes/s and FLOP/s, repetition policy.
#pragma once
#include <benchmark/benchmark.h>

#include <cstdint>

#include "kernels/cpu/thread_pool.h"

namespace rooftop::bench {

// All logical CPUs (created once), and a one-thread pool.
kernels::ThreadPool& all_threads();
kernels::ThreadPool& one_thread();

// bytes_per_second (SetBytesProcessed) and FLOP/s (a rate counter) for `iterations` calls.
inline void set_counters(benchmark::State& state, double bytes_per_call, double flops_per_call) {
  if (bytes_per_call > 0)
    state.SetBytesProcessed(static_cast<int64_t>(bytes_per_call * static_cast<double>(state.iterations())));
  if (flops_per_call > 0)
    state.counters["FLOP/s"] = benchmark::Counter(flops_per_call * static_cast<double>(state.iterations()),
                                                  benchmark::Counter::kIsRate);
}

// Wall-clock time (the work runs on pool threads), 5 repetitions reported as mean/median/stddev/cv.
inline benchmark::internal::Benchmark* standard(benchmark::internal::Benchmark* b) {
  return b->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true)->Unit(benchmark::kMillisecond);
}

}  // namespace rooftop::bench
