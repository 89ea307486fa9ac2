// rooftop report: fit, speed, cost, roofline and the field of chips in one view (terminal, HTML, Markdown, JSON).
#include <filesystem>
#include <fstream>

#include "cli/common.h"
#include "base/limits.h"
#include "base/suggest.h"
#include "hwdb/hwdb.h"
#include "cli/report_build.h"
#include "reports/report.h"
#include "reports/sandbox_html.h"

namespace rooftop::cli {
namespace {

// The sandbox's grid: the analyzer's fit and speed for every model x chip x precision x tp x context x batch.
// Keys: models, chips (with usd_per_hour, null when the card has none), precisions, tps, contexts, batches,
// fields (the order of each point's numbers), grid[model][chip][precision][tp][context] = {"error": text} or
// one array of numbers per batch. $/Mtok is computed at $1 per device-hour; the page scales it by the price.
nlohmann::json sandbox_grid(const Context& ctx, const ModelOptions& base, const std::vector<int64_t>& batches,
                            int64_t prompt, int64_t output) {
  const auto model_ids = parse_id_list("model", base.model), chip_ids = parse_id_list("hw", base.hw);
  const auto precisions = parse_id_list("precision", base.precision);
  const std::vector<int64_t> tps = {1, 2, 4, 8};
  const std::vector<int64_t> contexts = {1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072};
  constexpr size_t kMaxCombos = 64;  // models x chips x precisions: the page carries every point (~1 KB each combo x context)
  if (model_ids.size() * chip_ids.size() * precisions.size() > kMaxCombos)
    throw InputError("--interactive with " + std::to_string(model_ids.size()) + " models x " + std::to_string(chip_ids.size()) +
                     " chips x " + std::to_string(precisions.size()) + " precisions is too large a page; expected at most " +
                     std::to_string(kMaxCombos) + " combinations");
  nlohmann::json g;
  g["title"] = "rooftop sandbox";
  g["prompt_tokens"] = prompt;
  g["output_tokens"] = output;
  g["kv_precision"] = base.kv_precision;
  g["precisions"] = precisions;
  g["tps"] = tps;
  g["contexts"] = contexts;
  g["batches"] = batches;
  g["fields"] = {"fits", "total_bytes", "capacity_bytes", "weights_bytes", "kv_bytes", "max_batch", "max_context",
                 "ttft_s", "tpot_s", "tokens_per_s_stream", "tokens_per_s", "usd_per_mtok_at_1usd"};
  std::vector<ModelSpec> models;
  for (const auto& id : model_ids) {
    models.push_back(resolve_model(ctx, id));
    g["models"].push_back({{"id", id}, {"name", models.back().name}});
  }
  std::vector<ChipSpec> chips;
  for (const auto& id : chip_ids) {
    chips.push_back(resolve_chip(ctx, id));
    const ChipSpec& c = chips.back();
    g["chips"].push_back({{"id", id}, {"name", c.name}, {"usd_per_hour", c.usd_per_hour ? nlohmann::json(*c.usd_per_hour) : nlohmann::json()}});
  }
  std::vector<PrecisionPlan> plans;
  for (const auto& p : precisions) {
    ModelOptions one = base;
    one.precision = p;
    plans.push_back(resolve_plan(one));
  }
  const auto runtime = resolve_runtime(base);
  for (const auto& m : models) {
    nlohmann::json by_chip = nlohmann::json::array();
    for (const auto& c : chips) {
      nlohmann::json by_precision = nlohmann::json::array();
      for (const auto& plan : plans) {
        nlohmann::json by_tp = nlohmann::json::array();
        for (const int64_t tp : tps) {
          nlohmann::json by_context = nlohmann::json::array();
          for (const int64_t context : contexts) {
            try {
              SpeedOptions so;  // as `rooftop speed -b LIST --context C --tp T --usd-per-hour 1` runs it
              so.batches = batches;
              so.prompt_tokens = prompt;
              so.output_tokens = output;
              so.context = context;
              so.tp = tp;
              so.usd_per_hour = 1.0;
              so.runtime = runtime;
              const SpeedResult sr = speed(m, c, plan, so);
              nlohmann::json points = nlohmann::json::array();
              for (size_t i = 0; i < batches.size(); ++i) {
                FitOptions fo;  // as `rooftop fit --context C -b B --tp T` runs it
                fo.context = context;
                fo.batch = batches[i];
                fo.tp = tp;
                if (runtime) fo.usable_fraction = runtime->memory_fraction;
                const FitResult f = fit(m, c, plan, fo);
                const SpeedPoint& p = sr.points.at(i);
                points.push_back({f.fits ? 1 : 0, f.total_bytes, f.capacity_bytes, f.weights_bytes_per_device,
                                  f.kv_bytes_per_device, f.max_batch, f.max_context, p.ttft_s, p.tpot_s,
                                  p.decode_tokens_per_s_per_stream, p.decode_tokens_per_s, p.usd_per_mtok_output});
              }
              by_context.push_back(std::move(points));
            } catch (const InputError& e) {  // e.g. tp on a chip without an interconnect figure
              by_context.push_back({{"error", e.what()}});
            }
          }
          by_tp.push_back(std::move(by_context));
        }
        by_precision.push_back(std::move(by_tp));
      }
      by_chip.push_back(std::move(by_precision));
    }
    g["grid"].push_back(std::move(by_chip));
  }
  return g;
}

}  // namespace

void register_report(CLI::App& app, Context& ctx) {
  struct Opts {
    ModelOptions m;
    OutputOptions out;
    std::string batches = "1,8,32,64,256";
    int64_t context = 4096, prompt = 1024, output = 256;
    bool interactive = false;
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
  auto* batch_opt = cmd->get_option("--batch");
  cmd->add_flag("--interactive", o->interactive,
                "one self-contained HTML page with controls (model, chip, precision, tp, context, batch, price) whose numbers "
                "and charts move without a server; --model, --hw and --precision take comma-separated lists, e.g. "
                "--model llama-3.1-8b,qwen2.5-7b --hw h100-sxm,rtx-4090 --precision bf16,fp8,int4");
  cmd->callback([&ctx, o, batch_opt] {
    ctx.action = [&ctx, o, batch_given = batch_opt->count() > 0] {
      if (o->interactive) {
        if (o->out.format != "html") throw InputError("--interactive writes an HTML page; expected --format html");
        check_positive("prompt-tokens", o->prompt, 1'000'000'000);
        check_positive("output-tokens", o->output, 1'000'000'000);
        const auto batches = batch_given ? parse_list("batch", o->batches, 10'000'000)
                                         : std::vector<int64_t>{1, 2, 4, 8, 16, 32, 64, 128, 256};
        emit(ctx, o->out, reports::sandbox_html(sandbox_grid(ctx, o->m, batches, o->prompt, o->output)));
        return kExitOk;
      }
      ReportInputs in;
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
      if (o->m.hw == "cpu" || o->m.hw == "local") in.validation_file = validation_path(hwdb::cache_dir());
      const reports::ReportData d = build_report(in);
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
