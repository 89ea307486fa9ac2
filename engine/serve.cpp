// BatchRunner: the shared scheduler's steps run by the engine; serve_load: bench-serve's arrivals on the wall clock.
#include "engine/serve.h"

#include <algorithm>
#include <functional>
#include <chrono>
#include <random>
#include <thread>

#include "base/errors.h"

namespace rooftop::engine {

namespace {
// A sequence's pages: its share of one slot, in whole pages of block tokens.
std::function<double(int64_t)> slot_footprint(const LlamaConfig& c, const RunnerLimits& l) {
  const double per_token = c.kv_cache_bytes(l.capacity) / double(l.capacity);
  const int64_t block = l.block_tokens;
  return [per_token, block](int64_t tokens) { return double((tokens + block - 1) / block * block) * per_token; };
}
// The page budget: every slot grown to its capacity (in whole pages), so the scheduler never preempts.
SchedulerLimits scheduler_limits(const LlamaConfig& c, const RunnerLimits& l) {
  if (l.max_seqs < 1 || l.capacity < 1 || l.block_tokens < 1) throw InputError("the server needs at least 1 sequence slot of at least 1 position");
  if (l.capacity > c.context)
    throw InputError("a request of " + std::to_string(l.capacity) + " tokens exceeds the model's context of " +
                     std::to_string(c.context) + " tokens");
  return {l.max_seqs, l.token_budget, l.block_tokens, slot_footprint(c, l)(l.capacity) * double(l.max_seqs)};
}
}  // namespace

BatchRunner::BatchRunner(const LlamaModel& model, kernels::ThreadPool& pool, const RunnerLimits& limits)
    : model_(model), pool_(pool), limits_(limits), fwd_(model, limits.capacity, pool, limits.max_seqs),
      kv_bytes_(model.cfg.kv_cache_bytes(limits.capacity) * double(limits.max_seqs)),
      sched_(scheduler_limits(model.cfg, limits), slot_footprint(model.cfg, limits)) {
  for (int64_t s = limits.max_seqs - 1; s >= 0; --s) free_slots_.push_back(s);
}

void BatchRunner::add(size_t id, std::vector<int32_t> prompt, int64_t max_output, const SamplerConfig& sampler) {
  const int64_t need = int64_t(prompt.size()) + max_output;
  if (prompt.empty() || max_output < 1) throw InputError("a request needs a prompt and at least 1 token to generate");
  if (need > limits_.capacity)
    throw InputError("prompt (" + std::to_string(prompt.size()) + " tokens) + " + std::to_string(max_output) +
                     " to generate exceeds the " + std::to_string(limits_.capacity) + " positions of a sequence");
  for (int32_t t : prompt)
    if (t < 0 || t >= model_.cfg.vocab) throw InputError("token id " + std::to_string(t) + " is outside the vocabulary");
  if (requests_.count(id)) throw InternalError("BatchRunner: request " + std::to_string(id) + " added twice");
  sched_.arrive(id, int64_t(prompt.size()), max_output);
  Request r;
  r.tokens = std::move(prompt);
  r.tokens.reserve(size_t(need));
  r.sampler = std::make_unique<Sampler>(sampler);
  requests_.emplace(id, std::move(r));
}

void BatchRunner::release(size_t id) {
  auto it = requests_.find(id);
  if (it == requests_.end() || it->second.slot < 0) return;
  fwd_.reset(it->second.slot);
  free_slots_.push_back(it->second.slot);
  it->second.slot = -1;
}

void BatchRunner::cancel(size_t id) {
  sched_.cancel(id);
  release(id);
  requests_.erase(id);
}

std::vector<BatchRunner::Token> BatchRunner::step() {
  if (sched_.idle()) return {};
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  const std::vector<ScheduledSlice> plan = sched_.plan();
  for (size_t id : sched_.preempted()) release(id);
  std::vector<SeqTokens> slices;
  bool decodes_only = true;
  for (const ScheduledSlice& s : plan) {
    Request& r = requests_.at(s.id);
    if (s.restart) {
      if (r.slot >= 0 || free_slots_.empty()) throw InternalError("BatchRunner: no free slot for a sequence the scheduler admitted");
      r.slot = free_slots_.back();
      free_slots_.pop_back();
    }
    if (s.context_before + s.new_tokens > int64_t(r.tokens.size())) throw InternalError("BatchRunner: a slice past the sequence's tokens");
    slices.push_back({r.slot, std::span<const int32_t>(r.tokens).subspan(size_t(s.context_before), size_t(s.new_tokens))});
    decodes_only = decodes_only && s.new_tokens == 1;
  }
  std::span<const float> logits;
  const auto f0 = clock::now();
  if (decodes_only) {
    std::vector<int32_t> tokens;
    std::vector<int64_t> seqs;
    for (const auto& s : slices) {
      tokens.push_back(s.tokens[0]);
      seqs.push_back(s.seq);
    }
    logits = fwd_.decode_batch(tokens, seqs);
  } else {
    logits = fwd_.step(slices);
    ++mixed_steps_;
  }
  const auto f1 = clock::now();
  ++steps_;
  batch_sum_ += double(plan.size());
  const size_t V = size_t(model_.cfg.vocab);
  const std::vector<StepOutput> outputs = sched_.finish_step();
  // Each output's token, sampled on the pool: every request has its own sampler and logits row.
  std::vector<size_t> rows(outputs.size());
  std::vector<Sampler*> samplers(outputs.size());
  std::vector<int32_t> sampled(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    while (plan[rows[i]].id != outputs[i].id) ++rows[i];
    samplers[i] = requests_.at(outputs[i].id).sampler.get();
  }
  pool_.parallel_for(int64_t(outputs.size()), [&](int64_t b, int64_t e, int) {
    for (int64_t i = b; i < e; ++i) sampled[size_t(i)] = samplers[size_t(i)]->sample(logits.subspan(rows[size_t(i)] * V, V));
  }, 1);
  std::vector<Token> out;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const StepOutput& o = outputs[i];
    Request& r = requests_.at(o.id);
    const int32_t t = sampled[i];
    r.tokens.push_back(t);
    out.push_back({o.id, t, o.first, o.finished});
    if (o.finished) {
      release(o.id);
      requests_.erase(o.id);
    }
  }
  if (record_) {
    StepTiming st;
    for (const ScheduledSlice& s : plan) st.slices.emplace_back(s.new_tokens, s.context_before);
    st.forward_s = std::chrono::duration<double>(f1 - f0).count();
    st.step_s = std::chrono::duration<double>(clock::now() - t0).count();
    log_.push_back(std::move(st));
  }
  return out;
}

ServeLoadResult serve_load(const LlamaModel& model, kernels::ThreadPool& pool, const std::vector<ServingRequest>& requests,
                           const ServeLoadOptions& o) {
  ServeLoadResult res;
  RunnerLimits limits = o.limits;
  limits.capacity = 1;
  for (const auto& r : requests) {
    if (r.prompt < 1 || r.output < 1) throw InputError("every request needs a prompt and an output of at least 1 token");
    limits.capacity = std::max(limits.capacity, r.prompt + r.output);
  }
  BatchRunner runner(model, pool, limits);
  runner.record_steps();
  res.kv_capacity = limits.capacity;
  res.kv_bytes = runner.kv_bytes();
  // Each request's prompt: random ids, seeded.
  std::mt19937_64 gen(o.seed);
  std::uniform_int_distribution<int32_t> pick(0, int32_t(model.cfg.vocab - 1));
  std::vector<std::vector<int32_t>> prompts(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    prompts[i].resize(size_t(requests[i].prompt));
    for (auto& t : prompts[i]) t = pick(gen);
  }

  ArrivalClock clock(requests, o.concurrency);
  res.ttft_s.assign(requests.size(), -1);
  res.e2e_s.assign(requests.size(), -1);
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  size_t finished = 0;
  double last = 0;
  while (finished < requests.size()) {
    for (size_t id : clock.arrived_by(elapsed())) runner.add(id, std::move(prompts[id]), requests[id].output);
    if (runner.idle()) {  // sleep until the next arrival
      const auto at = clock.next_arrival();
      if (!at) throw InternalError("bench-serve: no request left to arrive while " + std::to_string(requests.size() - finished) + " are unfinished");
      const double wait = *at - elapsed();
      if (wait > 0) std::this_thread::sleep_for(std::chrono::duration<double>(wait));
      continue;
    }
    const auto tokens = runner.step();
    const double now = elapsed();
    for (const auto& t : tokens) {
      if (t.first) res.ttft_s[t.id] = now - clock.arrival(t.id);
      if (!t.finished) continue;
      res.e2e_s[t.id] = now - clock.arrival(t.id);
      ++finished;
      last = now;
      clock.completed(now);
    }
  }
  res.duration_s = last - clock.first_arrival();
  res.steps = runner.steps();
  res.mixed_steps = runner.mixed_steps();
  res.preemptions = runner.preemptions();
  res.mean_batch = runner.mean_batch();
  res.step_log = runner.step_log();
  return res;
}

}  // namespace rooftop::engine
