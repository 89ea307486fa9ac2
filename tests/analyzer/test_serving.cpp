// The serving simulator: single requests against the step costs summed by hand, a one-at-a-time queue
// against the M/D/1 waiting time (Pollaczek-Khinchine), determinism, preemption under a small KV budget.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <numeric>

#include "base/suggest.h"
#include "analyzer/plan.h"
#include "analyzer/serving.h"
#include "seed_models.h"

using namespace rooftop;

namespace {
ModelSpec small_model() { return test::dense_spec("small", 32000, 1024, 8, 8, 2, 128, 4096); }
ChipSpec gpu() { return test::chip_spec("gpu", "gpu", 24e9, 1e12, {{"bf16", 100e12}, {"fp32", 50e12}}); }
PrecisionPlan bf16() {
  PrecisionPlan p;
  p.weights = "bf16";
  return p;
}
SchedulerPolicy policy(double kv_budget) {
  SchedulerPolicy pol;
  pol.kv_budget_bytes = kv_budget;
  return pol;
}
}  // namespace

TEST_CASE("one request alone: TTFT is its prefill step, then one decode step per further token", "[analyzer][serving]") {
  const ModelSpec m = small_model();
  const StepCost cost(m, gpu(), bf16(), generic_profile(false), 1);
  const std::vector<ServingRequest> one = {{0.5, 300, 6}};
  const SimulationResult r = simulate(m, bf16(), one, policy(1e9), cost, {});
  const double prefill = cost.seconds({{300, 0}});
  double decode = 0;
  for (int64_t k = 0; k < 5; ++k) decode += cost.seconds({{1, 300 + k}});
  CHECK(r.ttft_each_s[0] == Approx(prefill).epsilon(1e-12));
  CHECK(r.e2e_each_s[0] == Approx(prefill + decode).epsilon(1e-12));
  CHECK(r.tpot_s.p50 == Approx(decode / 5).epsilon(1e-12));
  CHECK(r.duration_s == Approx(prefill + decode).epsilon(1e-12));  // from its arrival at 0.5 s
  // A budget of 128 tokens per step: the prompt goes in chunks of 128, 128 and 44, each over the cache so far.
  SchedulerPolicy chunked = policy(1e9);
  chunked.token_budget = 128;
  const SimulationResult c = simulate(m, bf16(), one, chunked, cost, {});
  CHECK(c.ttft_each_s[0] == Approx(cost.seconds({{128, 0}}) + cost.seconds({{128, 128}}) + cost.seconds({{44, 256}})).epsilon(1e-12));
  // Two requests at once share steps: the step prices both slices together, less than the two apart.
  CHECK(cost.seconds({{1, 300}, {1, 500}}) < cost.seconds({{1, 300}}) + cost.seconds({{1, 500}}));
  // A served runtime's client sees the first and the last token 15 ms + 3 ms x 1 in flight later; TPOT is the same.
  RuntimeProfile served_profile = generic_profile(false);
  served_profile.served = {0.015, 0.003, 0};
  const StepCost served_cost(m, gpu(), bf16(), served_profile, 1);
  const SimulationResult s = simulate(m, bf16(), one, policy(1e9), served_cost, {});
  CHECK(s.ttft_each_s[0] == Approx(prefill + 0.018).epsilon(1e-12));
  CHECK(s.e2e_each_s[0] == Approx(prefill + decode + 0.018).epsilon(1e-12));
  CHECK(s.tpot_s.p50 == Approx(decode / 5).epsilon(1e-12));
}

TEST_CASE("one at a time with Poisson arrivals waits as M/D/1 says", "[analyzer][serving]") {
  // max 1 sequence, 1 output token: each request holds the server for exactly S (its prefill step).
  // Pollaczek-Khinchine for deterministic service: mean wait = rho S / (2 (1 - rho)), rho = lambda S.
  const ModelSpec m = small_model();
  const StepCost cost(m, gpu(), bf16(), generic_profile(false), 1);
  const double S = cost.seconds({{200, 0}});
  const double lambda = 0.6 / S;
  SchedulerPolicy pol = policy(1e9);
  pol.max_seqs = 1;
  const auto reqs = poisson_requests(40000, lambda, 200, 1, 7);
  const SimulationResult r = simulate(m, bf16(), reqs, pol, cost, {});
  const double wait = 0.6 * S / (2 * (1 - 0.6));  // 0.75 S
  INFO("S " << S << " simulated mean TTFT " << r.ttft_s.mean << " expected " << S + wait);
  CHECK(r.ttft_s.mean == Approx(S + wait).epsilon(0.04));
  CHECK(r.requests_per_s == Approx(lambda).epsilon(0.03));
}

TEST_CASE("a seed gives one result; another seed another", "[analyzer][serving]") {
  const ModelSpec m = small_model();
  const StepCost cost(m, gpu(), bf16(), generic_profile(false), 1);
  const auto a = simulate(m, bf16(), poisson_requests(200, 20, 500, 50, 1), policy(1e9), cost, {});
  const auto b = simulate(m, bf16(), poisson_requests(200, 20, 500, 50, 1), policy(1e9), cost, {});
  const auto c = simulate(m, bf16(), poisson_requests(200, 20, 500, 50, 2), policy(1e9), cost, {});
  CHECK(a.ttft_each_s == b.ttft_each_s);
  CHECK(a.e2e_each_s == b.e2e_each_s);
  CHECK(a.ttft_each_s != c.ttft_each_s);
}

TEST_CASE("a full KV budget preempts and recomputes; every request still ends", "[analyzer][serving]") {
  const ModelSpec m = small_model();
  const StepCost cost(m, gpu(), bf16(), generic_profile(false), 1);
  // KV per token: 8 layers x 2 x 2 heads x 128 x 2 bytes = 8 KiB; a request of 512 + 512 tokens holds 8 MiB.
  // A budget of 20 MiB holds two and a half such requests; eight arrive at once.
  const std::vector<ServingRequest> burst(8, ServingRequest{0, 512, 512});
  SimulationOptions o;
  const SimulationResult r = simulate(m, bf16(), burst, policy(20.0 * 1048576), cost, o);
  CHECK(r.preemptions > 0);
  CHECK(r.peak_kv_fraction <= 1.0);
  for (double e : r.e2e_each_s) CHECK(e > 0);
  // With room for all eight, none is preempted and all finish sooner.
  const SimulationResult roomy = simulate(m, bf16(), burst, policy(1e9), cost, o);
  CHECK(roomy.preemptions == 0);
  CHECK(roomy.duration_s < r.duration_s);
}

TEST_CASE("a closed loop of one client serves requests back to back", "[analyzer][serving]") {
  const ModelSpec m = small_model();
  const StepCost cost(m, gpu(), bf16(), generic_profile(false), 1);
  const std::vector<ServingRequest> reqs(5, ServingRequest{0, 100, 10});
  SimulationOptions o;
  o.concurrency = 1;
  const SimulationResult r = simulate(m, bf16(), reqs, policy(1e9), cost, o);
  const double sum = std::accumulate(r.e2e_each_s.begin(), r.e2e_each_s.end(), 0.0);
  CHECK(r.duration_s == Approx(sum).epsilon(1e-12));
  CHECK(r.e2e_each_s[0] == Approx(r.e2e_each_s[4]).epsilon(1e-12));  // each alone: the same time
  // A served runtime: the client sends its next request when it has the last token, the delay (10 ms + 2 ms x 1)
  // later; so each request takes 12 ms more and the loop 5 x 12 ms more.
  RuntimeProfile served_profile = generic_profile(false);
  served_profile.served = {0.010, 0.002, 0};
  const SimulationResult s = simulate(m, bf16(), reqs, policy(1e9), StepCost(m, gpu(), bf16(), served_profile, 1), o);
  CHECK(s.e2e_each_s[2] == Approx(r.e2e_each_s[2] + 0.012).epsilon(1e-12));
  CHECK(s.duration_s == Approx(r.duration_s + 5 * 0.012).epsilon(1e-9));
}

TEST_CASE("a served runtime's delay is fixed per request at its first token: TPOT and the schedule are the same",
          "[analyzer][serving]") {
  const ModelSpec m = small_model();
  // One long request among many short ones that arrive together: its first token comes with 40 in flight and its
  // last with itself alone. Each request's delay (4 ms + 1 ms per request in flight at its first token, up to 16)
  // moves its first and last token alike.
  std::vector<ServingRequest> reqs = {{0, 64, 200}};
  for (int i = 0; i < 39; ++i) reqs.push_back({0.001 * i, 64, 2});
  RuntimeProfile served_profile = generic_profile(false);
  served_profile.served = {0.004, 0.001, 16};
  const SimulationResult plain = simulate(m, bf16(), reqs, policy(1e9), StepCost(m, gpu(), bf16(), generic_profile(false), 1), {});
  const SimulationResult s = simulate(m, bf16(), reqs, policy(1e9), StepCost(m, gpu(), bf16(), served_profile, 1), {});
  for (size_t i = 0; i < reqs.size(); ++i) {
    const double d = s.ttft_each_s[i] - plain.ttft_each_s[i];
    CHECK(d >= 0.004 + 0.001 - 1e-12);
    CHECK(d <= 0.004 + 0.016 + 1e-12);  // at most 16 streams counted
    CHECK(s.e2e_each_s[i] - plain.e2e_each_s[i] == Approx(d).epsilon(1e-9));
    CHECK(s.e2e_each_s[i] >= s.ttft_each_s[i]);
  }
  CHECK(s.tpot_s.p50 == Approx(plain.tpot_s.p50).epsilon(1e-12));
  CHECK(s.steps == plain.steps);
}

TEST_CASE("bad serving input gets one line", "[analyzer][serving]") {
  const ModelSpec m = small_model();
  const StepCost cost(m, gpu(), bf16(), generic_profile(false), 1);
  CHECK_THROWS_AS(poisson_requests(10, 0, 100, 10, 1), InputError);
  CHECK_THROWS_WITH(simulate(m, bf16(), {{0, 4000, 4000}}, policy(1e6), cost, {}),
                    Catch::Matchers::Contains("does not fit in the KV memory"));
  CHECK_THROWS_WITH(simulate(m, bf16(), {{0, 100, 10}}, policy(-5), cost, {}),
                    Catch::Matchers::Contains("no memory is left for the KV cache"));
}

TEST_CASE("a pipeline step passes every stage: the one-stage step plus pp - 1 hand-offs of the hidden state", "[analyzer][serving]") {
  const ModelSpec m = small_model();
  ChipSpec c = gpu();
  c.scaleup_bandwidth_bytes_per_s = 400e9;  // per direction 200 GB/s
  const RuntimeProfile prof = generic_profile(false);
  const StepCost one(m, c, bf16(), prof, 1), four(m, c, bf16(), prof, 1, 4);
  const std::vector<StepSlice> step = {{1, 700}, {1, 90}, {64, 0}};  // 66 tokens
  // Each hand-off: the profile's collective latency plus 66 tokens x 1024 hidden x 2 bytes over the link at the
  // profile's bus-bandwidth fraction.
  const double handoff = prof.collective_latency_s + 66.0 * 1024 * 2 / (200e9 * prof.bus_bandwidth_fraction);
  CHECK(four.seconds(step) == Approx(one.seconds(step) + 3 * handoff).epsilon(1e-9));
  CHECK_THROWS_AS(StepCost(m, gpu(), bf16(), prof, 1, 2), InputError);  // no link on the card
}

namespace {
// The plan tests' load: `requests` requests of 512 prompt and 32 output tokens at `rate` per second, p99 targets
// TTFT 50 ms and TPOT 10 ms, up to 16 devices, prefill chunks of 2048 tokens.
PlanOptions plan_load(double rate, int64_t requests) {
  PlanOptions o;
  o.rate = rate;
  o.prompt = 512;
  o.output = 32;
  o.slo_ttft_p99_s = 0.05;
  o.slo_tpot_p99_s = 0.01;
  o.max_devices = 16;
  o.requests = requests;
  o.token_budgets = {2048};
  return o;
}
}  // namespace

TEST_CASE("plan: the fewest replicas that meet both p99 targets, checked against simulate itself", "[analyzer][serving][plan]") {
  const ModelSpec m = small_model();
  ChipSpec c = gpu();
  c.usd_per_hour = 2.0;
  c.tdp_watts = 500;
  PlanOptions o = plan_load(3000, 300);
  o.max_seqs = {64, 256};
  const RuntimeProfile prof = generic_profile(false);
  const PlanResult r = plan_deployments(m, bf16(), {c}, prof, o);
  // The toy card states no interconnect: one family only (tp1 pp1, aggregated), no tp, pp or KV transfer.
  REQUIRE(r.feasible.size() == 1);
  CHECK(r.rejected.empty());
  const PlanCandidate& best = r.feasible.front();
  CHECK(best.family() == "gpu tp1 pp1");
  CHECK(best.devices == best.serve.replicas);
  CHECK(best.usd_per_hour == Approx(2.0 * static_cast<double>(best.devices)));
  // $/Mtok: $/hour over the output tokens served per hour; J/token: TDP x devices over output tokens per second.
  CHECK(best.usd_per_mtok_output == Approx(best.usd_per_hour / (o.rate * 32 * 3600) * 1e6));
  CHECK(best.joules_per_output_token == Approx(500.0 * static_cast<double>(best.devices) / (o.rate * 32)));
  CHECK(best.pareto);
  // Two caps x one chunk, each replica count 1..16 covered.
  CHECK(r.configurations == 2 * 16);
  CHECK(r.simulations >= 2);
  // The same check by hand, at the setting chosen: `replicas` meets the targets, one fewer does not, and the
  // other cap does not meet them with one fewer either.
  auto meets = [&](int64_t seqs, int64_t replicas) {
    const SchedulerPolicy pol = serving_policy(m, c, bf16(), prof, 1, seqs, 2048, o.block_tokens);
    const StepCost cost(m, c, bf16(), prof, 1);
    const auto s = simulate(m, bf16(), poisson_requests(o.requests, o.rate / static_cast<double>(replicas), o.prompt, o.output, o.seed), pol, cost, {});
    return s.ttft_s.p99 <= o.slo_ttft_p99_s && s.tpot_s.p99 <= o.slo_tpot_p99_s;
  };
  CHECK(meets(best.serve.max_seqs, best.serve.replicas));
  REQUIRE(best.serve.replicas > 1);  // the load needs several replicas, so one fewer must miss
  CHECK_FALSE(meets(best.serve.max_seqs, best.serve.replicas - 1));
  CHECK_FALSE(meets(best.serve.max_seqs == 64 ? 256 : 64, best.serve.replicas - 1));
  // Targets no deployment can meet: the family is rejected with its reason and how far its nearest misses.
  o.slo_ttft_p99_s = 1e-6;
  const PlanResult none = plan_deployments(m, bf16(), {c}, prof, o);
  CHECK(none.feasible.empty());
  REQUIRE(none.rejected.size() == 1);
  CHECK(none.rejected.front().reason == "TTFT");
  CHECK(none.rejected.front().miss > 1);
  // Bad lists: one line.
  o.tp = {0};
  CHECK_THROWS_AS(plan_deployments(m, bf16(), {c}, prof, o), InputError);
}

TEST_CASE("plan: disaggregated pools each meet their own target; pipeline replicas are searched", "[analyzer][serving][plan]") {
  const ModelSpec m = small_model();
  ChipSpec c = gpu();
  c.usd_per_hour = 2.0;
  c.scaleup_bandwidth_bytes_per_s = 400e9;
  c.scaleout_bandwidth_bytes_per_s = 50e9;
  PlanOptions o = plan_load(2000, 200);
  o.tp = {1, 2};
  o.pp = {1, 2};
  o.max_seqs = {64};
  const RuntimeProfile prof = generic_profile(false);
  const PlanResult r = plan_deployments(m, bf16(), {c}, prof, o);
  std::map<std::string, PlanCandidate> by;
  for (const auto& x : r.feasible) by[x.family()] = x;
  for (const auto& x : r.rejected) INFO(x.family << ": " << x.detail);
  // Aggregated tp1/tp2 x pp1/pp2, and disaggregated decode tp1/tp2.
  CHECK(by.size() + r.rejected.size() == 6);
  REQUIRE(by.count("gpu tp1 pp2") == 1);
  CHECK(by["gpu tp1 pp2"].devices == 2 * by["gpu tp1 pp2"].serve.replicas);
  REQUIRE(by.count("gpu disaggregated prefill tp1 decode tp1") == 1);
  const PlanCandidate d = by["gpu disaggregated prefill tp1 decode tp1"];
  CHECK(d.devices == d.serve.devices() + d.decode.devices());
  // The KV transfer: 512 tokens x 2 (K, V) x 2 KV heads x 128 x 8 layers x 2 bytes over the 50 GB/s scale-out link.
  CHECK(d.kv_transfer_s == Approx(512.0 * 2 * 2 * 128 * 8 * 2 / 50e9));
  // Each pool checked by hand at its own size: prefill-only requests meet TTFT (with the transfer); prefilled
  // decode-only requests meet TPOT, and one decode replica fewer does not.
  const SchedulerPolicy pp = serving_policy(m, c, bf16(), prof, 1, 0, d.serve.token_budget, o.block_tokens);
  const StepCost cost(m, c, bf16(), prof, 1);
  const auto pre = simulate(m, bf16(), poisson_requests(o.requests, o.rate / double(d.serve.replicas), o.prompt, 1, o.seed), pp, cost, {});
  CHECK(pre.ttft_s.p99 + d.kv_transfer_s <= o.slo_ttft_p99_s);
  CHECK(d.ttft_p99_s == Approx(pre.ttft_s.p99 + d.kv_transfer_s));
  const SchedulerPolicy dp = serving_policy(m, c, bf16(), prof, 1, d.decode.max_seqs, d.decode.token_budget, o.block_tokens);
  auto decode = [&](int64_t replicas) {
    auto reqs = poisson_requests(o.requests, o.rate / double(replicas), o.prompt, o.output, o.seed);
    for (auto& q : reqs) q.prefilled = true;
    return simulate(m, bf16(), reqs, dp, cost, {});
  };
  CHECK(decode(d.decode.replicas).tpot_s.p99 <= o.slo_tpot_p99_s);
  CHECK(d.tpot_p99_s == Approx(decode(d.decode.replicas).tpot_s.p99));
  if (d.decode.replicas > 1) CHECK(decode(d.decode.replicas - 1).tpot_s.p99 > o.slo_tpot_p99_s);
  // Prefilled requests skip their prefill: a lone one's first decode step is at context 512, and no step
  // carries a prefill chunk, so its TPOT is that of decodes alone.
  auto one = poisson_requests(1, 1.0, 512, 5, 1);
  one[0].prefilled = true;
  double steps = 0;
  for (int64_t k = 0; k < 4; ++k) steps += cost.seconds({{1, 512 + k}});
  CHECK(simulate(m, bf16(), one, dp, cost, {}).e2e_each_s[0] == Approx(steps).epsilon(1e-12));
}

TEST_CASE("a calibrated CPU's mixed step prices every slice's attention rows, decodes' included", "[analyzer][serving]") {
  const ModelSpec m = small_model();  // 8 layers, 8 query heads of 128
  ChipSpec c = gpu();
  c.id = "cpu";
  c.kind = "cpu";
  REQUIRE(c.measured.set("attention_f32_bytes_per_s", 1e15));  // the KV reads never bind here
  REQUIRE(c.measured.set("attention_prefill_f32_flops_per_s", 80e9));
  REQUIRE(c.measured.set("attention_prefill_f32_marginal_flops_per_s", 80e9));
  RuntimeProfile prof = generic_profile(true);
  prof.use_calibration = true;
  PrecisionPlan p;
  p.weights = "fp32";
  p.kv = "fp32";
  const std::vector<StepSlice> slices = {{64, 0}, {64, 0}, {1, 40}};
  const double without = StepCost(m, c, p, prof, 1).seconds(slices);
  REQUIRE(c.measured.set("overhead_attention_row_s", 1e-7));
  const double with = StepCost(m, c, p, prof, 1).seconds(slices);
  // (64 + 64 + 1) tokens x 8 heads x 8 layers = 8,256 rows at 0.1 µs: 0.8256 ms on top.
  CHECK(with - without == Approx(8256 * 1e-7).epsilon(1e-6));
}
