// The continuous-batching scheduler, one for both clocks: `rooftop simulate` prices each step with the
// analyzer's cost; `rooftop bench-serve` runs each step through the engine and reads the wall clock. It holds no
// clock and no model: it decides which sequence feeds how many tokens in the next step, books KV pages, and
// preempts.
//
// Policies (each stated by describe_policy()):
// - FCFS: waiting requests are admitted in arrival order; a preempted sequence goes back to the front.
// - A token budget per step, decodes and prefill chunks together (vLLM's max_num_batched_tokens), and at most
//   max_seqs sequences in a step (max_num_seqs). Running sequences are served first, in admission order; a
//   prompt longer than what the budget leaves is cut into chunks (chunked prefill, mixed with the decodes).
// - Paged KV: a sequence holds whole pages of block_tokens tokens, booked as it grows, within a byte budget.
//   A sequence that cannot grow preempts the newest running sequence (itself when it is the newest), which
//   drops its cache and later recomputes its prompt and every token it generated (vLLM's recompute mode).
// - No admissions in a step that had to preempt; a sequence is admitted only with pages for its whole prompt
//   (or recompute) booked, so its later chunks never preempt the sequences decoding beside it.
// - A prefilled request (disaggregated decode) is admitted with pages for its prompt and the KV it brought,
//   and decodes from its first step.
// - Prefix caching (requests that state a prefix_id): once a sequence has prefilled its prefix, the prefix's
//   whole pages stay cached, shared by every later request with that id, which skips them (at least its last
//   prompt token is always fed). A cached prefix no sequence uses is evicted, least recently used first, when
//   pages run out.
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace rooftop {

struct ServingRequest {
  double arrival_s = 0;
  int64_t prompt = 0;  // prompt tokens
  int64_t output = 0;  // tokens to generate (>= 1)
  // A shared prompt prefix (a system prompt, a document): requests with the same prefix_id start with the same
  // prefix_tokens tokens (-1: none).
  int64_t prefix_id = -1;
  int64_t prefix_tokens = 0;
  // Its prompt's KV cache arrives with it, and its first token was produced elsewhere (the decode pool of a
  // disaggregated deployment): it only decodes, output - 1 tokens. Preempted, it recomputes as usual.
  bool prefilled = false;
};

// Poisson arrivals at `rate` per second with fixed lengths, from a seeded generator (deterministic).
std::vector<ServingRequest> poisson_requests(int64_t n, double rate, int64_t prompt, int64_t output, uint64_t seed);

// When requests arrive: at their arrival_s (an open load), or from a closed loop of `concurrency` clients that
// each send their next request (in request order) when one of theirs completes. Shared by simulate (analyzer
// clock) and bench-serve (wall clock).
class ArrivalClock {
 public:
  ArrivalClock(const std::vector<ServingRequest>& requests, int64_t concurrency);
  std::vector<size_t> arrived_by(double now);  // ids arrived at or before `now` not yet returned, by arrival
  std::optional<double> next_arrival() const;  // none: every request arrived, or the rest wait on completions
  void completed(double now);                  // a request completed at `now`
  double arrival(size_t id) const { return arrival_[id]; }
  double first_arrival() const;

 private:
  std::vector<double> arrival_;  // -1: not yet released (closed loop)
  std::vector<size_t> order_;
  size_t next_ = 0, completed_ = 0;
  bool closed_ = false;
  int64_t concurrency_ = 0;
};

struct SchedulerLimits {
  int64_t max_seqs = 256;        // sequences in one step
  int64_t token_budget = 8192;   // tokens in one step
  int64_t block_tokens = 16;     // KV page size
  double kv_budget_bytes = 0;    // what the pages may use
};

// One sequence's part of a step: new_tokens of its token list (prompt, then what it generated) from position
// context_before on. restart: the first slice after admission or preemption (the cache starts empty).
struct ScheduledSlice {
  size_t id = 0;
  int64_t new_tokens = 1;
  int64_t context_before = 0;
  bool restart = false;
};

// A token the step produced for request `id` (its first: TTFT; its last: the request is done).
struct StepOutput {
  size_t id = 0;
  bool first = false;
  bool finished = false;
};

class Scheduler {
 public:
  // footprint(tokens): bytes a sequence with `tokens` cached tokens holds (whole pages and any recurrent state).
  Scheduler(const SchedulerLimits& limits, std::function<double(int64_t)> footprint);

  // A request joins the waiting queue (FCFS). prompt, output >= 1. Throws InputError when it cannot fit
  // even alone.
  void arrive(size_t id, int64_t prompt, int64_t output, int64_t prefix_id = -1, int64_t prefix_tokens = 0,
              bool prefilled = false);
  // The next step's slices, running sequences first; empty when nothing runs or waits. Sequences preempted
  // while planning are in preempted() (their caches must be dropped before the step runs).
  std::vector<ScheduledSlice> plan();
  const std::vector<size_t>& preempted() const { return preempted_; }
  // Removes request `id` wherever it is (a client left, or it met a stop token) and frees its pages; true when it
  // was running (its cache must be dropped). Only between steps (after finish_step).
  bool cancel(size_t id);
  // After the planned step ran: each slice that completed its prefill (or recompute), and each decode slice,
  // produced one token; finished sequences release their pages.
  std::vector<StepOutput> finish_step();

  bool idle() const { return running_.empty() && waiting_.empty(); }
  size_t running() const { return running_.size(); }
  size_t waiting() const { return waiting_.size(); }
  double used_bytes() const { return used_; }
  double kv_fraction() const { return used_ / limits_.kv_budget_bytes; }
  int64_t preemptions() const { return preemptions_; }
  int64_t prefix_hit_tokens() const { return prefix_hit_tokens_; }  // prompt tokens served from cached prefixes
  const SchedulerLimits& limits() const { return limits_; }

 private:
  struct Sequence {
    size_t id = 0;
    int64_t prompt = 0, output = 0;
    int64_t cached = 0;     // tokens whose KV is in the cache
    int64_t target = 0;     // tokens to have cached before the next token comes out
    int64_t generated = 0;  // tokens produced so far
    double held = 0;        // bytes of pages booked
    bool restart = true;
    int64_t prefix_id = -1, prefix_tokens = 0;
    int64_t shared = 0;     // leading tokens whose pages belong to the cached prefix (0: none attached)
    int64_t transferred = 0;  // prompt tokens whose KV arrives with the request (prefilled)
  };
  struct Prefix {
    int64_t tokens = 0;     // whole pages' tokens cached
    double bytes = 0;
    int64_t users = 0;      // sequences attached
    int64_t last_used = 0;  // step count
  };
  bool grow(Sequence& s, int64_t tokens);
  bool make_room(double need);  // evicts unused prefixes until `need` more bytes fit
  void detach(Sequence& s);
  double prefix_bytes(int64_t tokens) const { return footprint_(tokens) - footprint_(0); }
  void preempt(size_t index);

  SchedulerLimits limits_;
  std::function<double(int64_t)> footprint_;
  std::deque<Sequence> waiting_;
  std::vector<Sequence> running_;
  std::vector<std::pair<size_t, int64_t>> planned_;  // (index in running_, new tokens) of the last plan()
  std::vector<size_t> preempted_;
  std::unordered_map<int64_t, Prefix> prefixes_;
  double used_ = 0;
  int64_t preemptions_ = 0, steps_ = 0, prefix_hit_tokens_ = 0;
};

}  // namespace rooftop
