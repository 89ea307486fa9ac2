// rooftop calibrate: measure this machine's ceilings and kernels, write the calibration file, print the figures.
#include <algorithm>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "base/limits.h"
#include "base/suggest.h"
#include "base/files.h"
#include "hwdb/gpu_calibration.h"
#include "kernels/cuda/gpu.h"
#include "measure/calibrate.h"
#include "reports/table.h"
#include "reports/units.h"

namespace rooftop::cli {
namespace {

struct CalibrateArgs {
  bool quick = false;
  std::string device = "cpu";
  int threads = 0;
  bool allow_busy = false;
  OutputOptions out;
};

std::string pct(double fraction) { return fraction > 0 ? reports::sig(100 * fraction) + "%" : "n/a"; }

std::vector<reports::Table> cpu_tables(const measure::CalibrationRecord& r, const std::string& path) {
  using reports::Table;
  std::vector<Table> out;
  Table m;
  m.title = "calibrated " + r.machine.model_name + " (" + std::to_string(r.threads) + " threads, " +
            (r.quick ? "quick" : "full") + " run, " + reports::sig(r.duration_s) + " s, " + r.date + ")";
  m.headers = {"level", "working set", "read bandwidth"};
  for (const auto& l : r.levels) m.rows.push_back({l.name, reports::bytes(static_cast<double>(l.working_set_bytes)), reports::rate_bytes(l.bytes_per_s)});
  m.footnotes.push_back("memory_bandwidth_bytes_per_s (DRAM, read-only, all threads, median): " +
                        reports::rate_bytes(r.memory_bandwidth_bytes_per_s) + "; 1 thread: " +
                        reports::rate_bytes(r.memory_bandwidth_1thread_bytes_per_s));
  m.footnotes.push_back("written to " + path);
  out.push_back(m);

  Table s;
  s.title = "STREAM (" + reports::bytes(static_cast<double>(r.stream.array_bytes)) + " per array, median; best in brackets)";
  s.headers = {"kernel", "all threads", "1 thread", "spread"};
  for (const auto& k : r.stream.kernels) {
    const auto& one = r.stream_1thread.get(k.name);
    s.rows.push_back({k.name, reports::rate_bytes(k.bytes_per_s) + " (" + reports::rate_bytes(k.best_bytes_per_s) + ")",
                      reports::rate_bytes(one.bytes_per_s), pct(k.seconds.spread) + (k.seconds.wide ? " WIDE" : "")});
  }
  out.push_back(s);

  Table p;
  p.title = "peak arithmetic (all threads, median)";
  p.headers = {"format", "variant", "rate"};
  for (const auto& x : r.peaks)
    p.rows.push_back({x.format, x.variant, x.measured ? reports::flops_rate(x.ops_per_s) + (x.format == "int8" ? " (ops)" : "") : x.skipped_reason});
  out.push_back(p);

  Table k;
  k.title = "kernels (median per call; fraction of the ceiling it is bound by)";
  k.headers = {"kernel", "shape", "time", "bandwidth", "FLOP/s", "ceiling", "fraction"};
  for (const auto& x : r.kernels) {
    std::string shape = x.op.rfind("attention", 0) == 0 ? "h" + std::to_string(x.heads) + " hk" + std::to_string(x.kv_heads) + " d" +
                                                  std::to_string(x.head_dim) + " t" + std::to_string(x.t)
                                            : std::to_string(x.m) + "x" + std::to_string(x.k) + (x.n > 1 ? " n" + std::to_string(x.n) : "");
    k.rows.push_back({x.name, shape, reports::seconds(x.seconds.median) + (x.seconds.wide ? " WIDE" : ""),
                      reports::rate_bytes(x.bytes_per_s), reports::flops_rate(x.flops_per_s), x.ceiling, pct(x.fraction_of_ceiling)});
  }
  k.footnotes.push_back("overhead: " + reports::seconds(r.overhead.per_layer_s) + " per layer (5 parallel regions + small ops, as the engine's decode), " +
                        reports::seconds(r.overhead.per_step_s) + " per step; split: " +
                        reports::seconds(r.overhead.sync_per_layer_s) + " for the 5 barriers + " +
                        reports::sig(r.overhead.per_value_s * 1e9) + " ns per value of the small ops (norms, RoPE, SwiGLU); " +
                        reports::seconds(r.overhead.region_start.per_region_s) +
                        " to start each GEMV region from DRAM (separate ~1 MB matrices against 32 MiB ones)");
  // The imprecise figures in one line (each is marked WIDE above; the JSON record keeps one note per figure).
  std::vector<const measure::KernelResult*> wide;
  for (const auto& x : r.kernels)
    if (x.seconds.wide) wide.push_back(&x);
  std::sort(wide.begin(), wide.end(), [](auto* a, auto* b) { return a->seconds.iqr_relative > b->seconds.iqr_relative; });
  const auto imprecise = std::count_if(r.notes.begin(), r.notes.end(),
                                       [](const std::string& n) { return n.find(": wide spread (") != std::string::npos; });
  if (imprecise > 0) {
    std::string worst;
    for (size_t i = 0; i < std::min<size_t>(3, wide.size()); ++i)
      worst += (i ? ", " : "") + wide[i]->name + " " + pct(wide[i]->seconds.iqr_relative);
    k.footnotes.push_back(std::to_string(imprecise) + " figures spread widely between samples (interquartile range above " +
                          "10% of the median; kernels marked WIDE): imprecise" + (worst.empty() ? "" : "; the widest: " + worst));
  }
  // Shapes a format's blocks do not divide, in one line too ("gemv_q4_k at 1536x576 (smollm2-135m) skipped: ...").
  std::vector<std::string> skipped;
  for (const auto& n : r.notes)
    if (const auto at = n.find(" skipped: k = "); at != std::string::npos) skipped.push_back(n.substr(0, at));
  if (!skipped.empty()) {
    std::string list;
    for (const auto& x : skipped) list += (list.empty() ? "" : ", ") + x;
    k.footnotes.push_back(std::to_string(skipped.size()) + " shapes skipped (the width is not a whole number of the format's "
                          "blocks): " + list);
  }
  for (const auto& n : r.notes)
    if (n.find(": wide spread (") == std::string::npos && n.find(" skipped: k = ") == std::string::npos)
      k.footnotes.push_back("note: " + n);
  out.push_back(k);
  return out;
}

std::vector<reports::Table> gpu_tables(const gpu::GpuCalibration& c) {
  reports::Table t;
  t.title = "calibrated " + c.machine.name + " (cuda:" + std::to_string(c.machine.device) + ", " + (c.quick ? "quick" : "full") + ")";
  t.headers = {"kernel", "time", "bandwidth", "FLOP/s", "ceiling", "fraction"};
  for (const auto& k : c.kernels)
    t.rows.push_back({k.name, reports::seconds(k.seconds_median), reports::rate_bytes(k.bytes_per_s),
                      reports::flops_rate(k.flops_per_s), k.ceiling, pct(k.fraction_of_ceiling)});
  t.footnotes.push_back("memory bandwidth (read): " + reports::rate_bytes(c.memory_bandwidth_bytes_per_s));
  for (const auto& [f, v] : c.peak_flops) t.footnotes.push_back("peak " + f + ": " + reports::flops_rate(v));
  for (const auto& n : c.notes) t.footnotes.push_back("note: " + n);
  return {t};
}

int run_calibrate(Context& ctx, const CalibrateArgs& a) {
  const int device = parse_device(a.device);
  check_threads(a.threads);
  // Progress only for a person watching: stderr is a terminal and is this process's stderr.
  const bool show = &ctx.err == &std::cerr && ::isatty(STDERR_FILENO);
  if (device >= 0) {
    if (show) ctx.err << "rooftop: calibrating cuda:" << device << (a.quick ? " (quick)" : "") << "...\n";
    const std::string path = hwdb::gpu_calibration_path(device);
    FileLock lock(path + ".lock", "another rooftop calibrate of cuda:" + std::to_string(device));  // before measuring
    gpu::GpuCalibration c = gpu::calibrate(device, a.quick);  // InputError when there is no such device
    const std::string text = gpu::to_json(c);
    write_file_atomically(path, text, /*create_dirs=*/true);
    emit(ctx, a.out, a.out.format == "json" ? text : reports::render(gpu_tables(c), a.out.format));
    return kExitOk;
  }
  measure::CalibrateOptions opt;
  opt.quick = a.quick;
  opt.threads = a.threads;
  measure::Progress progress;
  if (show)
    progress = [&ctx](const std::string& step, double done) {
      char pct_text[16];
      std::snprintf(pct_text, sizeof pct_text, "[%3.0f%%] ", 100 * done);
      ctx.err << "\r\033[K" << pct_text << step << (done >= 1 ? "\n" : "") << std::flush;
    };
  const std::string path = hwdb::calibration_path();
  // Held for the whole run: a second calibration at once would measure this one's load (and then
  // overwrite its file); it is refused before it measures anything.
  FileLock lock(path + ".lock", "another rooftop calibrate");
  measure::CalibrationRecord r = measure::run_calibration(opt, progress);
  const std::string text = measure::calibration_json(r);
  if (const std::string busy = measure::busy_reason(r); !busy.empty()) {
    if (!a.allow_busy)
      throw InputError("calibration not stored: " + busy + "; run again on a quiet machine, or pass --allow-busy to store it anyway");
    ctx.err << "warning: " << busy << "; stored anyway (--allow-busy)\n";
  }
  write_file_atomically(path, text, /*create_dirs=*/true);
  emit(ctx, a.out, a.out.format == "json" ? text : reports::render(cpu_tables(r, path), a.out.format));
  return kExitOk;
}

}  // namespace

void register_calibrate(CLI::App& app, Context& ctx) {
  auto a = std::make_shared<CalibrateArgs>();
  auto* cmd = app.add_subcommand(
      "calibrate",
      "measure this machine (memory levels, STREAM, peak FLOP/s, the kernels at model shapes) and write the "
      "calibration file that --hw cpu uses from then on\nExample: rooftop calibrate --quick");
  cmd->add_flag("--quick", a->quick, "fewer repetitions and shapes (under a minute on 2 cores)");
  cmd->add_option("--device", a->device, "cpu or cuda:N")->capture_default_str();
  add_threads_option(*cmd, a->threads, "for the all-threads figures");
  cmd->add_flag("--allow-busy", a->allow_busy, "store the figures even when their spread says the machine was busy");
  add_output_options(*cmd, a->out, {"table", "json", "md", "csv"});
  cmd->callback([&ctx, a] { ctx.action = [&ctx, a] { return run_calibrate(ctx, *a); }; });
}

}  // namespace rooftop::cli
