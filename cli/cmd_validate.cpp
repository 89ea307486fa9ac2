// rooftop validate: the engine's forward pass over synthetic models of real shapes, measured against the analyzer.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/common.h"
#include "cli/serving_bench.h"
#include "base/limits.h"
#include "base/suggest.h"
#include "base/files.h"
#include "engine/model_path.h"
#include "hwdb/hwdb.h"
#include "kernels/cuda/gpu.h"
#include "measure/calibrate.h"
#include "measure/calibration_record.h"
#include "reports/validation_chart.h"
#include "reports/validation_render.h"
#include "validate/local/gpu_plan.h"
#include "validate/local/sweep.h"
#include "models/models.h"
#include "cli/report_build.h"
#include "reports/report.h"
#include "reports/svg.h"
#include "reports/table.h"
#include "reports/units.h"

namespace rooftop::cli {
namespace {

// Keeps the record for `rooftop report --hw cpu` (written atomically, folders created).
// Says nothing on stdout; one line on stderr when it is a terminal, or when saving failed.
void save_local_record(Context& ctx, const std::string& json) {
  const std::string path = validation_path(hwdb::cache_dir());
  try {
    write_file_atomically(path, json, /*create_dirs=*/true);
  } catch (const InputError&) {
    ctx.err << "warning: could not save the validation record to " << path << std::endl;
    return;
  }
  if (isatty(STDERR_FILENO)) ctx.err << "saved the validation record to " << path << " (shown by rooftop report --hw cpu)" << std::endl;
}

}  // namespace

void register_validate(CLI::App& app, Context& ctx) {
  struct Opts {
    OutputOptions out;
    bool quick = false;
    int threads = 0;
    double max_memory_bytes = 0;
    std::string hw = "cpu";
    std::string device = "cpu";
    bool no_calibrate = false, refresh = false;
    bool published = false, serving = false;
    int64_t requests = 200;
    PublishedOptions pub;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand(
      "validate", "measure decode steps of real model shapes with rooftop's kernels and compare with the analyzer\n"
                  "Example: rooftop validate --quick --format md -o validate.md");
  cmd->add_flag("--quick", o->quick, "a short sweep (2 models x f32/q8_0/q4_1 x context 256, and the SmolLM2 file): about 3.5 minutes on 2 cores, "
                "half of it the quick calibration run first (--no-calibrate skips it)");
  add_threads_option(*cmd, o->threads);
  cmd->add_option("--max-memory", o->max_memory_bytes,
                  "skip configurations that allocate more than this many bytes (default: half of MemTotal)")->check(in_range(0, limits::kMemoryBytes));
  cmd->add_flag("--no-calibrate", o->no_calibrate,
                "use the stored calibration as it is instead of re-measuring it (quick) first and refreshing the rates "
                "of each weight format right before its points; a VM's bandwidth drifts from minute to minute, so by "
                "default the ceilings and the sweep are measured in the same minutes");
  cmd->add_option("--device", o->device, "cpu, or cuda:N for the GPU sweep (the plain law against measured GPU decode steps)")
      ->capture_default_str();
  cmd->add_option("--hw", o->hw, "with --published: only this chip's records (the CPU sweep measures this machine)");
  cmd->add_flag("--published", o->published,
                "compare the published measurements (validate/published/) with the analyzer under each engine's runtime profile");
  cmd->add_option("--runtime", o->pub.runtime, "with --published: predict every record under this runtime profile");
  cmd->add_flag("--fit", o->pub.fit, "with --published: refit the runtime profiles (leave-one-source-out errors)");
  cmd->add_option("--write-runtimes", o->pub.write_runtimes, "with --fit: write the fitted profile cards into this folder");
  cmd->add_option("--published-dir", o->pub.dirs, "with --published: add the sources (*.yaml, the dataset's schema) of this folder; repeatable");
  cmd->add_flag("--held-out", o->pub.only_dirs,
                "with --published-dir: compare only those sources (not fitted on), predicted by the fitted profiles");
  cmd->add_flag("--serving", o->serving,
                "serve SmolLM2-135M with the engine at 0.15, 0.5 and 3 x this CPU's simulated capacity (Poisson) and set the "
                "simulator's percentiles beside the measured ones (--quick: 20 requests per rate)");
  cmd->add_flag("--refresh", o->refresh,
                "with --serving: simulate each rate on the file's formats re-measured right after its run (about 6 s each) "
                "instead of the stored calibration");
  cmd->add_option("--requests", o->requests, "with --serving: requests per rate")->capture_default_str()->check(in_range(1, 100000));
  add_output_options(*cmd, o->out, {"table", "json", "md", "html"});
  cmd->callback([&ctx, o, cmd] {
    ctx.action = [&ctx, o, cmd] {
      if (cmd->count("--requests") && !o->serving) throw InputError("--requests goes with --serving (rooftop validate --serving --requests 200)");
      if (o->refresh && !o->serving) throw InputError("--refresh goes with --serving (rooftop validate --serving --refresh)");
      if (o->serving) {
        if (o->published) throw InputError("--serving and --published are two validations; run them one at a time");
        if (o->out.format == "html") throw InputError("validate --serving writes table, json or md; html is for the sweep");
        check_threads(o->threads);
        return run_validate_serving(ctx, o->out, o->quick ? std::min<int64_t>(o->requests, 20) : o->requests, o->threads,
                                    o->refresh);
      }
      if (o->published) {
        o->pub.out = o->out;
        if (cmd->count("--hw")) o->pub.hw = o->hw;
        return run_validate_published(ctx, o->pub);
      }
      if (!o->pub.runtime.empty() || o->pub.fit || !o->pub.write_runtimes.empty() || !o->pub.dirs.empty() || o->pub.only_dirs ||
          cmd->count("--hw"))
        throw InputError("--hw, --runtime, --fit, --write-runtimes, --published-dir and --held-out go with --published "
                         "(rooftop validate --published --fit); the measured sweep runs on this machine");
      check_threads(o->threads);
      if (o->max_memory_bytes < 0 || !std::isfinite(o->max_memory_bytes))
        throw InputError("--max-memory must be a positive number of bytes (e.g. 8e9)");
      if (const int device = parse_device(o->device); device >= 0) {
        // The GPU sweep: InputError ("no CUDA device ...", exit 2) where there is none.
        std::vector<ModelSpec> cards;
        std::vector<std::string> skipped;
        for (const auto& id : validate::gpu_validation_model_ids()) {
          if (const ModelSpec* m = model_database(ctx).find(id)) cards.push_back(*m);
          else skipped.push_back(id + " skipped: not in the model database");
        }
        const auto plan = validate::gpu_validation_plan(cards, &skipped);
        gpu::GpuValidation v = gpu::validate(device, o->quick, plan);
        v.notes.insert(v.notes.end(), skipped.begin(), skipped.end());
        if (o->out.format == "json") {
          emit(ctx, o->out, gpu::to_json(v) + "\n");
          return kExitOk;
        }
        reports::Table t;
        t.title = "validate " + o->device + " (" + v.machine.name + "): decode steps against bandwidth / bytes per token, read bandwidth " +
                  reports::rate_bytes(v.memory_bandwidth_bytes_per_s);
        t.headers = {"model", "format", "context", "MB/token", "measured tok/s", "GB/s", "law tok/s", "error"};
        for (const auto& p : v.points)
          t.rows.push_back({p.model, p.format, std::to_string(p.context), reports::sig(p.bytes_per_token / 1e6), reports::sig(p.measured_tokens_per_s),
                            reports::sig(p.achieved_bytes_per_s / 1e9), reports::sig(p.predicted_tokens_per_s),
                            reports::sig(100 * p.relative_error) + "%"});
        t.footnotes.push_back("|error| median " + reports::sig(100 * v.median_abs_relative_error) + "%, worst " +
                              reports::sig(100 * v.max_abs_relative_error) + "%");
        for (const auto& n : v.notes) t.footnotes.push_back("note: " + n);
        emit(ctx, o->out, reports::render({t}, o->out.format == "html" ? "md" : o->out.format));
        return kExitOk;
      }
      validate::SweepConfig config;
      const auto plan = o->quick ? validate::quick_plan() : validate::full_plan();
      const auto& db = model_database(ctx);
      std::vector<std::string> missing;
      for (const auto& id : plan.all_model_ids()) {
        if (const ModelSpec* m = db.find(id)) config.models.push_back(*m);
        else missing.push_back(id + ": not in the model database");
      }
      config.plan = plan;
      // The real SmolLM2-135M file, run by the engine itself after the synthetic shapes.
      if (const std::string file = engine::default_model_path(); std::filesystem::exists(file)) {
        config.model_file = file;
        config.file_spec = models::from_gguf(file);
      } else {
        missing.push_back(std::string(engine::kDefaultModelFile) + ": not in the cache (scripts/setup.sh fetches it)");
      }
      config.threads = o->threads;
      config.max_memory_bytes = o->max_memory_bytes > 0 ? o->max_memory_bytes : validate::default_max_memory_bytes();
      if (!o->no_calibrate && (o->hw == "cpu" || o->hw == "local")) {
        // The analyzer's CPU figures come from the calibration file; measuring it right before the sweep
        // keeps machine drift (other tenants, clocks) out of the prediction error.
        if (isatty(STDERR_FILENO)) ctx.err << "rooftop: calibrating first (quick; --no-calibrate to skip)" << std::endl;
        measure::CalibrateOptions copt;
        copt.quick = true;
        copt.threads = o->threads;
        FileLock lock(hwdb::calibration_path() + ".lock", "rooftop calibrate");
        write_file_atomically(hwdb::calibration_path(), measure::calibration_json(measure::run_calibration(copt)), true);
        config.refresh_calibration = true;
      }
      const ChipSpec chip = resolve_chip(ctx, o->hw);
      std::function<void(const std::string&)> progress;
      if (isatty(STDERR_FILENO)) progress = [&ctx](const std::string& line) { ctx.err << line << std::endl; };
      auto r = validate::run_sweep(config, chip, progress);
      r.skipped.insert(r.skipped.begin(), missing.begin(), missing.end());
      save_local_record(ctx, reports::validate_json(r));
      if (o->out.format == "json") emit(ctx, o->out, reports::validate_json(r));
      else if (o->out.format == "html")
        emit(ctx, o->out, reports::validate_html(r, reports::svg::render(reports::validate_law_chart(r))));
      else if (o->out.format == "md") {
        std::string md = reports::validate_markdown(r);
        if (!o->out.output.empty()) {  // the chart goes beside FILE as <stem>-law.svg
          const std::filesystem::path file(o->out.output);
          const std::filesystem::path chart = file.parent_path() / (file.stem().string() + "-law.svg");
          OutputOptions svg_out = o->out;
          svg_out.output = chart.string();
          emit(ctx, svg_out, reports::svg::render(reports::validate_law_chart(r)));
          md += "\n![measured decode tok/s against bytes per token, with the law's curve](" +
                chart.filename().string() + ")\n";
        }
        emit(ctx, o->out, md);
      }
      else emit(ctx, o->out, reports::validate_table(r));
      return kExitOk;
    };
  });
}

}  // namespace rooftop::cli
