// Fixed costs of a decode step that do not scale with weight bytes: thread barriers and small ops.
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

// What a GEMV region pays to start streaming a matrix from DRAM, beyond its bytes at the streaming rate: a
// decode step's matrices are separate allocations of 0.2-10 MB, each one parallel region, and each region's
// threads start cold (DRAM latency before the prefetchers ramp up, a page walk per new page). Measured as a
// chain of separately allocated m x k matrices (cycled past 4x the LLC, one gemv region each) against 32 MiB
// matrices of the same width streamed back to back, the two sampled in turn: per-region excess
// = chain seconds per matrix - matrix bytes / streaming rate (median over rounds, then over shapes).
// This VM: 3.5-7.5 µs per region whatever the format (q8_0, f32, f16, q4_1 at 0.2-3.7 MB).
struct RegionStartResult {
  double per_region_s = 0;  // >= 0 (a negative median excess is recorded as 0)
  struct Shape {
    std::string format;
    int64_t m = 0, k = 0;
    double chain_bytes_per_s = 0, stream_bytes_per_s = 0;  // medians over rounds
    double excess_s = 0;                                   // median over rounds
  };
  std::vector<Shape> shapes;
};
// `quick`: one shape (q8_0 1536 x 576) and 7 rounds; else three shapes and 11 rounds. Rounds last ~40 ms. dram_bytes:
// a working set that reads from DRAM (calibrate: 4x the cache-resident size), the chain of matrices cycled through.
RegionStartResult measure_region_start(kernels::ThreadPool& pool, double dram_bytes, bool quick);

struct OverheadResult {
  // One Llama-3.1-8B-sized layer without its matrices: 10 ThreadPool barriers with negligible work,
  // 2 RMSNorms (4096), RoPE on q (32 x 128) and k (8 x 128), SwiGLU (14336), 2 residual adds (4096).
  double per_layer_s = 0;
  Stats layer_seconds;
  // The same layer split in two: its 5 barriers alone (workers spin ~100 µs between jobs, so a barrier
  // is ~0.25 µs), and its small ops alone per value they touch (4 x hidden + (heads + kv_heads) x head_dim
  // + FFN = 35,840 values at this shape), so the analyzer prices any model's small ops, for every token.
  double sync_per_layer_s = 0;
  Stats sync_seconds;
  double per_value_s = 0;
  Stats small_ops_seconds;
  // Once per step: embedding row copy (4096), final RMSNorm (4096), argmax over 128256 logits, 1 barrier.
  double per_step_s = 0;
  Stats step_seconds;
  RegionStartResult region_start;  // filled by measure_region_start (a step of its own in calibrate)
  // Prefill attention's fixed work per (token, head) row, fitted by calibrate from two prompt lengths; 0: none.
  double attention_row_s = 0;
};

OverheadResult measure_overhead(kernels::ThreadPool& pool, const TimerOptions& opt);

}  // namespace rooftop::measure
