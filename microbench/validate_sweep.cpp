// The validate sweep: build each (model, format) once, time decode steps per context, ask the analyzer.
#include "microbench/validate_sweep.h"

#include <cmath>
#include <fstream>
#include <new>
#include <sstream>

#include "analyzer/memory.h"
#include "analyzer/speed.h"
#include "microbench/validate_decode.h"

namespace rooftop::microbench {
namespace {

using kernels::WeightFormat;

std::string gb(double bytes) {
  std::ostringstream s;
  s.precision(3);
  s << bytes / 1e9 << " GB";
  return s.str();
}

}  // namespace

SweepPlan quick_plan() {
  return {{"smollm2-135m", "qwen2.5-0.5b"}, {WeightFormat::f32, WeightFormat::q8_0, WeightFormat::q4_1}, {256}};
}

SweepPlan full_plan() {
  return {{"smollm2-135m", "smollm2-360m", "qwen2.5-0.5b", "qwen2.5-1.5b", "llama-3.2-3b"},
          {WeightFormat::f32, WeightFormat::f16, WeightFormat::q8_0, WeightFormat::q4_1, WeightFormat::q4_k},
          {128, 1024}};
}

void predict_point(const ModelSpec& m, const ChipSpec& chip, ValidatePoint& p) {
  PrecisionPlan plan;
  plan.weights = p.format;  // every class (LM head and embeddings too) in the measured format
  plan.kv = "fp32";
  SpeedOptions o;
  o.batches = {p.batch};
  o.context = p.context;
  o.prompt_tokens = p.context;
  o.output_tokens = 1;
  const SpeedResult r = speed(m, chip, plan, o);
  const SpeedPoint& sp = r.points.at(0);
  p.predicted_tokens_per_s = sp.decode_tokens_per_s;
  p.bound = sp.bound;
  p.relative_error = relative_error(p.predicted_tokens_per_s, p.measured_tokens_per_s);
  p.law_tokens_per_s = chip.memory_bandwidth_bytes_per_s / p.bytes_per_token();
  p.law_relative_error = relative_error(p.law_tokens_per_s, p.measured_tokens_per_s);
  p.bandwidth_fraction = p.achieved_bandwidth_bytes_per_s / chip.memory_bandwidth_bytes_per_s;
}

namespace {

ValidatePoint time_point(const ModelSpec& m, WeightFormat f, DecodeModel& model, kernels::ThreadPool& pool,
                         int warmup, int repetitions) {
  ValidatePoint p;
  p.model = m.id;
  p.format = kernels::format_name(f);
  p.context = model.context();
  p.threads = pool.size();
  p.weight_bytes_per_token = model.weight_bytes_per_token();
  p.kv_read_bytes_per_token = model.kv_read_bytes_per_token();
  p.flops_per_token = model.flops_per_token();
  const Stats s = time_decode(model, pool, warmup, repetitions).step_s;
  p.measured_s_median = s.median;
  p.measured_spread = s.spread;
  p.samples = s.count;
  p.measured_tokens_per_s = 1.0 / s.median;
  p.achieved_bandwidth_bytes_per_s = p.bytes_per_token() * p.measured_tokens_per_s;
  return p;
}

}  // namespace

ValidatePoint measure_point(const ModelSpec& m, WeightFormat f, int64_t context, kernels::ThreadPool& pool,
                            int warmup, int repetitions) {
  DecodeModel model(m, f, context, 0x5eed);
  return time_point(m, f, model, pool, warmup, repetitions);
}

SweepResult run_sweep(const SweepConfig& config, const ChipSpec& chip,
                      const std::function<void(const std::string&)>& progress) {
  SweepResult r;
  r.chip_id = chip.id;
  r.chip_name = chip.name;
  r.memory_bandwidth_bytes_per_s = chip.memory_bandwidth_bytes_per_s;
  auto prov = chip.provenance.find("memory_bandwidth_bytes_per_s");
  r.bandwidth_provenance = prov == chip.provenance.end() ? "datasheet" : prov->second;
  r.calibrated = !chip.measured.empty();
  kernels::ThreadPool pool(config.threads);
  r.threads = pool.size();
  int64_t max_context = 1;
  for (int64_t c : config.contexts) max_context = std::max(max_context, c);
  const size_t total = config.models.size() * config.formats.size();
  size_t index = 0;
  for (const auto& m : config.models) {
    for (WeightFormat f : config.formats) {
      ++index;
      const std::string name = m.id + " " + kernels::format_name(f);
      if (auto why = decode_shape_problem(m, f); !why.empty()) {
        r.skipped.push_back(name + ": " + why);
        continue;
      }
      const double need = decode_alloc_bytes(m, f, max_context);
      if (config.max_memory_bytes > 0 && need > config.max_memory_bytes) {
        r.skipped.push_back(name + ": needs " + gb(need) + ", over --max-memory " + gb(config.max_memory_bytes));
        continue;
      }
      if (progress) progress("[" + std::to_string(index) + "/" + std::to_string(total) + "] " + name + " (" + gb(need) + ")");
      try {
        DecodeModel model(m, f, max_context, 0x5eed + static_cast<uint32_t>(index));
        for (int64_t c : config.contexts) {
          model.set_context(c);
          ValidatePoint p = time_point(m, f, model, pool, config.warmup, config.repetitions);
          predict_point(m, chip, p);
          r.points.push_back(std::move(p));
        }
      } catch (const std::bad_alloc&) {
        r.skipped.push_back(name + ": allocation of " + gb(need) + " failed");
      }
    }
  }
  r.summary = summarize_points(r.points);
  return r;
}

double default_max_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemTotal:") return 0.5 * kib * 1024.0;
  return 0;
}

}  // namespace rooftop::microbench
