// rooftop report: fit, speed, cost, roofline and the field of chips in one view (terminal, HTML, Markdown, JSON).
#include <filesystem>
#include <fstream>

#include "cli/common.h"
#include "base/limits.h"
#include "analyzer/errors.h"
#include "hwdb/hwdb.h"
#include "reports/report.h"

namespace rooftop::cli {

void register_report(CLI::App& app, Context& ctx) {
  struct Opts {
    ModelOptions m;
    OutputOptions out;
    std::string batches = "1,8,32,64,256";
    int64_t context = 4096, prompt = 1024, output = 256;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("report", "fit, speed, cost and roofline in one report; HTML and Markdown with charts\n"
                                           "Example: rooftop report --model gpt-oss-120b --hw h100-sxm --precision mxfp4 --format html -o report.html");
  add_model_options(*cmd, o->m);
  cmd->add_option("-b,--batch", o->batches, "batch sizes of the speed and cost tables (the first sizes the memory budget)")->capture_default_str();
  cmd->add_option("-c,--context", o->context, "tokens per sequence for the memory budget")->capture_default_str()->check(in_range(1, double(limits::kContext)));
  cmd->add_option("--prompt-tokens", o->prompt, "prompt length (prefill)")->capture_default_str()->check(in_range(1, double(limits::kContext)));
  cmd->add_option("--output-tokens", o->output, "generated tokens per request")->capture_default_str()->check(in_range(1, double(limits::kContext)));
  add_output_options(*cmd, o->out, {"table", "html", "md", "json"});
  cmd->callback([&ctx, o] {
    ctx.action = [&ctx, o] {
      reports::ReportInputs in;
      in.model = resolve_model(ctx, o->m.model);
      in.chip = resolve_chip(ctx, o->m.hw);
      in.plan = resolve_plan(o->m);
      in.speed.batches = parse_list("batch", o->batches, 10'000'000);
      check_positive("context", o->context, 1'000'000'000);
      check_positive("prompt-tokens", o->prompt, 1'000'000'000);
      check_positive("output-tokens", o->output, 1'000'000'000);
      in.speed.runtime = resolve_runtime(o->m);
      if (in.speed.runtime) in.fit.usable_fraction = in.speed.runtime->memory_fraction;
      in.speed.prompt_tokens = o->prompt;
      in.speed.output_tokens = o->output;
      in.fit.context = o->context;
      in.fit.batch = in.speed.batches.front();
      in.field = hw_database(ctx).chips;
      // This machine (--hw cpu or local): show its latest `rooftop validate` record when there is one.
      if (o->m.hw == "cpu" || o->m.hw == "local") in.validation_file = reports::validation_path(hwdb::cache_dir());
      const reports::ReportData d = reports::build_report(in);
      const auto& f = o->out.format;
      if (f == "json") {
        emit(ctx, o->out, reports::report_json(d).dump(2) + "\n");
      } else if (f == "html") {
        emit(ctx, o->out, reports::report_html(d));
      } else if (f == "md") {
        if (o->out.output.empty() || o->out.output == "-")
          throw InputError("--format md needs -o FILE.md: the charts are written beside it as FILE-<chart>.svg");
        namespace fs = std::filesystem;
        const fs::path target(o->out.output);
        const std::string stem = target.stem().string();
        emit(ctx, o->out, reports::report_markdown(d, stem));  // checks the folder exists first
        for (const auto& [name, svg] : reports::report_charts(d)) {
          OutputOptions chart = o->out;
          chart.output = (target.parent_path() / (stem + "-" + name + ".svg")).string();
          emit(ctx, chart, svg);
        }
      } else {
        emit(ctx, o->out, reports::report_text(d));
      }
      return kExitOk;
    };
  });
}

}  // namespace rooftop::cli
