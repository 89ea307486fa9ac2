// Serving several sequences through the engine: BatchRunner joins the shared scheduler (base/scheduler.h) to
// Forward (decode_batch when every slice is one token, else one mixed step) and a sampler per request. bench-serve
// drives it from the same ArrivalClock the simulator uses, on the wall clock; `rooftop serve` from HTTP requests.
#pragma once
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "base/scheduler.h"
#include "engine/forward.h"
#include "engine/model.h"
#include "engine/sampler.h"
#include "kernels/cpu/thread_pool.h"

namespace rooftop::engine {

struct RunnerLimits {
  int64_t max_seqs = 16;       // sequences in a step, and KV slots allocated
  int64_t token_budget = 512;  // tokens in a step
  int64_t block_tokens = 16;   // KV page size of the scheduler's booking
  int64_t capacity = 1024;     // positions per slot: prompt + output of one request at most
};

// One step as the engine ran it: each slice's (new tokens, context before), the forward pass's wall time, and the
// whole step's (scheduling and sampling included). bench-serve prices the same steps with the analyzer.
struct StepTiming {
  std::vector<std::pair<int64_t, int64_t>> slices;
  double forward_s = 0, step_s = 0;
};

class BatchRunner {
 public:
  // The KV cache is max_seqs slots of `capacity` positions (fp32), allocated here; the scheduler's page budget
  // is every slot grown to its capacity in whole pages, so it admits at most max_seqs sequences and never preempts.
  BatchRunner(const LlamaModel& model, kernels::ThreadPool& pool, const RunnerLimits& limits);

  // A request joins the queue. InputError when prompt + max_output exceeds the capacity, or a token id is outside
  // the vocabulary.
  void add(size_t id, std::vector<int32_t> prompt, int64_t max_output, const SamplerConfig& sampler = {});
  // Drops a request wherever it is (a client left, or it produced a stop token) and frees its slot.
  void cancel(size_t id);

  struct Token {
    size_t id = 0;
    int32_t token = 0;
    bool first = false, finished = false;  // finished: its max_output-th token (it has left the runner)
  };
  // One step of continuous batching; empty when nothing waits or runs.
  std::vector<Token> step();
  bool idle() const { return sched_.idle(); }

  int64_t steps() const { return steps_; }
  int64_t mixed_steps() const { return mixed_steps_; }
  int64_t preemptions() const { return sched_.preemptions(); }
  double mean_batch() const { return steps_ > 0 ? batch_sum_ / double(steps_) : 0; }
  double kv_bytes() const { return kv_bytes_; }
  size_t in_flight() const { return requests_.size(); }
  // Keep a StepTiming of every step from now on (bench-serve; a server would grow it without bound).
  void record_steps() { record_ = true; }
  const std::vector<StepTiming>& step_log() const { return log_; }

 private:
  struct Request {
    std::vector<int32_t> tokens;  // prompt, then what it generated
    int64_t slot = -1;
    std::unique_ptr<Sampler> sampler;
  };
  void release(size_t id);

  const LlamaModel& model_;
  kernels::ThreadPool& pool_;
  RunnerLimits limits_;
  Forward fwd_;
  double kv_bytes_ = 0;
  Scheduler sched_;
  std::unordered_map<size_t, Request> requests_;
  std::vector<int64_t> free_slots_;
  int64_t steps_ = 0, mixed_steps_ = 0;
  double batch_sum_ = 0;
  bool record_ = false;
  std::vector<StepTiming> log_;
};

struct ServeLoadOptions {
  RunnerLimits limits;
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
  std::vector<StepTiming> step_log;  // every step, in order
};

// Serves `requests` (prompts of random token ids, greedy decoding for exactly `output` tokens: end-of-sequence
// is ignored, as load generators do), arriving on the wall clock. The slots hold the longest request (the
// limits' capacity is set to it). Throws InputError for requests longer than the model's context.
ServeLoadResult serve_load(const LlamaModel& model, kernels::ThreadPool& pool, const std::vector<ServingRequest>& requests,
                           const ServeLoadOptions& o);

}  // namespace rooftop::engine
