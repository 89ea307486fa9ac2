// The validate sweep: build each (model, format) once, time decode steps per context, ask the analyzer.
#include "validate/local/sweep.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <span>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <sstream>
#include <string>
#include <utility>

#include "analyzer/memory.h"
#include "analyzer/speed.h"
#include "analyzer/work.h"
#include "base/errors.h"
#include "hwdb/calibration.h"
#include "engine/forward.h"
#include "hwdb/host_cpu.h"
#include "measure/kernel_bench.h"
#include "measure/calibrate.h"
#include "validate/local/decode.h"
#include "validate/local/file.h"
#include "validate/local/terms.h"

namespace rooftop::validate {

using namespace measure;  // the sweep drives the measurement library: timers, probes, calibration
namespace {

using kernels::WeightFormat;

std::string gb(double bytes) {
  std::ostringstream s;
  s.precision(3);
  s << bytes / 1e9 << " GB";
  return s.str();
}

}  // namespace

std::vector<std::string> SweepPlan::all_model_ids() const {
  std::vector<std::string> ids;
  for (const auto* list : {&model_ids, &batch_model_ids, &prefill_model_ids})
    for (const auto& id : *list)
      if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  return ids;
}

SweepPlan quick_plan() {
  SweepPlan p;
  p.model_ids = {"smollm2-135m", "qwen2.5-0.5b"};
  p.formats = {WeightFormat::f32, WeightFormat::q8_0, WeightFormat::q4_1};
  p.contexts = {256};
  p.batches = {4};
  p.batch_model_ids = {"smollm2-135m"};
  p.prefill_model_ids = {"smollm2-135m"};
  p.prefill_formats = {WeightFormat::f32, WeightFormat::q4_1};
  p.prompts = {16, 128};
  return p;
}

SweepPlan full_plan() {
  SweepPlan p;
  p.model_ids = {"smollm2-135m", "smollm2-360m", "qwen2.5-0.5b", "qwen2.5-1.5b", "llama-3.2-3b"};
  p.formats = {WeightFormat::f32, WeightFormat::f16, WeightFormat::q8_0, WeightFormat::q4_1, WeightFormat::q4_k};
  p.contexts = {128, 1024};
  p.batches = {4, 16};
  p.batch_model_ids = {"smollm2-135m", "smollm2-360m", "qwen2.5-0.5b"};  // GEMM at small n is slow: keep the sweep short
  p.prefill_model_ids = {"smollm2-135m", "smollm2-360m", "qwen2.5-0.5b"};
  p.prefill_formats = {WeightFormat::f32, WeightFormat::q8_0, WeightFormat::q4_1};
  p.prompts = {16, 128, 512};
  return p;
}

PrecisionPlan plan_for(const ValidatePoint& p) {
  PrecisionPlan plan;
  plan.weights = p.format;  // synthetic points: every class (LM head and embeddings too) in the measured format
  if (!p.embedding_format.empty()) plan.per_class[ParamClass::embeddings] = p.embedding_format;
  if (!p.lm_head_format.empty()) plan.per_class[ParamClass::lm_head] = p.lm_head_format;
  plan.per_class[ParamClass::norms] = "fp32";  // the norm vectors stay fp32 in every format
  plan.kv = "fp32";
  return plan;
}

double predict_decode_s(const ModelSpec& m, const ChipSpec& chip, const ValidatePoint& p) {
  SpeedOptions o;
  o.batches = {p.batch};
  o.context = p.context;
  o.prompt_tokens = p.context;
  o.output_tokens = 1;
  return speed(m, chip, plan_for(p), o).points.at(0).tpot_s;
}

void predict_point(const ModelSpec& m, const ChipSpec& chip, ValidatePoint& p) {
  SpeedOptions o;
  o.batches = {p.batch};
  o.context = p.context;
  o.prompt_tokens = p.phase == "prefill" ? p.prompt_tokens : p.context;
  o.output_tokens = 1;
  const SpeedResult r = speed(m, chip, plan_for(p), o);
  const SpeedPoint& sp = r.points.at(0);
  if (p.phase == "prefill") {
    p.predicted_s = sp.ttft_s;
    p.predicted_tokens_per_s = static_cast<double>(p.prompt_tokens) / sp.ttft_s;
    p.bound = sp.prefill_bound;
    p.law_tokens_per_s = r.peak_flops / p.flops_per_token;  // the compute roof at the chip's peak
  } else {
    p.predicted_s = sp.tpot_s;
    p.predicted_tokens_per_s = sp.decode_tokens_per_s;
    p.bound = sp.bound;
    p.law_tokens_per_s = chip.memory_bandwidth_bytes_per_s / p.bytes_per_token();
    for (int i = 0; i < kTermSets; ++i) {
      p.term_tokens_per_s[i] = i == kTermSets - 1 ? p.predicted_tokens_per_s : term_tokens_per_s(m, chip, p, i);
      p.term_relative_error[i] = relative_error(p.term_tokens_per_s[i], p.measured_tokens_per_s);
    }
  }
  p.relative_error = relative_error(p.predicted_tokens_per_s, p.measured_tokens_per_s);
  p.raw_predicted_tokens_per_s = p.predicted_tokens_per_s;  // predict_probed replaces the paired figures, not these
  p.raw_relative_error = p.relative_error;
  p.law_relative_error = relative_error(p.law_tokens_per_s, p.measured_tokens_per_s);
  p.bandwidth_fraction = p.achieved_bandwidth_bytes_per_s / chip.memory_bandwidth_bytes_per_s;
}

void set_point_work(const ModelSpec& m, ValidatePoint& p) {
  const bool prefill = p.phase == "prefill";
  const PassShape shape = prefill ? PassShape{1, p.prompt_tokens, 0, false} : PassShape{p.batch, 1, p.context - 1, false};
  const PassWork w = pass_work(m, plan_for(p), shape, 4.0);  // fp32 activations, as the CPU kernels keep them
  p.weight_bytes_per_token = w.weight_bytes / w.tokens;
  p.kv_read_bytes_per_token = w.kv_read_bytes / w.tokens;
  p.flops_per_token = w.flops / w.tokens;
}

namespace {

// What a decode point's rounds sample beside its steps. `memory`: the format's GEMV streamed from DRAM at the
// model's hidden width and the point's batch kind; it stands for the analyzer's `memory_key`. `cpu` (may be
// null): the format's one-token GEMV kept in L2 at the hidden width; its FLOP/s over `cpu_reference` (its rate
// when the group's calibration refresh ran) says how fast the cores ran in that round.
struct Probe {
  GemvStream* memory = nullptr;
  std::string memory_key;
  GemvStream* cpu = nullptr;
  double cpu_reference = 0;
};
struct RoundSamples {
  std::vector<double> steps, memory, cpu_speed;  // seconds per step, B/s, probe FLOP/s / reference (one per round)
};

// One decode point's step samples. Without a probe: `repetitions` samples after `warmup` steps. With a probe:
// `repetitions` rounds of (a memory sample of >= 20 ms, a CPU sample of >= 10 ms, a step sample of >= 5 ms)
// after the warm-up, so the roofs and the step see the same seconds of a shared host. Its DRAM bandwidth jumps
// between modes (this VM: 31-34 or 47-55 GB/s for the same GEMV, from one second to the next), and other
// tenants slow its cores in bursts that a memory probe does not see (in-cache GEMV 75-97 GFLOP/s within a minute).
Stats time_steps(const std::function<void()>& step, kernels::ThreadPool& pool, int warmup, int repetitions,
                 const Probe* probe, RoundSamples* out) {
  for (int i = 0; i < warmup; ++i) step();
  RoundSamples r;
  for (int i = 0; i < repetitions; ++i) {
    if (probe) r.memory.push_back(probe->memory->measure(pool, TimerOptions{0, 1, 20e-3}).bytes_per_s);
    if (probe && probe->cpu)
      r.cpu_speed.push_back(probe->cpu->measure(pool, TimerOptions{0, 1, 10e-3}).flops_per_s / probe->cpu_reference);
    r.steps.push_back(time_per_call(step, TimerOptions{0, 1, 5e-3}).median);
  }
  const Stats s = summarize(r.steps);
  if (out) *out = std::move(r);
  return s;
}

// The measured side of a decode point from its step samples.
void set_measured(ValidatePoint& p, const Stats& s) {
  p.measured_s_median = s.median;
  p.measured_spread = s.spread;
  p.samples = s.count;
  p.measured_tokens_per_s = static_cast<double>(p.batch) / s.median;
  p.achieved_bandwidth_bytes_per_s = p.bytes_per_token() * p.measured_tokens_per_s;
}

// The analyzer's side of a probed decode point. Each round's step is compared with the prediction at that
// round's memory sample (the roof at probe.memory_key), so a jump of the host's bandwidth between rounds moves
// both sides; the point's error is the median over rounds, and its own prediction is at the samples' median.
// The CPU samples only choose between attempts (measure_probed): scaling the compute figures by them as well
// did not lower the error consistently in four full sweeps on this VM (worst decode |error| with / without:
// 27.8 / 33.1%, 32.7 / 34.7%, 17.8 / 17.6%, 24.1 / 18.7%).
void predict_probed(const ModelSpec& m, const ChipSpec& now, const Probe& probe, const RoundSamples& r, ValidatePoint& p) {
  auto at = [&](double bytes_per_s) {
    ChipSpec c = now;
    if (!c.measured.set(probe.memory_key, bytes_per_s)) throw InternalError("validate: no calibrated rate is named " + probe.memory_key);
    return c;
  };
  p.probe_bytes_per_s = median(r.memory);
  p.probe_cpu_speed = r.cpu_speed.empty() ? 1.0 : median(r.cpu_speed);
  ValidatePoint raw = p;  // the group's refreshed figures as they are
  predict_point(m, now, raw);
  predict_point(m, at(p.probe_bytes_per_s), p);
  p.raw_predicted_tokens_per_s = raw.predicted_tokens_per_s;
  p.raw_relative_error = raw.relative_error;
  std::vector<double> errors;
  for (size_t i = 0; i < r.steps.size() && i < r.memory.size(); ++i)
    errors.push_back(r.steps[i] / predict_decode_s(m, at(r.memory[i]), p) - 1.0);
  p.relative_error = median(errors);
  p.predicted_s = p.measured_s_median / (1.0 + p.relative_error);
  p.predicted_tokens_per_s = p.measured_tokens_per_s * (1.0 + p.relative_error);
}

// A probed point is measured again (at most kRetries more times) while its CPU probe says the cores ran more than
// kContended off their speed at the group's calibration refresh (other tenants were using them), and the attempt
// nearest that speed is kept. measure(samples) times the point once.
constexpr int kRetries = 2;
constexpr double kContended = 0.15;
template <class Measure>
ValidatePoint measure_probed(const Measure& measure, const ModelSpec& m, const ChipSpec& now, const Probe& probe) {
  ValidatePoint best;
  RoundSamples best_samples;
  double best_off = std::numeric_limits<double>::infinity();
  int attempts = 0;
  for (int a = 0; a <= kRetries; ++a) {
    RoundSamples samples;
    ValidatePoint p = measure(samples);
    ++attempts;
    const double speed = samples.cpu_speed.empty() ? 1.0 : median(samples.cpu_speed);
    if (const double off = std::abs(std::log(speed)); off < best_off) best = std::move(p), best_samples = std::move(samples), best_off = off;
    if (std::abs(speed - 1.0) <= kContended) break;
  }
  best.attempts = attempts;
  predict_probed(m, now, probe, best_samples, best);
  return best;
}

ValidatePoint time_point(const ModelSpec& m, WeightFormat f, SyntheticEngine& model, kernels::ThreadPool& pool,
                         int warmup, int repetitions, int64_t batch, const Probe* probe = nullptr,
                         RoundSamples* samples = nullptr) {
  ValidatePoint p;
  p.model = m.id;
  p.format = kernels::format_name(f);
  p.context = model.context();
  p.batch = batch;
  p.threads = pool.size();
  set_point_work(m, p);
  if (!probe) set_measured(p, time_decode(model, warmup, repetitions, batch));
  else set_measured(p, time_steps([&] { model.step(batch); }, pool, warmup, repetitions, probe, samples));
  return p;
}

ValidatePoint time_prefill_point(const ModelSpec& m, WeightFormat f, SyntheticEngine& model, kernels::ThreadPool& pool,
                                 int warmup, int repetitions, int64_t prompt) {
  ValidatePoint p;
  p.model = m.id;
  p.format = kernels::format_name(f);
  p.phase = "prefill";
  p.context = prompt;
  p.prompt_tokens = prompt;
  p.threads = pool.size();
  set_point_work(m, p);
  const Stats s = time_prefill(model, prompt, warmup, repetitions);
  p.measured_s_median = s.median;
  p.measured_spread = s.spread;
  p.samples = s.count;
  p.measured_tokens_per_s = static_cast<double>(prompt) / s.median;
  p.achieved_bandwidth_bytes_per_s = p.bytes_per_token() * p.measured_tokens_per_s;
  return p;
}

bool contains(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}
template <class T>
bool contains(const std::vector<T>& v, T x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}
int64_t max_of(const std::vector<int64_t>& v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }

}  // namespace

ValidatePoint measure_point(const ModelSpec& m, WeightFormat f, int64_t context, kernels::ThreadPool& pool,
                            int warmup, int repetitions, int64_t batch) {
  SyntheticEngine model(m, f, context, 0x5eed, pool, batch);
  return time_point(m, f, model, pool, warmup, repetitions, batch);
}

ValidatePoint measure_prefill_point(const ModelSpec& m, WeightFormat f, int64_t prompt, kernels::ThreadPool& pool,
                                    int warmup, int repetitions) {
  SyntheticEngine model(m, f, prompt, 0x5eed, pool, 1, prompt);
  return time_prefill_point(m, f, model, pool, warmup, repetitions, prompt);
}

namespace {

// The key the analyzer reads for a batch's memory roof at width k: the single-token kernel, or the batched
// kernel at n = 4 / 16. The sweep's batches are those sizes (sweep.h), where the analyzer prices with
// that one kernel; a batch between them is priced on the line between two kernels' times (speed.cpp), and the
// probe would re-measure only one of the two.
std::string roof_key(WeightFormat f, int64_t k, int64_t batch) {
  const std::string kind = batch >= 16 ? "gemv_batch16_" : batch >= 2 ? "gemv_batch4_" : "gemv_";
  return kind + kernels::format_name(f) + "_stream_k" + std::to_string(k) + "_bytes_per_s";
}

// The probe of that roof: 32 MiB matrices of width k cycled past 4x the LLC the CPU reports, at the batch's kind
// (n = 1, 4 or 16). Calibrate cycles past 4x the cache-resident size it measured instead (smaller where a VM reports
// the host's whole L3); both read from DRAM. Its first call touches the matrices (not a sample).
std::unique_ptr<GemvStream> make_probe(WeightFormat f, int64_t k, int64_t batch, kernels::ThreadPool& pool) {
  const auto info = hwdb::host_cpu_info();
  const double llc = std::max({info.l3_bytes, info.l2_bytes, 8.0 * (1 << 20)});
  const int64_t n = batch >= 16 ? 16 : batch >= 2 ? 4 : 1;
  auto p = std::make_unique<GemvStream>(f, (int64_t{32} << 20) / kernels::row_bytes(f, k), k, 4 * llc, 11, n);
  p->measure(pool, TimerOptions{1, 1, 20e-3});
  return p;
}

// The CPU-speed probe of a format at hidden width k: its one-token GEMV over ~512 KB of k-long rows, one copy,
// so it stays in L2 (each thread's half) whatever the format; and its reference rate, the median of 5 samples
// taken now (right after the group's refresh measured the calibrated figures the predictions use).
std::pair<std::unique_ptr<GemvStream>, double> make_cpu_probe(WeightFormat f, int64_t k, kernels::ThreadPool& pool) {
  const int64_t rows = std::max<int64_t>(16, (int64_t{512} << 10) / kernels::row_bytes(f, k));
  auto p = std::make_unique<GemvStream>(f, rows, k, 0.0, 11, 1);
  const double reference = p->measure(pool, TimerOptions{1, 5, 10e-3}).flops_per_s;
  return {std::move(p), reference};
}

// The chip with the calibrated figures of `formats` re-measured now (run_calibration's refresh mode); the
// chip as given when the refresh is rejected (with a line in r.skipped naming `name`).
ChipSpec refreshed_chip(const ChipSpec& chip, int threads, std::vector<WeightFormat> formats, bool batched, bool prefill,
                        const std::string& name, SweepResult& r) {
  CalibrateOptions copt;
  copt.threads = threads;
  copt.refresh_formats = std::move(formats);
  copt.refresh_batched = batched;
  copt.refresh_prefill = prefill;
  const CalibrationRecord rec = run_calibration(copt);
  std::string why;
  ChipSpec now = hwdb::apply_calibration(chip, calibration_json(rec), &why);
  if (!why.empty()) {
    r.skipped.push_back(name + ": refreshed calibration rejected (" + why + "); the stored one is used");
    return chip;
  }
  r.refreshed_bandwidths_bytes_per_s.push_back(rec.memory_bandwidth_bytes_per_s);
  return now;
}

// The real model file: the engine's own decode step (the forward pass `rooftop run` times, sampling aside)
// at each of the plan's contexts. The prompt is random token ids; before every step the cache is rewound, so
// each step attends over exactly `context` positions as a synthetic point's does.
void measure_file(const SweepConfig& config, const ChipSpec& chip, kernels::ThreadPool& pool, SweepResult& r,
                  const std::function<void(const std::string&)>& progress) {
  const std::string name = std::filesystem::path(config.model_file).filename().string();
  std::unique_ptr<engine::LlamaModel> lm;
  try {
    lm = std::make_unique<engine::LlamaModel>(engine::load_llama(config.model_file));
  } catch (const std::exception& e) {
    r.skipped.push_back(name + ": " + e.what());
    return;
  }
  std::vector<int64_t> contexts;
  for (int64_t c : config.plan.contexts)
    if (c >= 2 && c < lm->cfg.context) contexts.push_back(c);
  if (contexts.empty()) return;
  if (progress) progress("[file] " + name);
  const ModelSpec& m = config.file_spec;
  const WeightFormat f = dominant_format(*lm);
  const bool probed = config.refresh_calibration && r.calibrated;
  std::vector<WeightFormat> formats = {f};
  for (WeightFormat g : {lm->token_embd.format, lm->output.format})
    if (!contains(formats, g)) formats.push_back(g);
  const ChipSpec now = probed ? refreshed_chip(chip, config.threads, formats, false, false, name, r) : chip;
  const std::unique_ptr<GemvStream> memory_probe = probed ? make_probe(f, lm->cfg.dim, 1, pool) : nullptr;
  auto [cpu_probe, cpu_reference] = probed ? make_cpu_probe(f, lm->cfg.dim, pool)
                                           : std::pair<std::unique_ptr<GemvStream>, double>{};
  const Probe probe{memory_probe.get(), roof_key(f, lm->cfg.dim, 1), cpu_probe.get(), cpu_reference};
  engine::Forward fwd(*lm, max_of(contexts), pool);
  std::mt19937 rng(0x5eed);
  std::uniform_int_distribution<int32_t> token(0, static_cast<int32_t>(lm->cfg.vocab - 1));
  std::vector<int32_t> prompt(static_cast<size_t>(max_of(contexts)));
  for (auto& t : prompt) t = token(rng);
  for (int64_t c : contexts) {
    fwd.rewind(0);
    fwd.prefill(std::span<const int32_t>(prompt).first(static_cast<size_t>(c - 1)));
    ValidatePoint p;
    p.model = m.id;
    p.format = kernels::format_name(f);
    p.file = config.model_file;
    p.embedding_format = analyzer_format(lm->token_embd.format);
    p.lm_head_format = analyzer_format(lm->output.format);
    p.context = c;
    p.threads = pool.size();
    set_point_work(m, p);
    const int32_t next = prompt[static_cast<size_t>(c - 1)];
    auto step = [&] {
      fwd.rewind(c - 1);
      fwd.decode(next);
    };
    auto measure = [&](RoundSamples& samples) {
      ValidatePoint q = p;
      set_measured(q, time_steps(step, pool, config.warmup, config.repetitions, probed ? &probe : nullptr, &samples));
      return q;
    };
    if (probed) p = measure_probed(measure, m, now, probe);
    else {
      RoundSamples samples;
      p = measure(samples);
      predict_point(m, now, p);
    }
    r.points.push_back(std::move(p));
  }
}

}  // namespace

namespace {

// One (model, format) group of the plan, as run_sweep sized it.
struct Group {
  const ModelSpec* m = nullptr;
  WeightFormat f = WeightFormat::f32;
  std::string name;  // "smollm2-135m q8_0"
  bool decode = false, batched = false, prefill = false;
  int64_t max_batch = 1, max_prompt = 0, max_context = 1;
  double need = 0;     // bytes it allocates
  uint32_t seed = 0;
};

// Measures a group: the format's calibration refresh, the synthetic model, its probes, then its decode points
// (only the (batch, context) pairs in `only` when given) and, without `only`, its prefill points.
void measure_group(const SweepConfig& config, const ChipSpec& chip, kernels::ThreadPool& pool, const Group& g,
                   const std::vector<std::pair<int64_t, int64_t>>* only, std::vector<ValidatePoint>& out, SweepResult& r) {
  const ModelSpec& m = *g.m;
  const WeightFormat f = g.f;
  const SweepPlan& plan = config.plan;
  const bool prefill = g.prefill && !only;
  const ChipSpec now = config.refresh_calibration && r.calibrated
                           ? refreshed_chip(chip, config.threads, {f}, g.batched && !only, prefill, g.name, r)
                           : chip;
  try {
    // The roofs of this format, re-measured during every decode point (samples in turn with the step's):
    // the host's bandwidth and its cores' speed move within the minute a group takes, and within seconds.
    // One memory probe per batch kind (the batched kernels have their own DRAM rate), at the model's hidden
    // width (the k of q, k, v, gate, up and the LM head); one CPU probe.
    const bool probed = config.refresh_calibration && r.calibrated && g.decode;
    std::map<int64_t, std::unique_ptr<GemvStream>> memory_probes;
    // A pair, not a structured binding: clang 14 (the sanitizer build) cannot capture bindings in a lambda.
    const auto cpu = probed ? make_cpu_probe(f, m.hidden, pool) : std::pair<std::unique_ptr<GemvStream>, double>{};
    auto probe_for = [&](int64_t batch) {
      auto& p = memory_probes[batch >= 16 ? 16 : batch >= 2 ? 4 : 1];
      if (!p) p = make_probe(f, m.hidden, batch, pool);
      return Probe{p.get(), roof_key(f, m.hidden, batch), cpu.first.get(), cpu.second};
    };
    SyntheticEngine model(m, f, g.max_context, g.seed, pool, g.max_batch, prefill ? g.max_prompt : 0);
    std::vector<int64_t> batches = {1};
    if (g.batched) batches.insert(batches.end(), plan.batches.begin(), plan.batches.end());
    for (int64_t b : g.decode ? batches : std::vector<int64_t>{})
      for (int64_t c : plan.contexts) {
        if (only && !contains(*only, std::pair<int64_t, int64_t>{b, c})) continue;
        model.set_context(c);
        ValidatePoint p;
        if (probed) {
          const Probe probe = probe_for(b);
          p = measure_probed([&](RoundSamples& samples) {
                return time_point(m, f, model, pool, config.warmup, config.repetitions, b, &probe, &samples);
              }, m, now, probe);
        } else {
          p = time_point(m, f, model, pool, config.warmup, config.repetitions, b);
          predict_point(m, now, p);
        }
        out.push_back(std::move(p));
      }
    for (int64_t prompt : prefill ? plan.prompts : std::vector<int64_t>{}) {
      // A prefill lasts far longer than a decode step: fewer samples keep the sweep short.
      ValidatePoint p = time_prefill_point(m, f, model, pool, 1, std::max(3, config.repetitions / 2), prompt);
      predict_point(m, now, p);
      out.push_back(std::move(p));
    }
  } catch (const std::bad_alloc&) {
    r.skipped.push_back(g.name + ": allocation of " + gb(g.need) + " failed");
  }
}

bool contended(const ValidatePoint& p) {
  return p.phase == "decode" && p.probe_bytes_per_s > 0 && p.attempts > kRetries && std::abs(p.probe_cpu_speed - 1.0) > kContended;
}

}  // namespace

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
  const SweepPlan& plan = config.plan;
  std::vector<WeightFormat> formats = plan.formats;
  for (WeightFormat f : plan.prefill_formats)
    if (!contains(formats, f)) formats.push_back(f);
  const size_t total = config.models.size() * formats.size();
  size_t index = 0;
  std::vector<Group> groups;
  for (const auto& m : config.models) {
    for (WeightFormat f : formats) {
      ++index;
      Group g;
      g.m = &m;
      g.f = f;
      g.decode = contains(plan.model_ids, m.id) && contains(plan.formats, f);
      g.batched = g.decode && contains(plan.batch_model_ids, m.id) && !plan.batches.empty();
      g.prefill = contains(plan.prefill_model_ids, m.id) && contains(plan.prefill_formats, f) && !plan.prompts.empty();
      if (!g.decode && !g.prefill) continue;
      g.name = m.id + " " + kernels::format_name(f);
      if (auto why = decode_shape_problem(m, f); !why.empty()) {
        r.skipped.push_back(g.name + ": " + why);
        continue;
      }
      g.max_batch = g.batched ? std::max<int64_t>(1, max_of(plan.batches)) : 1;
      g.max_prompt = g.prefill ? max_of(plan.prompts) : 0;
      g.max_context = std::max({int64_t{1}, g.decode ? max_of(plan.contexts) : 0, g.max_prompt});
      g.need = decode_alloc_bytes(m, f, g.max_context, g.max_batch, g.max_prompt);
      if (config.max_memory_bytes > 0 && g.need > config.max_memory_bytes) {
        r.skipped.push_back(g.name + ": needs " + gb(g.need) + ", over --max-memory " + gb(config.max_memory_bytes));
        continue;
      }
      if (progress) progress("[" + std::to_string(index) + "/" + std::to_string(total) + "] " + g.name + " (" + gb(g.need) + ")");
      g.seed = 0x5eed + static_cast<uint32_t>(index);
      groups.push_back(g);
      measure_group(config, chip, pool, g, nullptr, r.points, r);
    }
  }
  // Points whose cores stayed over 15% off through all their attempts are measured once more at the end of
  // the sweep, minutes later (a tenant's load on this VM lasts tens of seconds); the attempt nearest the
  // refresh's speed is kept.
  for (const Group& g : groups) {
    std::vector<std::pair<int64_t, int64_t>> again;
    for (const auto& p : r.points)
      if (contended(p) && p.model == g.m->id && p.format == kernels::format_name(g.f)) again.push_back({p.batch, p.context});
    if (again.empty()) continue;
    if (progress) progress("[again] " + g.name + ": " + std::to_string(again.size()) + " point(s) measured while the cores were busy");
    std::vector<ValidatePoint> fresh;
    measure_group(config, chip, pool, g, &again, fresh, r);
    for (auto& q : fresh)
      for (auto& p : r.points)
        if (p.phase == "decode" && p.model == q.model && p.format == q.format && p.batch == q.batch && p.context == q.context) {
          q.attempts += p.attempts;
          q.measured_at_end = true;
          if (std::abs(std::log(q.probe_cpu_speed)) < std::abs(std::log(p.probe_cpu_speed))) p = q;
          else p.attempts = q.attempts, p.measured_at_end = true;
        }
  }
  if (!config.model_file.empty()) measure_file(config, chip, pool, r, progress);
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

}  // namespace rooftop::validate
