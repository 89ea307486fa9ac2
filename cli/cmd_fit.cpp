// rooftop fit: the memory budget of a model on a chip (weights, KV, activations, overhead) and its limits.
#include <cmath>

#include "cli/common.h"
#include "base/limits.h"
#include "base/suggest.h"
#include "reports/fit_report.h"

namespace rooftop::cli {

void register_fit(CLI::App& app, Context& ctx) {
  struct Opts {
    ModelOptions m;
    OutputOptions out;
    int64_t context = 4096, batch = 1, tp = 1, pp = 1, chunk = 512;
    double usable = 0.95, overhead = 0;
    bool simple = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("fit", "does the model fit? weights + KV cache + activations + overhead against memory\n"
                                        "Example: rooftop fit --model llama-3.1-70b --hw h200 --precision fp8 --context 8192");
  add_model_options(*cmd, o->m);
  cmd->add_option("-c,--context", o->context, "tokens per sequence")->capture_default_str()->check(in_range(1, double(limits::kContext)));
  cmd->add_option("-b,--batch", o->batch, "concurrent sequences")->capture_default_str()->check(in_range(1, double(limits::kBatch)));
  cmd->add_option("--tp", o->tp, "tensor-parallel devices")->capture_default_str()->check(in_range(1, double(limits::kDevices)));
  cmd->add_option("--pp", o->pp, "pipeline-parallel stages")->capture_default_str()->check(in_range(1, double(limits::kDevices)));
  cmd->add_option("--prefill-chunk", o->chunk, "tokens in flight during chunked prefill")->capture_default_str()->check(in_range(1, double(limits::kContext)));
  cmd->add_option("--usable-fraction", o->usable, "fraction of memory usable (default 0.95)")->check(in_range(1e-6, 1));
  cmd->add_option("--overhead-bytes", o->overhead, "runtime overhead in bytes (default 1e9 GPU, 3e8 CPU)")->check(in_range(0, limits::kMemoryBytes));
  cmd->add_flag("--simple", o->simple, "the seeds' budget: weights + KV only, all memory usable");
  add_output_options(*cmd, o->out);
  cmd->callback([&ctx, o, cmd] {
    ctx.action = [&ctx, o, cmd] {
      ModelSpec model = resolve_model(ctx, o->m.model);
      ChipSpec chip = resolve_chip(ctx, o->m.hw);
      PrecisionPlan plan = resolve_plan(o->m);
      FitOptions f;
      f.context = o->context;
      f.batch = o->batch;
      f.tp = o->tp;
      f.pp = o->pp;
      f.prefill_chunk = o->chunk;
      f.simple = o->simple;
      // An engine's profile states the share of memory it takes for weights and KV (vLLM 0.9 ...).
      if (const auto rt = resolve_runtime(o->m)) f.usable_fraction = rt->memory_fraction;
      if (cmd->count("--usable-fraction")) f.usable_fraction = o->usable;  // ranges checked at parse time
      if (cmd->count("--overhead-bytes")) f.overhead_bytes = o->overhead;
      FitResult r = fit(model, chip, plan, f);
      if (o->out.format == "json") emit(ctx, o->out, reports::fit_json(r, chip).dump(2) + "\n");
      else emit(ctx, o->out, reports::render(reports::fit_tables(r, chip, o->out.explain), o->out.format));
      return kExitOk;
    };
  });
}

}  // namespace rooftop::cli
