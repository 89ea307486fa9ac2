// rooftop bench-serve: an in-process load generator. The engine serves a load (Poisson rate, N concurrent
// clients, or a trace) with the shared scheduler on the wall clock; the same requests are then simulated on
// this CPU's calibrated step costs, and both sets of percentiles are printed side by side.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/serving.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "cli/refresh.h"
#include "cli/serving_bench.h"
#include "engine/model.h"
#include "engine/model_path.h"
#include "engine/serve.h"
#include "kernels/cpu/thread_pool.h"
#include "models/models.h"
#include "reports/table.h"
#include "reports/units.h"

namespace rooftop::cli {

namespace {

// The analyzer's clock for a load the engine serves: the file's own tensors, fp32 KV as the engine keeps it, this
// CPU's calibrated kernel rates (the `rooftop` runtime), the engine's scheduler limits and a page budget of its slots'
// cache (`kv_capacity` positions per slot).
struct CpuSimulation {
  ModelSpec spec;
  PrecisionPlan plan;
  bool calibrated = false;
  std::optional<StepCost> cost;
  SchedulerPolicy pol;

  SimulationResult run(std::vector<ServingRequest> requests, const engine::ServeLoadOptions& so) const {
    SimulationOptions sim;
    sim.concurrency = so.concurrency;
    // The engine shares no KV between sequences: a trace's shared prefixes are fed in full on both clocks.
    for (auto& r : requests) r.prefix_id = -1, r.prefix_tokens = 0;
    return simulate(spec, plan, requests, pol, *cost, sim);
  }
};

CpuSimulation cpu_simulation(const ChipSpec& chip, const std::string& path, const engine::LlamaModel& model,
                             const engine::ServeLoadOptions& so, int64_t kv_capacity) {
  CpuSimulation s;
  s.spec = models::from_gguf(path);
  s.plan = models::gguf_precision_plan(model.file, "fp32");
  s.calibrated = !chip.measured.empty();
  ModelOptions mo;
  mo.runtime = "rooftop";
  s.cost.emplace(s.spec, chip, s.plan, *resolve_runtime(mo), 1);
  s.pol.max_seqs = so.limits.max_seqs;
  s.pol.token_budget = so.limits.token_budget;
  s.pol.block_tokens = so.limits.block_tokens;
  s.pol.kv_budget_bytes = kv_footprint(s.spec, s.plan, s.pol)(kv_capacity) * static_cast<double>(so.limits.max_seqs);
  return s;
}

}  // namespace

ServingComparison bench_and_simulate(Context& ctx, const std::string& gguf, const std::vector<ServingRequest>& requests,
                                     const engine::ServeLoadOptions& so, int threads, bool refresh) {
  const std::string path = engine::resolve_model(gguf);
  engine::LlamaModel model = engine::load_llama(path);
  model.file.populate();  // weights paged in before the clock starts
  kernels::ThreadPool pool(threads);
  ServingComparison c;
  c.model_path = path;
  c.requests = requests.size();
  c.engine = engine::serve_load(model, pool, requests, so);  // ServeLoad feeds every prompt token (no prefix cache)
  c.measured = summarize_serving(requests, c.engine.ttft_s, c.engine.e2e_s, c.engine.duration_s, 0, 0);
  c.measured.steps = c.engine.steps;
  c.measured.mean_batch = c.engine.mean_batch;
  c.measured.preemptions = c.engine.preemptions;

  // The same requests on the analyzer's clock, with the file's formats re-measured right after the run if asked.
  ChipSpec chip = resolve_chip(ctx, "cpu");
  if (refresh && !chip.measured.empty()) {
    chip = refreshed_for_model(chip, model, threads, c.refresh_note);
    c.refreshed = c.refresh_note.empty();
  }
  const CpuSimulation sim = cpu_simulation(chip, path, model, so, c.engine.kv_capacity);
  c.calibrated = sim.calibrated;
  c.simulated = sim.run(requests, so);
  for (const engine::StepTiming& st : c.engine.step_log) {
    std::vector<StepSlice> slices;
    bool decodes = true;
    for (const auto& [tokens, context] : st.slices) {
      slices.push_back({tokens, context});
      decodes = decodes && tokens == 1;
    }
    StepCostCheck& k = decodes ? c.decode_steps : c.mixed_steps;
    c.priced_s.push_back(sim.cost->seconds(slices));
    ++k.steps;
    k.forward_s += st.forward_s;
    k.priced_s += c.priced_s.back();
    k.outside_s += st.step_s - st.forward_s;
  }
  return c;
}

namespace {

// |simulated / measured - 1| as a signed percentage.
std::string error_pct(double simulated, double measured) {
  if (!(measured > 0)) return "-";
  return fmt::format("{:+.0f}%", 100.0 * (simulated / measured - 1.0));
}

}  // namespace

reports::Table serving_comparison_table(const std::string& title, const std::vector<std::string>& loads,
                                        const std::vector<ServingComparison>& runs) {
  reports::Table t;
  t.title = title;
  t.headers = {"load", "quantity", "measured", "simulated", "error"};
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& m = runs[i].measured;
    const auto& s = runs[i].simulated;
    bool first = true;
    auto row = [&](const char* q, double mv, double sv, bool time) {
      t.rows.push_back({first ? loads[i] : "", q,
                        time ? reports::seconds(mv) : reports::sig(mv), time ? reports::seconds(sv) : reports::sig(sv), error_pct(sv, mv)});
      first = false;
    };
    row("TTFT p50", m.ttft_s.p50, s.ttft_s.p50, true);
    row("TTFT p90", m.ttft_s.p90, s.ttft_s.p90, true);
    row("TPOT p50", m.tpot_s.p50, s.tpot_s.p50, true);
    row("TPOT p90", m.tpot_s.p90, s.tpot_s.p90, true);
    row("tok/s out", m.output_tokens_per_s, s.output_tokens_per_s, false);
    row("sequences per step", m.mean_batch, s.mean_batch, false);
    // The engine's own steps priced one by one: a step-cost error shows here, a scheduling difference does not.
    for (const auto& [kind, k] : {std::pair{"decode steps", &runs[i].decode_steps}, std::pair{"mixed steps", &runs[i].mixed_steps}}) {
      if (k->steps == 0) continue;
      const double n = static_cast<double>(k->steps);
      t.rows.push_back({"", fmt::format("{} ({}): forward, mean", kind, k->steps), reports::seconds(k->forward_s / n),
                        reports::seconds(k->priced_s / n), error_pct(k->priced_s, k->forward_s)});
      t.rows.push_back({"", fmt::format("{}: outside the forward, mean", kind), reports::seconds(k->outside_s / n), "0", "-"});
    }
  }
  t.footnotes.push_back("measured: the engine serving the load on the wall clock (rooftop bench-serve); simulated: rooftop simulate's "
                        "scheduler on this CPU's calibrated step costs, same requests, same limits");
  t.footnotes.push_back("decode/mixed steps: the engine's own steps, each priced by the simulator's step cost at its slices "
                        "(forward pass only); outside the forward: scheduling and sampling, which the simulator does not price");
  t.footnotes.push_back("prompts are random token ids; every request decodes exactly its output length (end-of-sequence ignored)");
  if (!runs.empty() && !runs.front().calibrated)
    t.footnotes.push_back("this CPU is not calibrated: the simulation priced the datasheet-free defaults; run rooftop calibrate first");
  return t;
}

nlohmann::json serving_comparison_json(const ServingComparison& c) {
  auto pct = [](const Percentiles& p) { return nlohmann::json{{"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}, {"mean", p.mean}}; };
  auto side = [&](const SimulationResult& r) {
    return nlohmann::json{{"duration_s", r.duration_s}, {"requests_per_s", r.requests_per_s},
                          {"output_tokens_per_s", r.output_tokens_per_s}, {"ttft_s", pct(r.ttft_s)}, {"tpot_s", pct(r.tpot_s)},
                          {"e2e_s", pct(r.e2e_s)}, {"steps", r.steps}, {"mean_batch", r.mean_batch}, {"preemptions", r.preemptions}};
  };
  auto steps = [](const StepCostCheck& k) {
    return nlohmann::json{{"steps", k.steps}, {"forward_s", k.forward_s}, {"priced_s", k.priced_s}, {"outside_forward_s", k.outside_s}};
  };
  return {{"requests", c.requests}, {"measured", side(c.measured)}, {"simulated", side(c.simulated)},
          {"step_costs", {{"decode", steps(c.decode_steps)}, {"mixed", steps(c.mixed_steps)}}},
          {"mixed_steps", c.engine.mixed_steps}, {"kv_capacity_tokens", c.engine.kv_capacity}, {"kv_bytes", c.engine.kv_bytes},
          {"calibrated", c.calibrated}};
}

// validate --serving's requests: prompt and output tokens.
constexpr int64_t kValidateServingPrompt = 64, kValidateServingOutput = 32;

int run_validate_serving(Context& ctx, const OutputOptions& out, int64_t requests, int threads, bool refresh) {
  // 64-token prompts, 32 tokens out, at most 16 sequences and 512 tokens a step. The three rates are fractions of
  // what the simulator says this CPU serves at saturation (every request sent at once): 0.15, 0.5 and 3 times it.
  // Fixed rates are light on one machine and saturating on another: a 2-core AVX-512 Xeon serves about 12 requests/s
  // of this load, a 2-core AVX2 EPYC about 6, where the 6 req/s of a fixed "medium" rate queued without bound.
  engine::ServeLoadOptions so;
  const double capacity = [&] {
    const std::string path = engine::resolve_model("");
    const engine::LlamaModel model = engine::load_llama(path);
    const CpuSimulation sim = cpu_simulation(resolve_chip(ctx, "cpu"), path, model, so, kValidateServingPrompt + kValidateServingOutput);
    // Enough requests that the burst's ramp and tail are small beside its saturated steps, whatever --requests says.
    const int64_t n = std::max<int64_t>(requests, 10 * so.limits.max_seqs);
    return sim.run(poisson_requests(n, 1e6, kValidateServingPrompt, kValidateServingOutput, 1), so).requests_per_s;
  }();
  if (!(std::isfinite(capacity) && capacity > 0)) throw InternalError("validate --serving: the simulated capacity is not a positive number");
  std::vector<double> rates;
  for (double f : {0.15, 0.5, 3.0}) rates.push_back(std::stod(fmt::format("{:.2g}", f * capacity)));
  std::vector<ServingComparison> runs;
  std::vector<std::string> loads;
  nlohmann::json j = nlohmann::json::array();
  for (double rate : rates) {
    const auto reqs = poisson_requests(requests, rate, kValidateServingPrompt, kValidateServingOutput, 1);
    runs.push_back(bench_and_simulate(ctx, "", reqs, so, threads, refresh));
    loads.push_back(fmt::format("Poisson {} req/s", reports::sig(rate)));
    nlohmann::json r = serving_comparison_json(runs.back());
    r["rate"] = rate;
    r["refreshed"] = runs.back().refreshed;
    if (!runs.back().refresh_note.empty()) r["refresh_note"] = runs.back().refresh_note;
    j.push_back(r);
  }
  if (out.format == "json") {
    emit(ctx, out, nlohmann::json{{"model_path", runs.front().model_path}, {"prompt_tokens", kValidateServingPrompt},
                                  {"output_tokens", kValidateServingOutput}, {"simulated_capacity_requests_per_s", capacity},
                                  {"max_seqs", so.limits.max_seqs}, {"token_budget", so.limits.token_budget}, {"runs", j}}.dump(2) + "\n");
    return kExitOk;
  }
  const std::string title = fmt::format("validate --serving: {} requests of {} + {} tokens per rate on {}, at most {} sequences "
                                        "and {} tokens per step; rates 0.15, 0.5 and 3 x the simulated capacity of {} req/s",
                                        requests, kValidateServingPrompt, kValidateServingOutput, runs.front().model_path,
                                        so.limits.max_seqs, so.limits.token_budget, reports::sig(capacity));
  reports::Table t = serving_comparison_table(title, loads, runs);
  for (size_t i = 0; refresh && i < runs.size(); ++i) {
    if (runs[i].refreshed || !runs[i].calibrated) continue;  // uncalibrated: the table's own footnote says so
    t.footnotes.push_back(fmt::format("{}: simulated on the stored calibration{}", loads[i],
                                      runs[i].refresh_note.empty() ? std::string() : " (re-measured figures rejected: " + runs[i].refresh_note + ")"));
  }
  if (refresh && std::all_of(runs.begin(), runs.end(), [](const auto& r) { return r.refreshed; }))
    t.footnotes.push_back("each rate simulated on this CPU's figures for the file's formats re-measured right after its run (--refresh)");
  emit(ctx, out, reports::render({t}, out.format));
  return kExitOk;
}

void register_bench_serve(CLI::App& app, Context& ctx) {
  struct BenchServeCli {
    std::string gguf, trace;
    OutputOptions out;
    double rate = 0;
    LoadCli load{100, 64, 32};  // requests, prompt and output tokens
    engine::ServeLoadOptions so;
    int threads = 0;
    CLI::App* cmd = nullptr;
  };
  auto o = std::make_shared<BenchServeCli>();
  auto* cmd = app.add_subcommand("bench-serve",
                                 "serve a load with the engine (continuous batching on the wall clock) and set the simulator's "
                                 "prediction of the same requests beside it\n"
                                 "Example: rooftop bench-serve --rate 4 --requests 100 --prompt-tokens 64 --output-tokens 32");
  o->cmd = cmd;
  add_gguf_option(*cmd, o->gguf);
  cmd->add_option("--rate", o->rate, "Poisson arrivals, requests per second")->check(in_range(1e-3, 1e4));
  add_load_options(*cmd, o->load, {4096, 100000, 32768}, "CSV of requests: arrival_s,prompt_tokens,output_tokens (with that header)",
                   "random seed of the arrivals and the prompts' token ids");
  cmd->add_option("--max-seqs", o->so.limits.max_seqs, "sequences per step (and KV slots)")->capture_default_str()->check(in_range(1, 1024));
  cmd->add_option("--token-budget", o->so.limits.token_budget, "tokens per step, decodes and prefill chunks together")->capture_default_str()->check(in_range(1, 65536));
  cmd->add_option("--block-tokens", o->so.limits.block_tokens, "KV page size in tokens (the scheduler's booking)")->capture_default_str()->check(in_range(1, 4096));
  add_threads_option(*cmd, o->threads);
  add_output_options(*cmd, o->out, {"table", "json", "md", "csv"});
  cmd->callback([&ctx, o] {
    ctx.action = [&ctx, o] {
      check_one_load(*o->cmd, o->load);
      check_threads(o->threads);
      const bool by_clients = o->cmd->count("--concurrency") > 0;
      const std::vector<ServingRequest> requests = o->load.requests_at(by_clients ? 0 : o->rate);
      const std::string load = !o->load.trace.empty() ? "trace " + o->load.trace
                               : by_clients ? fmt::format("{} clients", o->load.concurrency)
                                            : fmt::format("Poisson {} req/s", reports::sig(o->rate));
      engine::ServeLoadOptions so = o->so;
      so.seed = o->load.seed;
      if (by_clients) so.concurrency = o->load.concurrency;
      const ServingComparison c = bench_and_simulate(ctx, o->gguf, requests, so, o->threads);
      if (o->out.format == "json") {
        nlohmann::json j = serving_comparison_json(c);
        j["model_path"] = c.model_path;
        j["load"] = load;
        j["max_seqs"] = so.limits.max_seqs;
        j["token_budget"] = so.limits.token_budget;
        // Every step as run: its slices [new tokens, context before], forward time, step time, and the simulator's price.
        nlohmann::json steps = nlohmann::json::array();
        for (size_t i = 0; i < c.engine.step_log.size(); ++i) {
          const auto& st = c.engine.step_log[i];
          steps.push_back({{"slices", st.slices}, {"forward_s", st.forward_s}, {"step_s", st.step_s}, {"priced_s", c.priced_s[i]}});
        }
        j["step_log"] = steps;
        emit(ctx, o->out, j.dump(2) + "\n");
        return kExitOk;
      }
      const std::string title = fmt::format("bench-serve: {} requests on {}, at most {} sequences and {} tokens per step",
                                            c.requests, c.model_path, so.limits.max_seqs, so.limits.token_budget);
      emit(ctx, o->out, reports::render({serving_comparison_table(title, {load}, {c})}, o->out.format));
      return kExitOk;
    };
  });
}

}  // namespace rooftop::cli
