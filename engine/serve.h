// Serving a load through the engine on the wall clock (rooftop bench-serve): the scheduler of base/scheduler.h
// decides each step, Forward runs it (decode_batch when every slice is one token, else one mixed step), and
// requests arrive in real time from the same ArrivalClock the simulator uses.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "base/scheduler.h"
#include "engine/model.h"
#include "kernels/cpu/thread_pool.h"

namespace rooftop::engine {

struct ServeLoadOptions {
  int64_t max_seqs = 16;       // sequences in a step, and KV slots allocated
  int64_t token_budget = 512;  // tokens in a step
  int64_t block_tokens = 16;   // KV page size of the scheduler's booking
  int64_t concurrency = 0;     // > 0: a closed loop of this many clients
  uint64_t seed = 1;           // of the prompts' random token ids
};

struct ServeLoadResult {
  std::vector<double> ttft_s, e2e_s;  // per request, from its arrival
  double duration_s = 0;             // first arrival to last completion
  int64_t steps = 0, mixed_steps = 0, preemptions = 0;
  double mean_batch = 0;             // sequences per step
  int64_t kv_capacity = 0;           // positions per slot
  double kv_bytes = 0;               // the slots' KV cache (fp32)
};

// Serves `requests` (prompts of random token ids, greedy decoding for exactly `output` tokens: end-of-sequence
// is ignored, as load generators do). The KV cache is max_seqs slots of the longest request's positions, so the
// scheduler's page budget is that whole cache and it never preempts. Throws InputError for requests longer than
// the model's context.
ServeLoadResult serve_load(const LlamaModel& model, kernels::ThreadPool& pool, const std::vector<ServingRequest>& requests,
                           const ServeLoadOptions& o);

}  // namespace rooftop::engine
