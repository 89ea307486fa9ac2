// Serving: a continuous-batching scheduler run on the analyzer's step costs (rooftop simulate). Requests
// arrive (Poisson, a closed loop of N clients, or a trace); each step batches every running sequence's next
// slice (a prefill chunk or one decode token) within a token budget; KV memory is paged with a capacity, and
// a sequence that cannot grow preempts the newest (recompute); the step's time is the analyzer's cost of
// that mixed batch.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analyzer/chip_spec.h"
#include "analyzer/memory.h"
#include "analyzer/runtime.h"
#include "analyzer/speed.h"
#include "analyzer/work.h"
#include "base/scheduler.h"

namespace rooftop {

// One running sequence's part of a step: new tokens after `context_before` cached ones.
struct StepSlice {
  int64_t new_tokens = 1;
  int64_t context_before = 0;
};

// The analyzer's price of a mixed step: the weights are read once for all the step's tokens; each slice
// attends over its own cache (cache_work); the runtime profile's terms turn bytes and FLOPs into seconds, or,
// for the `rooftop` runtime on a calibrated chip, this machine's measured kernel rates (CalibratedPricer).
class StepCost {
 public:
  // pp > 1: a step of one micro-batch through pp pipeline stages (layers split), each of tp devices.
  StepCost(const ModelSpec& m, const ChipSpec& chip, const PrecisionPlan& p, const RuntimeProfile& profile, int64_t tp,
           int64_t pp = 1);
  double seconds(const std::vector<StepSlice>& slices) const;
  // The server's delay of a request's tokens outside the steps with `streams` requests in flight (ServedDelay).
  double served_delay_s(double streams) const { return served_.at(streams); }

 private:
  ModelSpec m_;
  ChipSpec chip_;
  PrecisionPlan p_;
  RuntimeRates rates_;
  int64_t tp_ = 1, pp_ = 1;
  double moe_expert_fraction_ = 1;
  ServedDelay served_;
  std::optional<CalibratedPricer> calibrated_;  // the `rooftop` runtime on a calibrated chip
  mutable std::unordered_map<int64_t, PassWork> weights_work_;  // by tokens in the step
  mutable std::unordered_map<uint64_t, std::vector<OpCost>> slice_work_;  // a slice's cache operations, by (new tokens, context)
};

struct SchedulerPolicy {
  int64_t max_seqs = 256;         // sequences in one step (vLLM's max_num_seqs)
  int64_t token_budget = 8192;    // tokens in one step, decodes and prefill chunks together (max_num_batched_tokens)
  int64_t block_tokens = 16;      // KV page size
  double kv_budget_bytes = 0;     // per device: what the pages may use
  double kv_fraction = 1;         // of a sequence's KV bytes one device holds (tp split)
  double state_fraction = 1;      // of a sequence's recurrent state one device holds
  SchedulerLimits limits() const;
};

// Bytes per device a sequence with `tokens` cached tokens holds under the policy: whole pages of KV (windows
// applied, the tp share) and its recurrent state.
std::function<double(int64_t)> kv_footprint(const ModelSpec& m, const PrecisionPlan& p, const SchedulerPolicy& pol);


// The scheduler's limits on a chip: max_seqs and token_budget (0: the runtime's serving_limits on this chip), and the KV pages the runtime's
// memory_fraction of each device leaves after the weights and a full step's activations (fit's tp/pp shares).
SchedulerPolicy serving_policy(const ModelSpec& m, const ChipSpec& chip, const PrecisionPlan& p, const RuntimeProfile& profile,
                               int64_t tp, int64_t max_seqs, int64_t token_budget, int64_t block_tokens, int64_t pp = 1);

struct SimulationOptions {
  int64_t concurrency = 0;        // > 0: a closed loop of this many clients (arrival times ignored)
  double slo_ttft_s = 0;          // 0: no target
  double slo_tpot_s = 0;
  size_t timeline_points = 400;   // KV occupancy samples kept
};

struct Percentiles {
  double p50 = 0, p90 = 0, p99 = 0, mean = 0;
};

struct SimulationResult {
  size_t requests = 0;
  double duration_s = 0;               // first arrival to last completion
  double output_tokens = 0, prompt_tokens = 0;
  Percentiles ttft_s, tpot_s, e2e_s;
  double requests_per_s = 0, output_tokens_per_s = 0;
  double goodput_requests_per_s = 0;   // requests meeting both SLOs, per second
  double slo_attained = 0;             // their fraction
  int64_t preemptions = 0, steps = 0;
  int64_t prefix_hit_tokens = 0;       // prompt tokens served from cached shared prefixes
  double peak_kv_fraction = 0, mean_kv_fraction = 0;  // of the KV budget, time-weighted mean
  double mean_batch = 0;               // sequences per step
  std::vector<std::pair<double, double>> kv_timeline;  // (seconds, fraction of the KV budget)
  std::vector<double> ttft_each_s, e2e_each_s;          // per request, in request order
};

// Percentiles, throughput and goodput of a served load from each request's TTFT and end-to-end latency
// (seconds from its arrival), over `duration_s` from the first arrival to the last completion.
SimulationResult summarize_serving(const std::vector<ServingRequest>& requests, const std::vector<double>& ttft,
                                   const std::vector<double>& done, double duration_s, double slo_ttft_s, double slo_tpot_s);

// Runs requests (sorted by arrival) to completion. Throws InputError when one request cannot fit at all.
SimulationResult simulate(const ModelSpec& m, const PrecisionPlan& p, const std::vector<ServingRequest>& requests,
                          const SchedulerPolicy& policy, const StepCost& cost, const SimulationOptions& o);

}  // namespace rooftop
