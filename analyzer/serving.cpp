// simulate: continuous batching with chunked prefill, paged KV with a capacity and recompute preemption,
// priced step by step by StepCost.
#include "analyzer/serving.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "base/suggest.h"
#include "analyzer/params.h"
#include "analyzer/speed.h"
#include "base/stats.h"

namespace rooftop {

StepCost::StepCost(const ModelSpec& m, const ChipSpec& chip, const PrecisionPlan& p, const RuntimeProfile& profile, int64_t tp,
                   int64_t pp)
    : m_(m), chip_(chip), p_(p), tp_(tp), pp_(pp), moe_expert_fraction_(profile.moe_expert_fraction),
      served_(profile.served) {
  if (tp < 1 || pp < 1) throw InputError("tensor and pipeline degrees must be >= 1");
  DeviceLink link;
  if (tp > 1 || pp > 1) link = device_link(chip, tp * pp);
  rates_ = resolve_rates(profile, chip, link.bytes_per_s, link.scaleup);
  // The `rooftop` runtime on a calibrated chip: this machine's measured kernel rates, as speed prices them.
  if (profile.use_calibration && !chip_.measured.empty() && tp == 1 && pp == 1) calibrated_.emplace(m_, chip_, p_);
}

double StepCost::seconds(const std::vector<StepSlice>& slices) const {
  if (slices.empty()) return 0;
  int64_t tokens = 0;
  for (const auto& s : slices) tokens += s.new_tokens;
  // The weights' part (matmuls, norms, embedding rows, LM head) for all the step's tokens, once per token count.
  auto it = weights_work_.find(tokens);
  if (it == weights_work_.end()) {
    PassShape shape{1, tokens, 0};
    shape.moe_expert_fraction = moe_expert_fraction_;
    PassWork w = pass_work(m_, p_, shape, chip_.activation_value_bytes());
    w.ops.erase(std::remove_if(w.ops.begin(), w.ops.end(), [](const OpCost& o) { return o.kind == "attention"; }), w.ops.end());
    it = weights_work_.emplace(tokens, std::move(w)).first;
  }
  PassWork w = it->second;
  const double seqs = static_cast<double>(slices.size());
  for (auto& o : w.ops)
    if (o.name == "lm_head") {  // one row of logits per sequence, not one
      o.flops *= seqs;
      o.act_bytes *= seqs;
    }
  // Each slice's own cache operations, summed per operation (one kernel serves the whole batch). A slice's
  // operations depend on its (new tokens, context) alone, and a simulation meets the same pairs again and again:
  // each is worked out once (the table is dropped when it grows past 1M slices).
  const size_t first = w.ops.size();
  for (const auto& s : slices) {
    const uint64_t key = (static_cast<uint64_t>(s.new_tokens) << 32) ^ static_cast<uint64_t>(s.context_before);
    auto found = slice_work_.find(key);
    if (found == slice_work_.end()) {
      if (slice_work_.size() > 1'000'000) slice_work_.clear();
      found = slice_work_.emplace(key, cache_work(m_, p_, PassShape{1, s.new_tokens, s.context_before}).ops).first;
    }
    for (const auto& o : found->second) {  // the same operations in the same order for every slice
      auto c = std::find_if(w.ops.begin() + static_cast<std::ptrdiff_t>(first), w.ops.end(), [&](const OpCost& x) { return x.name == o.name; });
      if (c == w.ops.end()) {
        w.ops.push_back(o);
        continue;
      }
      c->flops += o.flops;
      c->kv_read_bytes += o.kv_read_bytes;
      c->kv_write_bytes += o.kv_write_bytes;
      c->act_bytes += o.act_bytes;
      c->query_rows += o.query_rows;
    }
  }
  w.tokens = static_cast<double>(tokens);
  w.seqs = seqs;
  if (calibrated_) {  // a step of decodes alone runs the batched GEMV; a mixed one the GEMM over all its tokens
    const bool decode = static_cast<double>(tokens) == seqs;
    return calibrated_->seconds(w, decode, decode ? seqs : static_cast<double>(tokens));
  }
  CompactPass c = compact_pass(w, chip_, static_cast<double>(m_.layers), static_cast<double>(tp_));
  // A step passes every pipeline stage in turn: the whole model's time at tp, plus the hand-offs between stages.
  add_collectives(c, m_, static_cast<double>(tokens), tp_, pp_, 1, 2.0);
  return pass_seconds(c, rates_);
}


namespace {

Percentiles summarize(std::vector<double> v) {
  Percentiles p;
  if (v.empty()) return p;
  std::sort(v.begin(), v.end());
  p.p50 = quantile_sorted(v, 0.5);
  p.p90 = quantile_sorted(v, 0.9);
  p.p99 = quantile_sorted(v, 0.99);
  double sum = 0;
  for (double x : v) sum += x;
  p.mean = sum / static_cast<double>(v.size());
  return p;
}

}  // namespace

SimulationResult summarize_serving(const std::vector<ServingRequest>& requests, const std::vector<double>& ttft,
                                   const std::vector<double>& done, double duration_s, double slo_ttft_s, double slo_tpot_s) {
  SimulationResult res;
  res.requests = requests.size();
  res.duration_s = duration_s;
  std::vector<double> tpot;
  size_t good = 0;
  for (size_t i = 0; i < requests.size(); ++i) {
    res.output_tokens += static_cast<double>(requests[i].output);
    res.prompt_tokens += static_cast<double>(requests[i].prompt);
    const double t = requests[i].output > 1 ? (done[i] - ttft[i]) / static_cast<double>(requests[i].output - 1) : 0.0;
    if (requests[i].output > 1) tpot.push_back(t);
    const bool ok = (slo_ttft_s <= 0 || ttft[i] <= slo_ttft_s) && (slo_tpot_s <= 0 || t <= slo_tpot_s);
    good += ok ? 1 : 0;
  }
  res.ttft_each_s = ttft;
  res.e2e_each_s = done;
  res.ttft_s = summarize(ttft);
  res.tpot_s = summarize(tpot);
  res.e2e_s = summarize(done);
  if (res.duration_s > 0) {
    res.requests_per_s = static_cast<double>(requests.size()) / res.duration_s;
    res.output_tokens_per_s = res.output_tokens / res.duration_s;
    res.goodput_requests_per_s = static_cast<double>(good) / res.duration_s;
  }
  res.slo_attained = requests.empty() ? 0 : static_cast<double>(good) / static_cast<double>(requests.size());
  return res;
}


SchedulerLimits SchedulerPolicy::limits() const { return {max_seqs, token_budget, block_tokens, kv_budget_bytes}; }

std::function<double(int64_t)> kv_footprint(const ModelSpec& m, const PrecisionPlan& p, const SchedulerPolicy& pol) {
  const NumberFormat kvf = p.kv_format();
  const double state = state_bytes_per_sequence(m) * pol.state_fraction;
  const int64_t block = pol.block_tokens;
  const double fraction = pol.kv_fraction;
  // Per device bytes a sequence of `tokens` cached tokens holds: whole pages of KV (windows applied) and its state.
  return [m, kvf, state, block, fraction](int64_t tokens) {
    const int64_t pages = (tokens + block - 1) / block;
    return kv_bytes(m, kvf, pages * block, 1) * fraction + state;
  };
}

SimulationResult simulate(const ModelSpec& m, const PrecisionPlan& p, const std::vector<ServingRequest>& requests,
                          const SchedulerPolicy& pol, const StepCost& cost, const SimulationOptions& o) {
  Scheduler sched(pol.limits(), kv_footprint(m, p, pol));
  std::vector<double> ttft(requests.size(), -1), done(requests.size(), -1);
  // The server's delay of each request's tokens (ServedDelay), fixed at its first token by the
  // requests then in flight; 0 for a request whose first token came with it (a disaggregated decode pool).
  std::vector<double> delay(requests.size(), 0.0);
  double last_seen = 0, last_release = 0;  // the last token a client received; the last client's next send
  ArrivalClock clock(requests, o.concurrency);
  double now = 0, kv_time_integral = 0, batch_sum = 0, peak_kv = 0;
  int64_t steps = 0;
  size_t finished = 0;
  const double first_arrival = clock.first_arrival();
  std::vector<std::pair<double, double>> timeline;

  while (finished < requests.size()) {
    for (size_t id : clock.arrived_by(now)) {
      const ServingRequest& r = requests[id];
      sched.arrive(id, r.prompt, r.output, r.prefix_id, r.prefix_tokens, r.prefilled);
      if (r.prefilled) ttft[id] = 0;  // its first token came with it
    }
    if (sched.idle()) {  // idle until the next arrival
      const auto at = clock.next_arrival();
      if (!at) throw InternalError("simulate: no request left to arrive while " + std::to_string(requests.size() - finished) + " are unfinished");
      now = std::max(now, *at);
      continue;
    }
    const std::vector<ScheduledSlice> planned = sched.plan();
    std::vector<StepSlice> slices;
    for (const auto& s : planned) slices.push_back({s.new_tokens, s.context_before});
    const double dt = cost.seconds(slices);
    if (!(dt > 0) || !std::isfinite(dt)) throw InternalError("simulate: a step cost " + std::to_string(dt) + " s");
    kv_time_integral += sched.kv_fraction() * dt;
    batch_sum += static_cast<double>(slices.size());
    now += dt;
    ++steps;
    peak_kv = std::max(peak_kv, sched.kv_fraction());
    timeline.emplace_back(now - first_arrival, sched.kv_fraction());
    // The client sees each token of a request its delay later than the step made it.
    for (const StepOutput& out : sched.finish_step()) {
      if (out.first) {
        delay[out.id] = cost.served_delay_s(static_cast<double>(slices.size()));
        ttft[out.id] = now - clock.arrival(out.id) + delay[out.id];
      }
      if (!out.finished) continue;
      done[out.id] = now - clock.arrival(out.id) + delay[out.id];
      last_seen = std::max(last_seen, now + delay[out.id]);
      ++finished;
      // A closed-loop client sends its next request when it has the last token (release times kept in order).
      last_release = std::max(last_release, now + delay[out.id]);
      clock.completed(last_release);
    }
  }

  SimulationResult res = summarize_serving(requests, ttft, done, std::max(now, last_seen) - first_arrival, o.slo_ttft_s, o.slo_tpot_s);
  res.preemptions = sched.preemptions();
  res.prefix_hit_tokens = sched.prefix_hit_tokens();
  res.steps = steps;
  res.peak_kv_fraction = peak_kv;
  if (res.duration_s > 0) res.mean_kv_fraction = kv_time_integral / res.duration_s;
  res.mean_batch = steps > 0 ? batch_sum / static_cast<double>(steps) : 0;
  const size_t stride = std::max<size_t>(1, timeline.size() / std::max<size_t>(1, o.timeline_points));
  for (size_t i = 0; i < timeline.size(); i += stride) res.kv_timeline.push_back(timeline[i]);
  return res;
}

}  // namespace rooftop

namespace rooftop {

SchedulerPolicy serving_policy(const ModelSpec& m, const ChipSpec& chip, const PrecisionPlan& p, const RuntimeProfile& profile,
                               int64_t tp, int64_t max_seqs, int64_t token_budget, int64_t block_tokens, int64_t pp) {
  FitOptions fo;
  fo.context = block_tokens;
  fo.tp = tp;
  fo.pp = pp;
  const FitResult f = fit(m, chip, p, fo);
  const bool cpu = chip.kind == "cpu" || chip.kind == "soc";
  SchedulerPolicy pol;
  const auto [default_seqs, default_budget] = profile.serving_limits(chip);
  pol.max_seqs = max_seqs > 0 ? max_seqs : default_seqs;
  pol.token_budget = token_budget > 0 ? token_budget : default_budget;
  pol.block_tokens = block_tokens;
  pol.kv_fraction = f.kv_bytes > 0 ? f.kv_bytes_per_device / f.kv_bytes : 1.0;
  pol.state_fraction = f.state_bytes > 0 ? f.state_bytes_per_device / f.state_bytes : 1.0;
  const double activations = activation_bytes(m, pol.token_budget, pol.max_seqs, cpu ? 4.0 : 2.0) / static_cast<double>(tp);
  pol.kv_budget_bytes = chip.memory_bytes * profile.memory_fraction - f.weights_bytes_per_device - activations;
  return pol;
}

}  // namespace rooftop
