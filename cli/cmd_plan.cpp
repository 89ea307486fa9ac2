// rooftop plan: the cheapest deployments (chip, tensor and pipeline degrees, batch cap, prefill chunk,
// replicas; or a disaggregated prefill pool and decode pool) that serve a request rate within p99 targets.
#include <nlohmann/json.hpp>

#include <chrono>

#include "base/suggest.h"
#include "analyzer/plan.h"
#include "base/limits.h"
#include "cli/common.h"
#include "reports/table.h"
#include "reports/units.h"

namespace rooftop::cli {

namespace {

nlohmann::json pool_json(const PoolShape& s) {
  return {{"tp", s.tp}, {"pp", s.pp}, {"max_seqs", s.max_seqs}, {"token_budget", s.token_budget}, {"replicas", s.replicas},
          {"devices", s.devices()}};
}

nlohmann::json candidate_json(const PlanCandidate& c) {
  nlohmann::json j = {{"hw", c.hw}, {"mode", c.disaggregated ? "disaggregated" : "aggregated"}, {"family", c.family()},
                      {"devices", c.devices}, {"ttft_p99_s", c.ttft_p99_s}, {"tpot_p99_s", c.tpot_p99_s},
                      {"output_tokens_per_s_per_device", c.output_tokens_per_s_per_device}, {"usd_per_hour", c.usd_per_hour},
                      {"usd_per_mtok_output", c.usd_per_mtok_output}, {"joules_per_output_token", c.joules_per_output_token},
                      {"pareto", c.pareto}};
  if (c.disaggregated) {
    j["prefill"] = pool_json(c.serve);
    j["decode"] = pool_json(c.decode);
    j["kv_transfer_s"] = c.kv_transfer_s;
  } else {
    j["serve"] = pool_json(c.serve);
  }
  return j;
}

// "tp2 pp1, 64 seqs, 2048-token steps x 3"
std::string pool_text(const PoolShape& s) {
  return "tp" + std::to_string(s.tp) + (s.pp > 1 ? " pp" + std::to_string(s.pp) : "") + ", " + std::to_string(s.max_seqs) +
         " seqs, " + std::to_string(s.token_budget) + "-token steps x " + std::to_string(s.replicas);
}

std::string layout_text(const PlanCandidate& c) {
  if (!c.disaggregated) return pool_text(c.serve);
  return "prefill tp" + std::to_string(c.serve.tp) + " x " + std::to_string(c.serve.replicas) + " + decode tp" +
         std::to_string(c.decode.tp) + ", " + std::to_string(c.decode.max_seqs) + " seqs x " + std::to_string(c.decode.replicas);
}

}  // namespace

void register_plan(CLI::App& app, Context& ctx) {
  struct PlanCli {
    ModelOptions m;
    OutputOptions out;
    std::string hw_list, tp = "1,2,4,8", pp = "1,2,4,8", max_seqs, chunks;
    bool no_disaggregation = false;
    PlanOptions p;
  };
  auto o = std::make_shared<PlanCli>();
  auto* cmd = app.add_subcommand("plan",
                                 "the cheapest deployments that serve a request rate within p99 TTFT and TPOT targets: chip x "
                                 "tensor and pipeline degrees x batch cap x prefill chunk x replicas, and disaggregated prefill "
                                 "and decode pools, each checked by simulation\n"
                                 "Example: rooftop plan --model llama-3.1-70b --precision fp8 --rate 20 --slo-ttft-p99 2 --slo-tpot-p99 0.05 --runtime vllm");
  add_model_options(*cmd, o->m, /*with_hw=*/false);
  cmd->add_option("--hw", o->hw_list, "chips to consider, a list (default: every GPU and accelerator card)");
  cmd->add_option("--rate", o->p.rate, "requests per second to serve")->required()->check(in_range(1e-6, 1e6));
  cmd->add_option("--prompt-tokens", o->p.prompt, "prompt length of each request")->capture_default_str()->check(in_range(1, double(limits::kContext)));
  cmd->add_option("--output-tokens", o->p.output, "tokens generated per request")->capture_default_str()->check(in_range(1, double(limits::kContext)));
  cmd->add_option("--slo-ttft-p99", o->p.slo_ttft_p99_s, "p99 time-to-first-token target, seconds")->capture_default_str()->check(in_range(1e-6, 1e6));
  cmd->add_option("--slo-tpot-p99", o->p.slo_tpot_p99_s, "p99 time-per-output-token target, seconds")->capture_default_str()->check(in_range(1e-6, 1e6));
  cmd->add_option("--max-devices", o->p.max_devices, "devices at most in a deployment")->capture_default_str()->check(in_range(1, 4096));
  cmd->add_option("--tp", o->tp, "tensor-parallel degrees to try, a list")->capture_default_str();
  cmd->add_option("--pp", o->pp, "pipeline degrees to try, a list")->capture_default_str();
  cmd->add_option("--max-seqs", o->max_seqs, "batch caps (sequences per step) to try, a list (default: the runtime's, 16, 64, 256)");
  cmd->add_option("--prefill-chunk", o->chunks, "prefill chunks (tokens per step) to try, a list (default: the runtime's, 512, 2048)");
  cmd->add_flag("--no-disaggregation", o->no_disaggregation, "do not search separate prefill and decode pools");
  cmd->add_option("--requests", o->p.requests, "requests simulated per check")->capture_default_str()->check(in_range(10, 100000));
  add_seed_option(*cmd, o->p.seed, "random seed of the arrivals");
  add_output_options(*cmd, o->out);
  cmd->callback([&ctx, o] {
    ctx.action = [&ctx, o] {
      ModelSpec model = resolve_model(ctx, o->m.model);
      PrecisionPlan plan = resolve_plan(o->m);
      std::vector<ChipSpec> chips;
      if (o->hw_list.empty()) {
        for (const auto& c : hw_database(ctx).chips)
          if (c.kind == "gpu" || c.kind == "accelerator") chips.push_back(c);
      } else {
        for (const auto& id : parse_id_list("hw", o->hw_list)) chips.push_back(resolve_chip(ctx, id));
      }
      PlanOptions po = o->p;
      po.tp = parse_list("tp", o->tp, 4096);
      po.pp = parse_list("pp", o->pp, 4096);
      if (!o->max_seqs.empty()) po.max_seqs = parse_list("max-seqs", o->max_seqs, 1'000'000);
      if (!o->chunks.empty()) po.token_budgets = parse_list("prefill-chunk", o->chunks, limits::kContext);
      po.disaggregation = !o->no_disaggregation;
      const RuntimeProfile prof = resolve_runtime(o->m).value_or(generic_profile(false));
      const auto t0 = std::chrono::steady_clock::now();
      const PlanResult r = plan_deployments(model, plan, chips, prof, po);
      const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

      if (o->out.format == "json") {
        nlohmann::json feasible = nlohmann::json::array(), rejected = nlohmann::json::array();
        for (const auto& c : r.feasible) feasible.push_back(candidate_json(c));
        for (const auto& x : r.rejected) {
          nlohmann::json j = {{"family", x.family}, {"reason", x.reason}, {"detail", x.detail}};
          if (x.miss > 0) {
            j["miss"] = x.miss;
            j["nearest"] = candidate_json(x.nearest);
          }
          rejected.push_back(j);
        }
        emit(ctx, o->out, nlohmann::json{{"model", model.id}, {"runtime", prof.id}, {"rate", po.rate}, {"prompt_tokens", po.prompt},
                                         {"output_tokens", po.output}, {"slo_ttft_p99_s", po.slo_ttft_p99_s},
                                         {"slo_tpot_p99_s", po.slo_tpot_p99_s}, {"configurations", r.configurations},
                                         {"simulations", r.simulations}, {"seconds", took}, {"feasible", feasible},
                                         {"rejected", rejected}}.dump(2) + "\n");
        return kExitOk;
      }
      const std::string load = reports::sig(po.rate) + " req/s of " + std::to_string(po.prompt) + " + " + std::to_string(po.output) +
                               " tokens, p99 TTFT <= " + reports::seconds(po.slo_ttft_p99_s) + ", p99 TPOT <= " +
                               reports::seconds(po.slo_tpot_p99_s) + ", runtime " + prof.id;
      std::vector<reports::Table> tables;
      reports::Table t;
      t.title = "plan: " + model.id + " (" + plan.describe() + "), " + load;
      t.headers = {"hw", "layout", "devices", "TTFT p99", "TPOT p99", "tok/s/device", "$/hour", "$/Mtok out", "J/token", "Pareto"};
      for (size_t i = 0; i < r.feasible.size() && i < 15; ++i) {
        const auto& c = r.feasible[i];
        t.rows.push_back({c.hw, layout_text(c), std::to_string(c.devices), reports::seconds(c.ttft_p99_s), reports::seconds(c.tpot_p99_s),
                          reports::sig(c.output_tokens_per_s_per_device), c.usd_per_hour > 0 ? reports::usd(c.usd_per_hour) : "-",
                          c.usd_per_mtok_output > 0 ? reports::usd(c.usd_per_mtok_output) : "-",
                          c.joules_per_output_token > 0 ? reports::sig(c.joules_per_output_token) : "-", c.pareto ? "*" : ""});
      }
      if (r.feasible.empty()) t.footnotes.push_back("no deployment within " + std::to_string(po.max_devices) + " devices meets both targets; the nearest are below");
      if (r.feasible.size() > 15) t.footnotes.push_back(std::to_string(r.feasible.size() - 15) + " more families meet the targets (--format json lists them)");
      t.footnotes.push_back("each row: the cheapest setting of its family (chip, mode, tp, pp); layout: tp, pp, batch cap, prefill chunk x replicas");
      t.footnotes.push_back("Pareto *: no other row has both more output tokens per second per device and a lower TPOT p99");
      t.footnotes.push_back("each replica serves rate / replicas (a load balancer), Poisson, " + std::to_string(po.requests) +
                            " requests per simulation, seed " + std::to_string(po.seed) + "; pipeline stages: pp micro-batches at once");
      t.footnotes.push_back("disaggregated: the prompt's KV cache moves over the chip's scale-out link (else scale-up) and counts in TTFT");
      t.footnotes.push_back("J/token: TDP x devices over the output tokens served; $/Mtok: the card's $/hour over them");
      t.footnotes.push_back(std::to_string(r.configurations) + " deployments decided by " + std::to_string(r.simulations) +
                            " simulations in " + reports::sig(took) + " s (more replicas never hurt: bisection decides the counts between)");
      tables.push_back(t);
      if (!r.rejected.empty()) {
        reports::Table x;
        x.title = "families that miss within " + std::to_string(po.max_devices) + " devices";
        x.headers = {"family", "fails on", "why", "nearest layout", "TTFT p99", "TPOT p99"};
        size_t shown = 0;
        for (const auto& rej : r.rejected) {
          if (++shown > 12) break;
          const bool near = rej.miss > 0 && rej.nearest.devices > 0 && (rej.nearest.ttft_p99_s > 0 || rej.nearest.tpot_p99_s > 0);
          x.rows.push_back({rej.family, rej.reason, rej.detail,
                            near ? layout_text(rej.nearest) : "-", near ? reports::seconds(rej.nearest.ttft_p99_s) : "-",
                            near ? reports::seconds(rej.nearest.tpot_p99_s) : "-"});
        }
        if (r.rejected.size() > 12) x.footnotes.push_back(std::to_string(r.rejected.size() - 12) + " more (--format json lists them)");
        x.footnotes.push_back("fails on: memory (weights, or one request's KV, do not fit), TTFT or TPOT (p99 over target by the %), "
                              "devices (each pool fits, together too many); nearest: the setting closest to its targets at the most devices");
        tables.push_back(x);
      }
      emit(ctx, o->out, reports::render(tables, o->out.format));
      return kExitOk;
    };
  });
}

}  // namespace rooftop::cli
