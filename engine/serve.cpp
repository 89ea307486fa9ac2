// bench-serve's loop: arrivals on the wall clock, the shared scheduler, the engine's batched steps.
#include "engine/serve.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

#include "base/errors.h"
#include "engine/forward.h"

namespace rooftop::engine {

ServeLoadResult serve_load(const LlamaModel& model, kernels::ThreadPool& pool, const std::vector<ServingRequest>& requests,
                           const ServeLoadOptions& o) {
  const LlamaConfig& c = model.cfg;
  if (o.max_seqs < 1) throw InputError("--max-seqs must be >= 1");
  ServeLoadResult res;
  for (const auto& r : requests) {
    if (r.prompt < 1 || r.output < 1) throw InputError("every request needs a prompt and an output of at least 1 token");
    res.kv_capacity = std::max(res.kv_capacity, r.prompt + r.output);
  }
  if (res.kv_capacity > c.context)
    throw InputError("a request of " + std::to_string(res.kv_capacity) + " tokens exceeds the model's context of " +
                     std::to_string(c.context) + " tokens");
  Forward fwd(model, res.kv_capacity, pool, o.max_seqs);
  res.kv_bytes = c.kv_cache_bytes(res.kv_capacity) * static_cast<double>(o.max_seqs);
  // The scheduler books pages of the slots' cache: a sequence's footprint is its pages' share of one slot.
  const double per_token = c.kv_cache_bytes(res.kv_capacity) / static_cast<double>(res.kv_capacity);
  const int64_t block = o.block_tokens;
  Scheduler sched({o.max_seqs, o.token_budget, block, res.kv_bytes},
                  [per_token, block](int64_t tokens) { return static_cast<double>((tokens + block - 1) / block * block) * per_token; });

  // Each request's tokens: its prompt (random ids, seeded), then what it generates.
  std::mt19937_64 gen(o.seed);
  std::uniform_int_distribution<int32_t> id(0, int32_t(c.vocab - 1));
  std::vector<std::vector<int32_t>> tokens(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    tokens[i].resize(size_t(requests[i].prompt));
    for (auto& t : tokens[i]) t = id(gen);
    tokens[i].reserve(size_t(requests[i].prompt + requests[i].output));
  }
  std::vector<int64_t> slot_of(requests.size(), -1), free_slots;
  for (int64_t s = o.max_seqs - 1; s >= 0; --s) free_slots.push_back(s);
  auto release = [&](size_t rid) {
    fwd.reset(slot_of[rid]);
    free_slots.push_back(slot_of[rid]);
    slot_of[rid] = -1;
  };

  ArrivalClock clock(requests, o.concurrency);
  res.ttft_s.assign(requests.size(), -1);
  res.e2e_s.assign(requests.size(), -1);
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  double batch_sum = 0;
  size_t finished = 0;
  std::vector<SeqTokens> slices;
  std::vector<int32_t> decode_tokens;
  std::vector<int64_t> decode_seqs;
  while (finished < requests.size()) {
    for (size_t rid : clock.arrived_by(elapsed())) sched.arrive(rid, requests[rid].prompt, requests[rid].output);
    if (sched.idle()) {  // sleep until the next arrival
      const auto at = clock.next_arrival();
      if (!at) throw InternalError("bench-serve: no request left to arrive while " + std::to_string(requests.size() - finished) + " are unfinished");
      const double wait = *at - elapsed();
      if (wait > 0) std::this_thread::sleep_for(std::chrono::duration<double>(wait));
      continue;
    }
    const std::vector<ScheduledSlice> plan = sched.plan();
    for (size_t rid : sched.preempted()) release(rid);
    slices.clear();
    bool decodes_only = true;
    for (const ScheduledSlice& s : plan) {
      if (s.restart) {
        if (slot_of[s.id] >= 0) throw InternalError("bench-serve: a restarted sequence still holds a slot");
        if (free_slots.empty()) throw InternalError("bench-serve: more sequences than slots");
        slot_of[s.id] = free_slots.back();
        free_slots.pop_back();
      }
      const auto& t = tokens[s.id];
      if (s.context_before + s.new_tokens > int64_t(t.size()))
        throw InternalError("bench-serve: a slice past the sequence's tokens");
      slices.push_back({slot_of[s.id], std::span<const int32_t>(t).subspan(size_t(s.context_before), size_t(s.new_tokens))});
      decodes_only = decodes_only && s.new_tokens == 1;
    }
    std::span<const float> logits;
    if (decodes_only) {
      decode_tokens.clear();
      decode_seqs.clear();
      for (const auto& s : slices) {
        decode_tokens.push_back(s.tokens[0]);
        decode_seqs.push_back(s.seq);
      }
      logits = fwd.decode_batch(decode_tokens, decode_seqs);
    } else {
      logits = fwd.step(slices);
      ++res.mixed_steps;
    }
    // Greedy: each slice's row, kept for the sequences the step gives a token to.
    std::vector<int32_t> next(plan.size());
    for (size_t i = 0; i < plan.size(); ++i) {
      const float* row = logits.data() + i * size_t(c.vocab);
      next[i] = int32_t(std::max_element(row, row + c.vocab) - row);
    }
    const double now = elapsed();
    ++res.steps;
    batch_sum += static_cast<double>(plan.size());
    for (const StepOutput& out : sched.finish_step()) {
      size_t i = 0;
      while (plan[i].id != out.id) ++i;
      tokens[out.id].push_back(next[i]);
      if (out.first) res.ttft_s[out.id] = now - clock.arrival(out.id);
      if (!out.finished) continue;
      res.e2e_s[out.id] = now - clock.arrival(out.id);
      release(out.id);
      ++finished;
      clock.completed(now);
    }
  }
  res.duration_s = elapsed() - clock.first_arrival();
  res.preemptions = sched.preemptions();
  res.mean_batch = res.steps > 0 ? batch_sum / static_cast<double>(res.steps) : 0;
  return res;
}

}  // namespace rooftop::engine
