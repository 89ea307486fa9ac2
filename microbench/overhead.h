// Fixed costs of a decode step that do not scale with weight bytes: thread barriers and small ops.
#pragma once
#include "microbench/stats.h"
#include "microbench/timer.h"

namespace rooftop::kernels {
class ThreadPool;
}

namespace rooftop::microbench {

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
};

OverheadResult measure_overhead(kernels::ThreadPool& pool, const TimerOptions& opt);

}  // namespace rooftop::microbench
