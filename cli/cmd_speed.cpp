// rooftop speed / rooftop cost: TTFT, TPOT, tok/s, $/Mtok and J/token across a batch sweep.
#include "cli/common.h"
#include "base/limits.h"
#include "base/suggest.h"
#include "analyzer/speed.h"
#include "reports/speed_report.h"

namespace rooftop::cli {
namespace {

struct SpeedCli {
  ModelOptions m;
  OutputOptions out;
  std::string batches = "1,8,32,64,256";
  int64_t prompt = 1024, output = 256, context = 0, chunk = 0, tp = 1, pp = 1, ep = 1, draft_len = 0;
  double layer_overhead = -1;
  double usd = -1, watts = -1, bw_eff = -1, flops_eff = -1, acceptance = 0.7, draft_cost = -1;
  std::string compute, draft;
  bool simple = false, pcie = false;
  CLI::App* cmd = nullptr;  // to ask which options were given (count), so no value is a sentinel
  bool given(const char* name) const { return cmd->count(name) > 0; }
};

void add_speed_options(CLI::App* cmd, SpeedCli& o, const char* default_batches) {
  o.batches = default_batches;
  o.cmd = cmd;
  add_model_options(*cmd, o.m);
  cmd->add_option("-b,--batch", o.batches, "batch sizes, a list: 1,8,64")->capture_default_str();
  cmd->add_option("--prompt-tokens", o.prompt, "prompt length (prefill)")->capture_default_str()->check(in_range(1, double(limits::kContext)));
  cmd->add_option("--output-tokens", o.output, "generated tokens per request")->capture_default_str()->check(in_range(1, double(limits::kContext)));
  cmd->add_option("-c,--context", o.context, "cached tokens at the decode step (default prompt + output / 2)")->check(in_range(1, double(limits::kContext)));
  cmd->add_option("--prefill-chunk", o.chunk, "chunked prefill size (0 = whole prompt)")->check(in_range(0, double(limits::kContext)));
  cmd->add_option("--tp", o.tp, "tensor-parallel devices")->capture_default_str()->check(in_range(1, double(limits::kDevices)));
  cmd->add_option("--pp", o.pp, "pipeline stages")->capture_default_str()->check(in_range(1, double(limits::kDevices)));
  cmd->add_option("--ep", o.ep, "expert-parallel devices (MoE)")->capture_default_str()->check(in_range(1, double(limits::kDevices)));
  cmd->add_flag("--pcie", o.pcie, "the devices talk over PCIe, not the card's NVLink / Infinity Fabric (its scale-out link and the runtime's latency there)");
  cmd->add_option("--compute-format", o.compute, "compute format for the peak (default: from the weight format)");
  cmd->add_option("--usd-per-hour", o.usd, "price per device-hour (default: the chip card's)")->check(in_range(0, 1e9));
  cmd->add_option("--watts", o.watts, "power per device (default: the chip card's TDP)")->check(in_range(0, 1e9));
  cmd->add_option("--bandwidth-efficiency", o.bw_eff, "fraction of bandwidth reached (default 0.8 GPU, 0.6 CPU, 1 calibrated)")->check(in_range(1e-6, 1));
  cmd->add_option("--flops-efficiency", o.flops_eff, "fraction of peak reached (default 0.7 GPU, 0.5 CPU)")->check(in_range(1e-6, 1));
  cmd->add_option("--layer-overhead", o.layer_overhead, "fixed seconds per layer per pass (default: measured, else 15e-6 GPU, 20e-6 CPU)")->check(in_range(0, 1));
  cmd->add_option("--draft", o.draft, "draft model for speculative decoding");
  cmd->add_option("--draft-len", o.draft_len, "tokens drafted per target pass (k)")->check(in_range(1, 64));
  cmd->add_option("--acceptance", o.acceptance, "probability each drafted token is accepted (a)")->capture_default_str()->check(in_range(0, 1));
  cmd->add_option("--draft-cost", o.draft_cost, "draft step time as a fraction of a target step (default: computed from --draft)")->check(in_range(1e-6, 10));
  cmd->add_flag("--simple", o.simple, "the seeds' model: weights only, FLOPs = 2 x params, datasheet figures at 100%");
  add_output_options(*cmd, o.out);
}

SpeedResult run_speed(const Context& ctx, const SpeedCli& o) {
  ModelSpec model = resolve_model(ctx, o.m.model);
  ChipSpec chip = resolve_chip(ctx, o.m.hw);
  PrecisionPlan plan = resolve_plan(o.m);
  SpeedOptions s;
  s.batches = parse_list("batch", o.batches, 10'000'000);
  s.prompt_tokens = o.prompt;
  s.output_tokens = o.output;
  if (o.given("--context")) s.context = o.context;  // speed() rejects values below 1
  s.prefill_chunk = o.chunk;
  s.tp = o.tp;
  s.pp = o.pp;
  s.ep = o.ep;
  s.simple = o.simple;
  s.pcie = o.pcie;
  s.runtime = resolve_runtime(o.m);
  // The runtime's KV format for FP8/FP4 weights (TensorRT-LLM: FP8) unless --kv-precision says otherwise.
  if (s.runtime && !s.runtime->quantized_kv.empty() && !o.given("--kv-precision")) {
    const FormatFamily f = format_family(plan.weights);
    if (f == FormatFamily::fp8 || f == FormatFamily::fp4) plan.kv = s.runtime->quantized_kv;
  }
  if (s.runtime && o.simple) throw InputError("--runtime and --simple do not go together: --simple is the seeds' model at 100% of the datasheet");
  if (!o.compute.empty()) s.compute_format = o.compute;
  if (o.given("--usd-per-hour")) s.usd_per_hour = o.usd;
  if (o.given("--watts")) s.watts = o.watts;
  if (o.given("--bandwidth-efficiency")) s.bandwidth_efficiency = o.bw_eff;
  if (o.given("--flops-efficiency")) s.flops_efficiency = o.flops_eff;
  if (o.given("--layer-overhead")) s.layer_overhead_s = o.layer_overhead;
  s.draft_len = o.draft_len;
  s.acceptance = o.acceptance;
  if (o.given("--draft-cost")) s.draft_cost_ratio = o.draft_cost;
  if (!o.draft.empty()) s.draft = resolve_model(ctx, o.draft);
  if (o.given("--acceptance") && !o.given("--draft-len"))
    throw InputError("--acceptance is used only by speculative decoding; add --draft-len K with --draft MODEL or --draft-cost RATIO");
  if ((!o.draft.empty() || o.given("--draft-cost")) && !o.given("--draft-len"))
    throw InputError("speculative decoding needs --draft-len K (tokens drafted per target pass, e.g. 5)");
  if (o.draft_len > 0 && o.draft.empty() && !o.given("--draft-cost"))
    throw InputError("--draft-len needs --draft MODEL or --draft-cost RATIO (e.g. --draft-cost 0.15)");
  return speed(model, chip, plan, s);
}

void register_kind(CLI::App& app, Context& ctx, bool cost) {
  auto o = std::make_shared<SpeedCli>();
  auto* cmd = cost ? app.add_subcommand("cost", "$ per million output and input tokens and joules per token across batch sizes\n"
                                                "Example: rooftop cost --model llama-3.1-70b --hw h100-sxm --precision fp8 --batch 1,8,64,256,1024")
                   : app.add_subcommand("speed", "TTFT, TPOT and tokens per second across batch sizes, with the bound of each\n"
                                                 "Example: rooftop speed --model llama-3.1-8b --hw h200 --batch 1,8,64 --context 1024");
  add_speed_options(cmd, *o, cost ? "1,8,64,256,1024" : "1,8,32,64,256");
  cmd->callback([&ctx, o, cost] {
    ctx.action = [&ctx, o, cost] {
      SpeedResult r = run_speed(ctx, *o);
      if (o->out.format == "json") emit(ctx, o->out, reports::speed_json(r).dump(2) + "\n");
      else emit(ctx, o->out, reports::render(cost ? reports::cost_tables(r, o->out.explain) : reports::speed_tables(r, o->out.explain), o->out.format));
      return kExitOk;
    };
  });
}

}  // namespace

void register_speed(CLI::App& app, Context& ctx) { register_kind(app, ctx, false); }
void register_cost(CLI::App& app, Context& ctx) { register_kind(app, ctx, true); }

}  // namespace rooftop::cli
