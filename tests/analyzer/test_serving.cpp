// The serving simulator: single requests against the step costs summed by hand, a one-at-a-time queue
// against the M/D/1 waiting time (Pollaczek-Khinchine), determinism, preemption under a small KV budget.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "analyzer/errors.h"
#include "analyzer/serving.h"
#include "seed_models.h"

using namespace rooftop;

namespace {
ModelSpec small_model() { return test::dense_spec("small", 32000, 1024, 8, 8, 2, 128, 4096); }
ChipSpec gpu() {
  ChipSpec c;
  c.id = "gpu";
  c.kind = "gpu";
  c.memory_bytes = 24e9;
  c.memory_bandwidth_bytes_per_s = 1e12;
  c.peak_flops["bf16"] = 100e12;
  c.peak_flops["fp32"] = 50e12;
  return c;
}
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

TEST_CASE("plan: the fewest replicas that meet both p99 targets, checked against simulate itself", "[analyzer][serving][plan]") {
  const ModelSpec m = small_model();
  ChipSpec c = gpu();
  c.usd_per_hour = 2.0;
  PlanOptions o;
  o.rate = 3000;
  o.prompt = 512;
  o.output = 32;
  o.slo_ttft_p99_s = 0.05;
  o.slo_tpot_p99_s = 0.01;
  o.max_devices = 16;
  o.requests = 300;
  const RuntimeProfile prof = generic_profile(false);
  const auto found = plan_deployments(m, bf16(), {c}, prof, o);
  REQUIRE_FALSE(found.empty());
  const PlanCandidate& best = found.front();
  REQUIRE(best.replicas > 0);
  CHECK(best.tp == 1);  // the toy chip card states no interconnect: tensor parallelism is not tried
  CHECK(best.devices == best.replicas);
  CHECK(best.usd_per_hour == Approx(2.0 * static_cast<double>(best.devices)));
  // $/Mtok: $/hour over the output tokens served per hour.
  CHECK(best.usd_per_mtok_output == Approx(best.usd_per_hour / (o.rate * 32 * 3600) * 1e6));
  // The same check by hand: `replicas` meets the targets, one fewer does not.
  const SchedulerPolicy pol = serving_policy(m, c, bf16(), prof, 1, 0, o.token_budget, o.block_tokens);
  const StepCost cost(m, c, bf16(), prof, 1);
  auto meets = [&](int64_t r) {
    const auto s = simulate(m, bf16(), poisson_requests(o.requests, o.rate / static_cast<double>(r), o.prompt, o.output, o.seed), pol, cost, {});
    return s.ttft_s.p99 <= o.slo_ttft_p99_s && s.tpot_s.p99 <= o.slo_tpot_p99_s;
  };
  CHECK(meets(best.replicas));
  REQUIRE(best.replicas > 1);  // the load needs several replicas, so one fewer must miss
  CHECK_FALSE(meets(best.replicas - 1));
  // Targets no deployment can meet: reported, not hidden.
  o.slo_ttft_p99_s = 1e-6;
  const auto none = plan_deployments(m, bf16(), {c}, prof, o);
  REQUIRE(none.size() == 1);
  CHECK(none.front().replicas == 0);
  CHECK(none.front().note.find("misses the targets") != std::string::npos);
}
