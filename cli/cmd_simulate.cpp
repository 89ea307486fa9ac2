// rooftop simulate: a load (Poisson rate, N concurrent clients, or a trace) served with continuous batching
// on the analyzer's step costs: latency percentiles, throughput, goodput under SLOs, KV occupancy, $/Mtok.
#include <nlohmann/json.hpp>

#include <cmath>
#include <sstream>

#include "base/suggest.h"
#include "analyzer/serving.h"
#include "base/files.h"
#include "base/limits.h"
#include "cli/common.h"
#include "cli/serving_bench.h"
#include "reports/serving_report.h"
#include "reports/table.h"
#include "reports/units.h"

namespace rooftop::cli {

std::vector<ServingRequest> read_trace(const std::string& path) {
  std::istringstream in(read_text_file(path, "trace"));
  std::string line;
  if (!std::getline(in, line)) throw InputError(path + ": empty trace; expected a CSV header arrival_s,prompt_tokens,output_tokens");
  auto split = [](const std::string& l) {
    std::vector<std::string> cells;
    std::stringstream ss(l);
    std::string c;
    while (std::getline(ss, c, ',')) {
      while (!c.empty() && (c.back() == '\r' || c.back() == ' ')) c.pop_back();
      while (!c.empty() && c.front() == ' ') c.erase(c.begin());
      cells.push_back(c);
    }
    return cells;
  };
  const auto header = split(line);
  auto column = [&](const char* name) {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    throw InputError(path + ": the header has no '" + name + "' column; expected arrival_s,prompt_tokens,output_tokens");
  };
  const size_t ca = column("arrival_s"), cp = column("prompt_tokens"), co = column("output_tokens");
  // Optional: prefix_id and prefix_tokens, a shared prompt prefix (empty cells: none).
  auto optional_column = [&](const char* name) {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return static_cast<ptrdiff_t>(i);
    return ptrdiff_t(-1);
  };
  const ptrdiff_t cpi = optional_column("prefix_id"), cpt = optional_column("prefix_tokens");
  if ((cpi < 0) != (cpt < 0)) throw InputError(path + ": prefix_id and prefix_tokens go together; the header has only one of them");
  std::vector<ServingRequest> r;
  int64_t row = 1;
  while (std::getline(in, line)) {
    ++row;
    if (line.find_first_not_of(" \r") == std::string::npos) continue;
    const auto cells = split(line);
    auto bad = [&](const std::string& what) { throw InputError(path + ":" + std::to_string(row) + ": " + what); };
    if (cells.size() <= std::max({ca, cp, co})) bad("too few columns");
    ServingRequest q;
    try {
      size_t used = 0;
      q.arrival_s = std::stod(cells[ca], &used);
      if (used != cells[ca].size() || !std::isfinite(q.arrival_s) || q.arrival_s < 0) throw std::invalid_argument("");
      q.prompt = std::stoll(cells[cp], &used);
      if (used != cells[cp].size()) throw std::invalid_argument("");
      q.output = std::stoll(cells[co], &used);
      if (used != cells[co].size()) throw std::invalid_argument("");
    } catch (const std::exception&) {
      bad("expected arrival_s >= 0 (seconds) and whole prompt_tokens and output_tokens, got '" + line + "'");
    }
    if (q.prompt < 1 || q.prompt > limits::kContext || q.output < 1 || q.output > limits::kContext)
      bad("prompt_tokens and output_tokens must be 1 to " + std::to_string(limits::kContext));
    if (cpi >= 0 && size_t(std::max(cpi, cpt)) < cells.size() && !cells[size_t(cpi)].empty()) {
      try {
        size_t used = 0;
        q.prefix_id = std::stoll(cells[size_t(cpi)], &used);
        if (used != cells[size_t(cpi)].size() || q.prefix_id < 0) throw std::invalid_argument("");
        q.prefix_tokens = std::stoll(cells[size_t(cpt)], &used);
        if (used != cells[size_t(cpt)].size()) throw std::invalid_argument("");
      } catch (const std::exception&) {
        bad("expected a whole prefix_id >= 0 and prefix_tokens, got '" + line + "'");
      }
      if (q.prefix_tokens < 1 || q.prefix_tokens > q.prompt) bad("prefix_tokens must be 1 to the prompt's " + std::to_string(q.prompt) + " tokens");
    }
    if (!r.empty() && q.arrival_s < r.back().arrival_s)
      bad("arrival_s " + cells[ca] + " is earlier than the row before; expected the requests in arrival order");
    r.push_back(q);
    if (r.size() > 1'000'000) bad("more than 1,000,000 requests");
  }
  if (r.empty()) throw InputError(path + ": no requests after the header");
  return r;
}

std::vector<ServingRequest> LoadCli::requests_at(double rate) const {
  if (!trace.empty()) return read_trace(trace);
  if (rate > 0) return poisson_requests(requests, rate, prompt, output, seed);
  return std::vector<ServingRequest>(static_cast<size_t>(requests), ServingRequest{0, prompt, output});
}

void add_load_options(CLI::App& cmd, LoadCli& l, const LoadLimits& most, const std::string& trace_help,
                      const std::string& seed_help) {
  cmd.add_option("--concurrency", l.concurrency, "a closed loop of N clients, each sending its next request when one ends")
      ->check(in_range(1, most.concurrency));
  cmd.add_option("--trace", l.trace, trace_help);
  cmd.add_option("--requests", l.requests, "requests to serve (rate and concurrency loads)")->capture_default_str()->check(in_range(1, most.requests));
  cmd.add_option("--prompt-tokens", l.prompt, "prompt length of each request")->capture_default_str()->check(in_range(1, most.tokens));
  cmd.add_option("--output-tokens", l.output, "tokens generated per request")->capture_default_str()->check(in_range(1, most.tokens));
  add_seed_option(cmd, l.seed, seed_help);
}

void check_one_load(const CLI::App& cmd, const LoadCli& l) {
  if (int(cmd.count("--rate") > 0) + int(cmd.count("--concurrency") > 0) + int(!l.trace.empty()) != 1)
    throw InputError("give one load: --rate R (Poisson), --concurrency N (closed loop) or --trace FILE");
}

namespace {

struct SimulateCli {
  ModelOptions m;
  OutputOptions out;
  std::string rates;
  double slo_ttft = 0, slo_tpot = 0;
  double memory_fraction = 0;  // 0: the runtime's
  LoadCli load{200, 1024, 256};  // requests, prompt and output tokens
  int64_t tp = 1, max_seqs = 0, budget = 0, block = 16;
  CLI::App* cmd = nullptr;
  bool given(const char* name) const { return cmd->count(name) > 0; }
};


nlohmann::json percentiles_json(const Percentiles& p) { return {{"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}, {"mean", p.mean}}; }

}  // namespace

void register_simulate(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<SimulateCli>();
  auto* cmd = app.add_subcommand("simulate",
                                 "serve a load with continuous batching on the analyzer's step costs: TTFT/TPOT/latency "
                                 "percentiles, throughput, goodput, KV occupancy, $/Mtok\n"
                                 "Example: rooftop simulate --model llama-3.1-8b --hw h100-sxm --runtime vllm --rate 5 --requests 500");
  o->cmd = cmd;
  add_model_options(*cmd, o->m);
  cmd->add_option("--rate", o->rates, "Poisson arrivals, requests per second; a list (1,2,4,8) sweeps the rates");
  add_load_options(*cmd, o->load, {1e6, 1e6, double(limits::kContext)},
                   "CSV of requests: arrival_s,prompt_tokens,output_tokens (with that header), optionally "
                   "prefix_id,prefix_tokens (a shared prompt prefix)",
                   "random seed of the arrivals");
  cmd->add_option("--tp", o->tp, "tensor-parallel devices")->capture_default_str()->check(in_range(1, double(limits::kDevices)));
  cmd->add_option("--max-seqs", o->max_seqs, "sequences per step (default: the runtime's server default on the chip)")->check(in_range(1, 1e6));
  cmd->add_option("--token-budget", o->budget, "tokens per step, decodes and prefill chunks together (default: the runtime's server default on the chip, else 8192)")->check(in_range(1, 1e7));
  cmd->add_option("--block-tokens", o->block, "KV page size in tokens")->capture_default_str()->check(in_range(1, 1e5));
  cmd->add_option("--memory-fraction", o->memory_fraction,
                  "share of each device's memory for weights, activations and KV pages (vLLM's --gpu-memory-utilization; default: the runtime's)")
      ->check(in_range(0.01, 1));
  cmd->add_option("--slo-ttft", o->slo_ttft, "time-to-first-token target, seconds (goodput)")->check(in_range(1e-9, 1e6));
  cmd->add_option("--slo-tpot", o->slo_tpot, "time-per-output-token target, seconds (goodput)")->check(in_range(1e-9, 1e6));
  add_output_options(*cmd, o->out, {"table", "json", "md", "csv", "html"});
  cmd->callback([&ctx, o] {
    ctx.action = [&ctx, o] {
      check_one_load(*o->cmd, o->load);
      ModelSpec model = resolve_model(ctx, o->m.model);
      ChipSpec chip = resolve_chip(ctx, o->m.hw);
      PrecisionPlan plan = resolve_plan(o->m);
      const bool cpu = chip.kind == "cpu" || chip.kind == "soc";
      RuntimeProfile prof = resolve_runtime(o->m).value_or(generic_profile(cpu));
      if (o->memory_fraction > 0) prof.memory_fraction = o->memory_fraction;

      std::vector<double> rates;
      if (o->given("--rate")) {
        std::stringstream ss(o->rates);
        std::string item;
        while (std::getline(ss, item, ',')) {
          double v = 0;
          size_t used = 0;
          try {
            v = std::stod(item, &used);
          } catch (const std::exception&) {
            used = 0;
          }
          if (used == 0 || used != item.size() || !(v > 0) || v > 1e6)
            throw InputError("--rate: '" + item + "' is not a rate; expected requests per second in (0, 1e6], e.g. 2 or 1,2,4,8");
          rates.push_back(v);
          if (rates.size() > 64) throw InputError("--rate: at most 64 rates in a sweep");
        }
        if (rates.empty()) throw InputError("--rate: expected requests per second, e.g. 2 or 1,2,4,8");
      }
      SimulationOptions so;
      so.slo_ttft_s = o->slo_ttft;
      so.slo_tpot_s = o->slo_tpot;
      if (o->given("--concurrency")) so.concurrency = o->load.concurrency;

      // Memory: the runtime gives memory_fraction of each device to weights, activations and the KV pages.
      const SchedulerPolicy pol = serving_policy(model, chip, plan, prof, o->tp, o->max_seqs, o->budget, o->block);
      const StepCost cost(model, chip, plan, prof, o->tp);

      std::vector<SimulationResult> runs;
      for (double rate : rates.empty() ? std::vector<double>{0} : rates)
        runs.push_back(simulate(model, plan, o->load.requests_at(rate), pol, cost, so));
      const SimulationResult& r = runs.front();
      const double devices = static_cast<double>(o->tp);
      const double usd_h = chip.usd_per_hour ? *chip.usd_per_hour * devices : 0;
      const double watts = chip.tdp_watts ? *chip.tdp_watts * devices : 0;
      const double usd_mtok = usd_h > 0 && r.output_tokens > 0 ? usd_h * r.duration_s / 3600.0 / r.output_tokens * 1e6 : 0;
      const double j_tok = watts > 0 && r.output_tokens > 0 ? watts * r.duration_s / r.output_tokens : 0;
      std::string load = !o->load.trace.empty() ? "trace " + o->load.trace
                         : o->given("--rate") ? "Poisson " + o->rates + " req/s, seed " + std::to_string(o->load.seed)
                                              : std::to_string(o->load.concurrency) + " concurrent clients";
      std::vector<std::string> policies = {
          "continuous batching, FCFS; at most " + std::to_string(pol.max_seqs) + " sequences and " +
              std::to_string(pol.token_budget) + " tokens per step (decodes first, then prefill chunks)",
          "paged KV: " + std::to_string(pol.block_tokens) + "-token pages in " + reports::bytes(pol.kv_budget_bytes) +
              " per device (" + reports::sig(prof.memory_fraction) + " of memory, less weights and activations); when full the "
              "newest sequence is preempted and recomputed",
          "prefix caching: the whole pages of a trace's shared prefixes (prefix_id, prefix_tokens) are cached and skipped "
          "by later requests; unused ones evicted least recently used (" + std::to_string(r.prefix_hit_tokens) + " prompt tokens served from the cache)",
          "step cost: the analyzer's " + prof.id + " profile on each mixed step"};

      if (o->out.format == "json") {
        nlohmann::json j{{"model", model.id}, {"hw", chip.id}, {"devices", o->tp}, {"runtime", prof.id}, {"load", load},
                         {"requests", r.requests}, {"max_seqs", pol.max_seqs}, {"token_budget", pol.token_budget}, {"duration_s", r.duration_s}, {"requests_per_s", r.requests_per_s},
                         {"output_tokens_per_s", r.output_tokens_per_s}, {"ttft_s", percentiles_json(r.ttft_s)},
                         {"tpot_s", percentiles_json(r.tpot_s)}, {"e2e_s", percentiles_json(r.e2e_s)},
                         {"goodput_requests_per_s", r.goodput_requests_per_s}, {"slo_attained", r.slo_attained},
                         {"slo_ttft_s", o->slo_ttft}, {"slo_tpot_s", o->slo_tpot}, {"preemptions", r.preemptions}, {"prefix_hit_tokens", r.prefix_hit_tokens},
                         {"steps", r.steps}, {"mean_batch", r.mean_batch}, {"peak_kv_fraction", r.peak_kv_fraction},
                         {"mean_kv_fraction", r.mean_kv_fraction}, {"kv_budget_bytes_per_device", pol.kv_budget_bytes},
                         {"usd_per_mtok_output", usd_mtok}, {"joules_per_output_token", j_tok}, {"policies", policies}};
        nlohmann::json tl = nlohmann::json::array();
        for (const auto& [t, v] : r.kv_timeline) tl.push_back({t, v});
        j["kv_timeline"] = tl;
        if (runs.size() > 1) {
          nlohmann::json sweep = nlohmann::json::array();
          for (size_t i = 0; i < runs.size(); ++i)
            sweep.push_back({{"rate", rates[i]}, {"requests_per_s", runs[i].requests_per_s},
                             {"output_tokens_per_s", runs[i].output_tokens_per_s}, {"ttft_s", percentiles_json(runs[i].ttft_s)},
                             {"tpot_s", percentiles_json(runs[i].tpot_s)}, {"e2e_s", percentiles_json(runs[i].e2e_s)},
                             {"goodput_requests_per_s", runs[i].goodput_requests_per_s}, {"slo_attained", runs[i].slo_attained},
                             {"peak_kv_fraction", runs[i].peak_kv_fraction}, {"preemptions", runs[i].preemptions}});
          j["sweep"] = sweep;
        }
        emit(ctx, o->out, j.dump(2) + "\n");
        return kExitOk;
      }
      if (runs.size() > 1) {
        reports::Table t;
        t.title = "simulate: " + model.id + " on " + chip.id + (o->tp > 1 ? " x" + std::to_string(o->tp) : "") + ", " +
                  plan.describe() + ", runtime " + prof.id + ", Poisson arrivals, " + std::to_string(o->load.requests) +
                  " requests of " + std::to_string(o->load.prompt) + " + " + std::to_string(o->load.output) + " tokens per rate";
        t.headers = {"rate req/s", "served req/s", "tok/s out", "TTFT p50", "TTFT p99", "TPOT p50", "TPOT p99", "goodput req/s", "KV peak", "preempted"};
        for (size_t i = 0; i < runs.size(); ++i) {
          const auto& x = runs[i];
          t.rows.push_back({reports::sig(rates[i]), reports::sig(x.requests_per_s), reports::sig(x.output_tokens_per_s),
                            reports::seconds(x.ttft_s.p50), reports::seconds(x.ttft_s.p99), reports::seconds(x.tpot_s.p50),
                            reports::seconds(x.tpot_s.p99), reports::sig(x.goodput_requests_per_s), reports::sig(100 * x.peak_kv_fraction) + "%",
                            std::to_string(x.preemptions)});
        }
        t.footnotes.push_back("goodput: requests per second within --slo-ttft and --slo-tpot (all requests when none is given)");
        for (const auto& p : policies) t.footnotes.push_back("policy: " + p);
        emit(ctx, o->out, o->out.format == "html" ? reports::simulate_html(t.title, runs, rates, t) : reports::render({t}, o->out.format));
        return kExitOk;
      }
      reports::Table t;
      t.title = "simulate: " + model.id + " on " + chip.id + (o->tp > 1 ? " x" + std::to_string(o->tp) : "") + ", " + plan.describe() +
                ", runtime " + prof.id + ", " + load;
      t.headers = {"quantity", "p50", "p90", "p99"};
      auto lat = [&](const char* name, const Percentiles& p) {
        t.rows.push_back({name, reports::seconds(p.p50), reports::seconds(p.p90), reports::seconds(p.p99)});
      };
      lat("TTFT", r.ttft_s);
      lat("TPOT", r.tpot_s);
      lat("end to end", r.e2e_s);
      auto row = [&](const std::string& q, const std::string& v) { t.rows.push_back({q, v, "", ""}); };
      row("throughput", reports::sig(r.requests_per_s) + " req/s, " + reports::sig(r.output_tokens_per_s) + " tok/s out");
      if (o->slo_ttft > 0 || o->slo_tpot > 0)
        row("goodput", reports::sig(r.goodput_requests_per_s) + " req/s (" + reports::sig(100 * r.slo_attained) + "% within SLO)");
      row("requests", std::to_string(r.requests) + " in " + reports::seconds(r.duration_s));
      row("batch", reports::sig(r.mean_batch) + " sequences per step on average, " + std::to_string(r.steps) + " steps");
      row("KV pages", reports::sig(100 * r.peak_kv_fraction) + "% peak, " + reports::sig(100 * r.mean_kv_fraction) + "% mean");
      row("preemptions", std::to_string(r.preemptions));
      if (usd_mtok > 0) row("$/Mtok out", reports::usd(usd_mtok) + " at this load");
      if (j_tok > 0) row("J/token out", reports::sig(j_tok) + " (TDP x devices)");
      for (const auto& p : policies) t.footnotes.push_back("policy: " + p);
      emit(ctx, o->out, o->out.format == "html" ? reports::simulate_html(t.title, runs, rates, t) : reports::render({t}, o->out.format));
      return kExitOk;
    };
  });
}

}  // namespace rooftop::cli
