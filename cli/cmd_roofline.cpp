// rooftop roofline: ridge point, and where prefill and decode at several batch sizes sit.
#include "cli/common.h"
#include "base/limits.h"
#include "analyzer/roofline.h"
#include "reports/speed_report.h"

namespace rooftop::cli {

void register_roofline(CLI::App& app, Context& ctx) {
  struct Opts {
    ModelOptions m;
    OutputOptions out;
    std::string batches = "1,8,32,256,1024";
    int64_t prompt = 1024, context = 1024;
    std::string compute;
    bool simple = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("roofline", "the chip's roofline and where prefill and decode sit on it (without --model: the chip's roofs alone)\n"
                                             "Example: rooftop roofline --hw h100-sxm --model llama-3.1-70b --precision bf16");
  add_model_options(*cmd, o->m, true, false, /*model_required=*/false);
  cmd->add_option("-b,--batch", o->batches, "decode batch sizes")->capture_default_str();
  cmd->add_option("--prompt-tokens", o->prompt, "prefill length")->capture_default_str()->check(in_range(1, double(limits::kContext)));
  cmd->add_option("-c,--context", o->context, "cached tokens at the decode step")->capture_default_str()->check(in_range(0, double(limits::kContext)));
  cmd->add_option("--compute-format", o->compute, "compute format for the roof (default: from the weight format)");
  cmd->add_flag("--simple", o->simple, "the seeds' points: weights only");
  add_output_options(*cmd, o->out, {"table", "json", "md", "csv", "svg"});
  cmd->callback([&ctx, o] {
    ctx.action = [&ctx, o] {
      if (o->m.model.empty()) {  // the chip alone: every compute format's roof
        const ChipRoofline r = chip_roofline(resolve_chip(ctx, o->m.hw));
        if (o->out.format == "json") emit(ctx, o->out, reports::chip_roofline_json(r).dump(2) + "\n");
        else if (o->out.format == "svg") emit(ctx, o->out, reports::chip_roofline_svg(r));
        else emit(ctx, o->out, reports::render(reports::chip_roofline_tables(r), o->out.format));
        return kExitOk;
      }
      if (o->out.format == "svg")
        throw InputError("--format svg draws the chip's roofline alone (without --model); for a model's passes on the roof "
                         "use --format table/json, or rooftop report --format html");
      RooflineOptions ro;
      ro.decode_batches = parse_list("batch", o->batches, 10'000'000);
      ro.prompt_tokens = o->prompt;
      ro.context = o->context;
      ro.simple = o->simple;
      ro.compute_format = o->compute;
      auto r = roofline(resolve_model(ctx, o->m.model), resolve_chip(ctx, o->m.hw), resolve_plan(o->m), ro);
      if (o->out.format == "json") emit(ctx, o->out, reports::roofline_json(r).dump(2) + "\n");
      else emit(ctx, o->out, reports::render(reports::roofline_tables(r), o->out.format));
      return kExitOk;
    };
  });
}

}  // namespace rooftop::cli
