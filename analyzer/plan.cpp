// rooftop plan: a search over deployments, each checked by simulation (see plan.h).
#include "analyzer/plan.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "base/suggest.h"
#include "analyzer/memory.h"

namespace rooftop {

std::string PlanCandidate::family() const {
  if (disaggregated) return hw + " disaggregated prefill tp" + std::to_string(serve.tp) + " decode tp" + std::to_string(decode.tp);
  return hw + " tp" + std::to_string(serve.tp) + " pp" + std::to_string(serve.pp);
}

namespace {

// What one pool of a shape does at a replica count: its p99s, from one simulation.
struct PoolRun {
  bool meets = false;
  double ttft_p99_s = 0, tpot_p99_s = 0;
  double miss = 0;  // the larger of p99 / target over the targets this pool answers for
};

enum class Role { serve, prefill, decode };

// "12.5%": how far a p99 over its target (miss > 1) is over it.
std::string percent_over(double miss) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * (miss - 1));
  return buf;
}

// One setting (shape and scheduler limits) of one pool role on one chip, ready to simulate at any replica count.
class Pool {
 public:
  Pool(const ModelSpec& m, const PrecisionPlan& p, const ChipSpec& chip, const RuntimeProfile& prof, const PlanOptions& o,
       Role role, PoolShape shape)
      : m_(m), p_(p), o_(o), role_(role), shape_(shape),
        pol_(serving_policy(m, chip, p, prof, shape.tp, shape.max_seqs, shape.token_budget, o.block_tokens, shape.pp)),
        cost_(m, chip, p, prof, shape.tp, shape.pp) {
    // The pp micro-batches' schedulers share each device's pages.
    pol_.kv_budget_bytes /= static_cast<double>(shape.pp);
    shape_.max_seqs = pol_.max_seqs;
    shape_.token_budget = pol_.token_budget;
    // Fails here (InputError) when one request cannot fit at all.
    Scheduler probe(pol_.limits(), kv_footprint(m, p, pol_));
    probe.arrive(0, o.prompt, role == Role::prefill ? 1 : o.output);
  }

  const PoolShape& shape() const { return shape_; }
  int64_t most_replicas() const { return o_.max_devices / (shape_.tp * shape_.pp); }

  // A bound no load can beat: a lone request's prefill (TTFT) and a lone decode step at its longest context
  // (TPOT). Over the target: no replica count meets it.
  std::optional<std::string> hopeless(double& miss) const {
    if (role_ != Role::decode) {
      double ttft = 0;
      for (int64_t done = 0; done < o_.prompt; done += shape_.token_budget)
        ttft += cost_.seconds({{std::min(shape_.token_budget, o_.prompt - done), done}});
      if (ttft > o_.slo_ttft_p99_s) {
        miss = ttft / o_.slo_ttft_p99_s;
        return "TTFT";
      }
    }
    if (role_ != Role::prefill && o_.output > 1) {
      const double tpot = cost_.seconds({{1, o_.prompt + o_.output - 1}});
      if (tpot > o_.slo_tpot_p99_s) {
        miss = tpot / o_.slo_tpot_p99_s;
        return "TPOT";
      }
    }
    return std::nullopt;
  }

  PoolRun run(int64_t replicas) const {
    const double per_scheduler = o_.rate / static_cast<double>(replicas * shape_.pp);
    auto reqs = poisson_requests(o_.requests, per_scheduler, o_.prompt, role_ == Role::prefill ? 1 : o_.output, o_.seed);
    if (role_ == Role::decode)
      for (auto& r : reqs) r.prefilled = true;
    const SimulationResult s = simulate(m_, p_, reqs, pol_, cost_, {});
    PoolRun r;
    r.ttft_p99_s = s.ttft_s.p99;
    r.tpot_p99_s = s.tpot_s.p99;
    const double ttft_miss = r.ttft_p99_s / o_.slo_ttft_p99_s, tpot_miss = r.tpot_p99_s / o_.slo_tpot_p99_s;
    r.miss = role_ == Role::prefill ? ttft_miss : role_ == Role::decode ? tpot_miss : std::max(ttft_miss, tpot_miss);
    r.meets = r.miss <= 1;
    return r;
  }

 private:
  const ModelSpec& m_;
  const PrecisionPlan& p_;
  const PlanOptions& o_;
  Role role_;
  PoolShape shape_;
  SchedulerPolicy pol_;
  StepCost cost_;
};

// The best of one family (chip x role x parallel shape) over its scheduler settings.
struct FamilyBest {
  std::optional<PoolShape> shape;  // the fewest replicas meeting the targets (replicas set)
  PoolRun at;                      // its run
  std::string reason, detail;      // when none meets
  double miss = 0;
  PoolShape nearest_shape;
  PoolRun nearest;
  int64_t configurations = 0, simulations = 0;
};

// Searches one family's settings: the first by bisection over replica counts, each later one first at one
// replica fewer than the best so far (one simulation when it cannot do better).
FamilyBest search_family(const ModelSpec& m, const PrecisionPlan& p, const ChipSpec& chip, const RuntimeProfile& prof,
                         const PlanOptions& o, Role role, const std::vector<PoolShape>& settings) {
  FamilyBest best;
  best.miss = 0;
  for (const PoolShape& setting : settings) {
    std::optional<Pool> pool;
    try {
      pool.emplace(m, p, chip, prof, o, role, setting);
    } catch (const InputError& e) {
      if (best.reason.empty() || best.reason == "memory") {
        best.reason = "memory";
        best.detail = e.what();
      }
      continue;
    }
    const int64_t most = pool->most_replicas();
    best.configurations += most;
    double bound_miss = 0;
    if (auto why = pool->hopeless(bound_miss)) {  // no replica count helps
      if (best.reason.empty() || best.reason == "memory" || bound_miss < best.miss) {
        best.reason = *why;
        best.miss = bound_miss;
        best.detail = "one request alone misses the " + *why + " target by " + percent_over(bound_miss);
        best.nearest_shape = pool->shape();
        best.nearest_shape.replicas = most;
        best.nearest = {};
      }
      continue;
    }
    // The upper end: the fewest replicas known to meet the targets (or every device, when none is known).
    int64_t hi = best.shape ? best.shape->replicas - 1 : most;
    if (hi < 1) continue;
    ++best.simulations;
    PoolRun top = pool->run(hi);
    if (!top.meets) {
      if (!best.shape && (best.reason.empty() || best.reason == "memory" || top.miss < best.miss)) {
        const bool ttft = role == Role::prefill || (role == Role::serve && top.ttft_p99_s / o.slo_ttft_p99_s >= top.tpot_p99_s / o.slo_tpot_p99_s);
        best.reason = ttft ? "TTFT" : "TPOT";
        best.miss = top.miss;
        best.detail = "p99 " + best.reason + " " + percent_over(top.miss) + " over the target with " +
                      std::to_string(hi * pool->shape().tp * pool->shape().pp) + " devices";
        best.nearest_shape = pool->shape();
        best.nearest_shape.replicas = hi;
        best.nearest = top;
      }
      continue;
    }
    int64_t lo = 0;  // run(lo) misses (0: no replicas)
    PoolRun at = top;
    while (hi - lo > 1) {
      const int64_t mid = lo + (hi - lo) / 2;
      ++best.simulations;
      const PoolRun r = pool->run(mid);
      if (r.meets) {
        hi = mid;
        at = r;
      } else {
        lo = mid;
      }
    }
    PoolShape found = pool->shape();
    found.replicas = hi;
    best.shape = found;
    best.at = at;
  }
  return best;
}

struct ChipPlan {
  std::vector<PlanCandidate> feasible;
  std::vector<PlanRejection> rejected;
  int64_t configurations = 0, simulations = 0;
};

// Bytes of one prompt's KV cache, all layers, all heads: what a disaggregated deployment moves per request.
double prompt_kv_bytes(const ModelSpec& m, const PrecisionPlan& p, int64_t prompt) {
  return kv_bytes(m, p.kv_format(), prompt, 1) + state_bytes_per_sequence(m);
}

ChipPlan plan_chip(const ModelSpec& m, const PrecisionPlan& p, const ChipSpec& chip, const RuntimeProfile& prof,
                   const PlanOptions& o) {
  ChipPlan out;
  const bool linked = chip.scaleup_bandwidth_bytes_per_s || chip.scaleout_bandwidth_bytes_per_s;
  const auto [default_seqs, default_budget] = prof.serving_limits(chip);
  auto with_default = [](std::vector<int64_t> v, int64_t d) {
    v.push_back(d);
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  };
  const std::vector<int64_t> caps = with_default(o.max_seqs.empty() ? std::vector<int64_t>{16, 64, 256} : o.max_seqs, o.max_seqs.empty() ? default_seqs : o.max_seqs.front());
  const std::vector<int64_t> budgets =
      with_default(o.token_budgets.empty() ? std::vector<int64_t>{512, 2048} : o.token_budgets, o.token_budgets.empty() ? default_budget : o.token_budgets.front());
  auto tp_ok = [&](int64_t tp) {
    if (m.heads % tp != 0) return false;
    if (!m.mla && tp > m.kv_heads && tp % m.kv_heads != 0) return false;
    if (tp > 1 && !linked) return false;
    if (tp > 1 && chip.scaleup_domain_size && tp > *chip.scaleup_domain_size) return false;
    return true;
  };
  auto tally = [&](const FamilyBest& b) {
    out.configurations += b.configurations;
    out.simulations += b.simulations;
  };
  auto priced = [&](PlanCandidate& c) {
    c.output_tokens_per_s_per_device = o.rate * static_cast<double>(o.output) / static_cast<double>(c.devices);
    c.usd_per_hour = chip.usd_per_hour.value_or(0) * static_cast<double>(c.devices);
    c.usd_per_mtok_output = c.usd_per_hour / (o.rate * static_cast<double>(o.output) * 3600.0) * 1e6;
    if (chip.tdp_watts) c.joules_per_output_token = *chip.tdp_watts * static_cast<double>(c.devices) / (o.rate * static_cast<double>(o.output));
  };
  // A family that misses; `c` names it (for a disaggregated one, with its prefill pool).
  auto reject = [&](const PlanCandidate& c, const FamilyBest& b) {
    PlanRejection r{c.family(), b.reason, b.detail, b.miss, c};
    (c.disaggregated ? r.nearest.decode : r.nearest.serve) = b.nearest_shape;
    r.nearest.devices = r.nearest.serve.devices() + (c.disaggregated ? r.nearest.decode.devices() : 0);
    r.nearest.ttft_p99_s = c.disaggregated ? c.ttft_p99_s : b.nearest.ttft_p99_s;
    r.nearest.tpot_p99_s = b.nearest.tpot_p99_s;
    out.rejected.push_back(r);
  };

  // Aggregated: every replica prefills and decodes.
  for (int64_t tp : o.tp) {
    if (!tp_ok(tp)) continue;
    for (int64_t pp : o.pp) {
      if (tp * pp > o.max_devices || pp > m.layers || (pp > 1 && !linked)) continue;
      std::vector<PoolShape> settings;
      for (int64_t cap : caps)
        for (int64_t budget : budgets) settings.push_back({tp, pp, cap, budget, 0});
      const FamilyBest b = search_family(m, p, chip, prof, o, Role::serve, settings);
      tally(b);
      PlanCandidate c;
      c.hw = chip.id;
      c.serve = b.shape.value_or(PoolShape{tp, pp, 0, 0, 0});
      if (!b.shape) {
        reject(c, b);
        continue;
      }
      c.devices = c.serve.devices();
      c.ttft_p99_s = b.at.ttft_p99_s;
      c.tpot_p99_s = b.at.tpot_p99_s;
      priced(c);
      out.feasible.push_back(c);
    }
  }

  // Disaggregated: a prefill pool (TTFT) and a decode pool (TPOT), sized apart.
  if (!o.disaggregation || o.output < 2 || !linked) return out;
  const double link = chip.scaleout_bandwidth_bytes_per_s ? *chip.scaleout_bandwidth_bytes_per_s : *chip.scaleup_bandwidth_bytes_per_s / 2.0;
  PlanCandidate base;
  base.hw = chip.id;
  base.disaggregated = true;
  base.kv_transfer_s = prompt_kv_bytes(m, p, o.prompt) / link;
  PlanOptions prefill_o = o;  // the transfer is part of the TTFT the prefill pool must meet
  prefill_o.slo_ttft_p99_s = o.slo_ttft_p99_s - base.kv_transfer_s;
  std::optional<FamilyBest> best_prefill;
  std::string prefill_fail;
  if (prefill_o.slo_ttft_p99_s > 0) {
    for (int64_t tp : o.tp) {
      if (!tp_ok(tp) || tp > o.max_devices) continue;
      std::vector<PoolShape> settings;
      for (int64_t budget : budgets) settings.push_back({tp, 1, default_seqs, budget, 0});
      FamilyBest b = search_family(m, p, chip, prof, prefill_o, Role::prefill, settings);
      tally(b);
      if (b.shape && (!best_prefill || b.shape->devices() < best_prefill->shape->devices())) best_prefill = b;
      if (!b.shape && prefill_fail.empty()) prefill_fail = b.reason == "memory" ? "memory" : "TTFT";
    }
  }
  for (int64_t tp : o.tp) {
    if (!tp_ok(tp) || tp > o.max_devices) continue;
    std::vector<PoolShape> settings;
    for (int64_t cap : caps) settings.push_back({tp, 1, cap, default_budget, 0});
    PlanCandidate c = base;
    c.decode.tp = tp;
    if (best_prefill) {
      c.serve = *best_prefill->shape;
      c.ttft_p99_s = best_prefill->at.ttft_p99_s + c.kv_transfer_s;
    }
    if (!best_prefill) {  // no prefill pool meets the TTFT target: every decode shape is moot
      FamilyBest none;
      none.reason = prefill_fail.empty() ? "TTFT" : prefill_fail;
      none.detail = prefill_o.slo_ttft_p99_s <= 0 ? "moving one prompt's KV cache between the pools alone takes " +
                                                        std::to_string(base.kv_transfer_s) + " s"
                                                  : "no prefill pool meets the TTFT target within " + std::to_string(o.max_devices) + " devices";
      reject(c, none);
      continue;
    }
    PlanOptions decode_o = o;  // the decode pool gets what the prefill pool leaves
    decode_o.max_devices = o.max_devices - best_prefill->shape->devices();
    if (decode_o.max_devices < tp) {
      FamilyBest none;
      none.reason = "devices";
      none.detail = "the prefill pool takes " + std::to_string(best_prefill->shape->devices()) + " of " + std::to_string(o.max_devices) + " devices";
      reject(c, none);
      continue;
    }
    const FamilyBest b = search_family(m, p, chip, prof, decode_o, Role::decode, settings);
    tally(b);
    if (!b.shape) {
      reject(c, b);
      continue;
    }
    c.decode = *b.shape;
    c.devices = c.serve.devices() + c.decode.devices();
    c.tpot_p99_s = b.at.tpot_p99_s;
    priced(c);
    out.feasible.push_back(c);
  }
  return out;
}

}  // namespace

PlanResult plan_deployments(const ModelSpec& m, const PrecisionPlan& p, const std::vector<ChipSpec>& chips,
                            const RuntimeProfile& profile, const PlanOptions& o) {
  if (!(o.rate > 0) || !std::isfinite(o.rate)) throw InputError("--rate must be a number > 0 (requests per second)");
  for (const auto* list : {&o.tp, &o.pp, &o.max_seqs, &o.token_budgets})
    for (int64_t v : *list)
      if (v < 1) throw InputError("plan: tensor and pipeline degrees, batch caps and prefill chunks must be >= 1");
  std::vector<const ChipSpec*> todo;
  for (const auto& chip : chips)
    if (chip.kind != "cpu" && chip.kind != "soc" && chip.memory_bytes > 0) todo.push_back(&chip);
  // Chips are independent: searched on several threads, merged in the order given (deterministic).
  std::vector<ChipPlan> per(todo.size());
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_m;
  auto worker = [&] {
    for (size_t i = next++; i < todo.size(); i = next++) {
      try {
        per[i] = plan_chip(m, p, *todo[i], profile, o);
      } catch (...) {
        std::lock_guard<std::mutex> lk(failure_m);
        if (!failure) failure = std::current_exception();
      }
    }
  };
  const unsigned n = std::max(1u, std::min<unsigned>(o.threads ? o.threads : std::thread::hardware_concurrency(), static_cast<unsigned>(todo.size())));
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < n; ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);

  PlanResult r;
  for (auto& c : per) {
    r.feasible.insert(r.feasible.end(), c.feasible.begin(), c.feasible.end());
    r.rejected.insert(r.rejected.end(), c.rejected.begin(), c.rejected.end());
    r.configurations += c.configurations;
    r.simulations += c.simulations;
  }
  // Priced first, cheapest first; then fewer devices, then lower TPOT.
  std::stable_sort(r.feasible.begin(), r.feasible.end(), [](const PlanCandidate& a, const PlanCandidate& b) {
    const bool pa = a.usd_per_hour > 0, pb = b.usd_per_hour > 0;
    if (pa != pb) return pa;
    if (a.usd_per_hour != b.usd_per_hour) return a.usd_per_hour < b.usd_per_hour;
    if (a.devices != b.devices) return a.devices < b.devices;
    return a.tpot_p99_s < b.tpot_p99_s;
  });
  for (auto& c : r.feasible) {
    c.pareto = std::none_of(r.feasible.begin(), r.feasible.end(), [&](const PlanCandidate& d) {
      return d.output_tokens_per_s_per_device >= c.output_tokens_per_s_per_device && d.tpot_p99_s <= c.tpot_p99_s &&
             (d.output_tokens_per_s_per_device > c.output_tokens_per_s_per_device || d.tpot_p99_s < c.tpot_p99_s);
    });
  }
  // Memory rejections carry no miss: after the ones that came close.
  std::stable_sort(r.rejected.begin(), r.rejected.end(), [](const PlanRejection& a, const PlanRejection& b) {
    const double ma = a.miss > 0 ? a.miss : 1e300, mb = b.miss > 0 ? b.miss : 1e300;
    return ma < mb;
  });
  return r;
}

}  // namespace rooftop
