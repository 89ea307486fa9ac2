// rooftop run: generate text with the engine on a GGUF model, streaming it, then print the measured timeline.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <thread>

#include "cli/cli.h"
#include "base/json.h"
#include "cli/common.h"
#include "cli/refresh.h"
#include "hwdb/hwdb.h"
#include "base/clock.h"
#include "base/limits.h"
#include "analyzer/speed.h"
#include "base/suggest.h"
#include "engine/forward.h"
#include "engine/generate.h"
#include "engine/model_path.h"
#include "engine/run_record.h"
#include "kernels/cpu/thread_pool.h"
#include "hwdb/calibration.h"
#include "validate/local/file.h"
#include "base/process.h"
#include "models/models.h"

namespace rooftop::cli {
namespace {

// engine::PassStages, in pass order, by the analyzer's op names.
constexpr const char* kStageNames[] = {"embed", "norms", "attn_proj", "attention", "ffn", "small_ops", "lm_head"};

// The stages' seconds, each divided by `passes` (decode: the mean step).
std::vector<std::pair<std::string, double>> stage_list(const engine::PassStages& s, double passes = 1) {
  const double values[] = {s.embed, s.norms, s.attn_proj, s.attention, s.ffn, s.small_ops, s.lm_head};
  std::vector<std::pair<std::string, double>> out;
  for (size_t i = 0; i < std::size(kStageNames); ++i) out.emplace_back(kStageNames[i], passes > 0 ? values[i] / passes : 0.0);
  return out;
}

// The analyzer's ops under the engine's stage names, each with its share of the fixed costs (the matmul regions'
// starts with their stages, the input norms' values with norms; barriers and the other small ops with small_ops).
// fixed_s: the pass's time less its ops; what `fixed` does not place (a GPU profile's per-layer cost) is small_ops'.
std::vector<std::pair<std::string, double>> predicted_stages(const std::vector<OpCost>& ops, const std::vector<double>& op_s,
                                                             double fixed_s, const FixedByStage& fixed) {
  std::map<std::string, double> by_stage;
  for (size_t i = 0; i < ops.size() && i < op_s.size(); ++i) by_stage[ops[i].name] += op_s[i];
  by_stage["norms"] += fixed.norms;
  by_stage["attn_proj"] += fixed.attn_proj;
  by_stage["ffn"] += fixed.ffn;
  by_stage["lm_head"] += fixed.lm_head;
  by_stage["small_ops"] += fixed_s - (fixed.total() - fixed.small_ops);
  std::vector<std::pair<std::string, double>> out;
  for (const char* stage : kStageNames) out.emplace_back(stage, by_stage.count(stage) ? by_stage[stage] : 0.0);
  return out;
}

// What the analyzer predicts for this run on the "cpu" card: batch 1, the same prompt and output lengths,
// the file's own tensors (exact bytes, each class's largest format for its rates), fp32 KV as the engine keeps it.
engine::RunPrediction predict(const ChipSpec& chip, const engine::LlamaModel& model, const std::string& path,
                              const engine::RunRecord& r, double baseline_resident_bytes) {
  ModelSpec spec = models::from_gguf(path);
  const PrecisionPlan plan = models::gguf_precision_plan(model.file, "fp32");  // the engine keeps KV in fp32
  SpeedOptions o;
  o.batches = {1};
  o.prompt_tokens = r.prompt_tokens;
  o.output_tokens = std::max<int64_t>(1, r.generated_tokens);
  SpeedResult res = speed(spec, chip, plan, o);
  engine::RunPrediction p;
  FitOptions fo;  // the run's memory: its KV capacity, the whole prompt in flight, the process before loading
  fo.context = r.kv_capacity;
  fo.prefill_chunk = std::max<int64_t>(1, r.prompt_tokens);
  if (baseline_resident_bytes > 0) fo.overhead_bytes = baseline_resident_bytes;  // else the fit's stated default
  const FitResult f = fit(spec, chip, plan, fo);
  p.memory_bytes = f.total_bytes;
  p.weights_bytes = f.weights.total;
  p.kv_bytes = f.kv_bytes;
  p.activation_bytes = f.activation_bytes;
  p.overhead_bytes = f.overhead_bytes;
  if (res.points.empty()) return p;
  p.ttft_s = res.points[0].ttft_s;
  p.tpot_s = res.points[0].tpot_s;
  p.prefill_stages = predicted_stages(res.prefill_ops, res.prefill_op_s, res.prefill_fixed_s, res.prefill_fixed);
  const SpeedPoint& pt = res.points[0];
  double decode_ops_s = 0;
  for (double x : pt.decode_op_s) decode_ops_s += x;
  p.decode_stages = predicted_stages(pt.decode_ops, pt.decode_op_s, pt.tpot_s - decode_ops_s, pt.decode_fixed);
  p.decode_tokens_per_s = res.points[0].decode_tokens_per_s;
  return p;
}

nlohmann::json top_json(const engine::Tokenizer& tok, const std::vector<engine::TokenProb>& top) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& t : top) a.push_back({{"id", t.id}, {"piece", tok.piece(t.id)}, {"prob", t.prob}, {"logit", t.logit}});
  return a;
}

nlohmann::json run_json(const engine::RunRecord& r, const engine::Tokenizer& tok) {
  nlohmann::json j;
  j["model"] = r.model_path;
  ROOFTOP_JSON_FIELDS(j, r, threads, prompt_tokens, generated_tokens, text, prefill_s);
  j["prefill_s_per_token"] = r.prompt_tokens ? r.prefill_s / double(r.prompt_tokens) : 0.0;
  j["prefill_tokens_per_s"] = r.prefill_s > 0 ? double(r.prompt_tokens) / r.prefill_s : 0.0;
  for (const auto& [stage, sec] : r.prefill_stages) j["prefill_stages_s"][stage] = sec;
  for (const auto& [stage, sec] : r.decode_stages) j["decode_stages_s"][stage] = sec;
  ROOFTOP_JSON_FIELDS(j, r, ttft_s, tpot_s, decode_tokens_per_s, kv_bytes_per_token, kv_bytes_after_prefill,
                      weights_bytes_per_step, stop_reason);
  j["steps"] = nlohmann::json::array();
  for (const auto& s : r.steps) {
    nlohmann::json st = {{"s", s.s}, {"kv_bytes", s.kv_bytes}, {"id", s.token}, {"piece", s.piece}};
    if (!s.top.empty()) st["top"] = top_json(tok, s.top);
    j["steps"].push_back(st);
  }
  if (!r.first_top.empty()) j["first_top"] = top_json(tok, r.first_top);
  j["kv_capacity"] = r.kv_capacity;
  if (r.peak_resident_bytes > 0) j["peak_resident_bytes"] = r.peak_resident_bytes;
  if (!r.energy_source.empty()) {
    const double in = r.prefill_joules / double(r.prompt_tokens);
    const double out = r.steps.empty() ? 0.0 : r.decode_joules / double(r.steps.size());
    j["energy"] = {{"source", r.energy_source}, {"prefill_joules", r.prefill_joules}, {"decode_joules", r.decode_joules},
                   {"joules_per_input_token", in}, {"joules_per_output_token", out},
                   {"decode_to_prefill_energy_ratio", in > 0 ? out / in : 0.0}};
  } else {
    j["energy"] = {{"source", nullptr}, {"note", r.energy_note}};
  }
  auto prediction = [](const engine::RunPrediction& p) {
    nlohmann::json stages = nlohmann::json::object(), decode_stages = nlohmann::json::object();
    for (const auto& [stage, sec] : p.prefill_stages) stages[stage] = sec;
    for (const auto& [stage, sec] : p.decode_stages) decode_stages[stage] = sec;
    return nlohmann::json{{"ttft_s", p.ttft_s}, {"tpot_s", p.tpot_s}, {"decode_tokens_per_s", p.decode_tokens_per_s},
                          {"memory_bytes", p.memory_bytes},
                          {"memory_parts", {{"weights_bytes", p.weights_bytes}, {"kv_bytes", p.kv_bytes},
                                            {"activation_bytes", p.activation_bytes},
                                            {"overhead_bytes", p.overhead_bytes}}},
                          {"prefill_stages_s", stages}, {"decode_stages_s", decode_stages}};
  };
  if (r.predicted) j["predicted"] = prediction(*r.predicted);
  if (r.predicted_refreshed) j["predicted_refreshed"] = prediction(*r.predicted_refreshed);
  if (!r.refresh_note.empty()) j["refresh_note"] = r.refresh_note;
  if (!r.calibration_measured_at.empty()) {
    j["calibration_measured_at"] = r.calibration_measured_at;
    if (r.calibration_age_s) j["calibration_age_s"] = *r.calibration_age_s;
  }
  return j;
}

std::string show(const std::string& piece) {
  std::string s;
  for (char c : piece) s += c == ' ' ? std::string("\u2423") : c == '\n' ? std::string("\\n") : std::string(1, c);
  return s;
}

std::string top_line(const engine::Tokenizer& tok, const std::vector<engine::TokenProb>& top) {
  std::string s;
  for (const auto& t : top) s += fmt::format("  '{}' {:.3f}", show(tok.piece(t.id)), t.prob);
  return s;
}

std::string run_table(const engine::RunRecord& r, const engine::Tokenizer& tok, bool explain) {
  std::string s = "\n";
  s += fmt::format("model                 {}\n", r.model_path);
  s += fmt::format("threads               {}\n", r.threads);
  s += fmt::format("prompt tokens         {}\n", r.prompt_tokens);
  s += fmt::format("prefill               {:.2f} ms ({:.3f} ms/token, {:.1f} tok/s)\n", r.prefill_s * 1e3,
                   r.prefill_s * 1e3 / double(r.prompt_tokens), double(r.prompt_tokens) / r.prefill_s);
  s += fmt::format("TTFT                  {:.2f} ms\n", r.ttft_s * 1e3);
  s += fmt::format("KV after prefill      {} bytes ({} per token)\n", r.kv_bytes_after_prefill, r.kv_bytes_per_token);
  if (!r.first_top.empty()) s += "first token top:" + top_line(tok, r.first_top) + "\n";
  s += fmt::format("{:>5} {:>10} {:>12}  {}\n", "step", "ms", "kv bytes", "token");
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const auto& st = r.steps[i];
    s += fmt::format("{:>5} {:>10.3f} {:>12}  '{}'{}\n", i + 1, st.s * 1e3, st.kv_bytes,
                     st.piece.empty() ? std::string("<stop>") : show(st.piece),
                     st.top.empty() ? std::string() : "   top:" + top_line(tok, st.top));
  }
  s += fmt::format("generated tokens      {} (stop: {})\n", r.generated_tokens, r.stop_reason);
  if (r.steps.empty()) {
    s += "TPOT                  n/a (no decode step)\n";
  } else {
    s += fmt::format("TPOT                  {:.3f} ms ({:.1f} tok/s)\n", r.tpot_s * 1e3, r.decode_tokens_per_s);
    s += fmt::format("weights per step      {} bytes ({:.1f} GB/s achieved)\n", r.weights_bytes_per_step,
                     double(r.weights_bytes_per_step) / r.tpot_s / 1e9);
  }
  if (!r.energy_source.empty()) {
    const double in = r.prefill_joules / double(r.prompt_tokens);
    const double out = r.steps.empty() ? 0.0 : r.decode_joules / double(r.steps.size());
    s += fmt::format("energy ({})  {:.4f} J per prompt token, {:.4f} J per output token ({:.1f}x; seed 004 measured 20-35x)\n",
                     r.energy_source, in, out, in > 0 ? out / in : 0.0);
  } else {
    s += "energy                not measured: " + r.energy_note + "\n";
  }
  if (r.predicted) {
    s += fmt::format("{:<22}{:>12} {:>12}\n", "", "measured", "predicted");
    s += fmt::format("{:<22}{:>12.2f} {:>12.2f}\n", "TTFT (ms)", r.ttft_s * 1e3, r.predicted->ttft_s * 1e3);
    s += fmt::format("{:<22}{:>12.3f} {:>12.3f}\n", "TPOT (ms)", r.tpot_s * 1e3, r.predicted->tpot_s * 1e3);
    s += fmt::format("{:<22}{:>12.1f} {:>12.1f}\n", "decode tok/s", r.decode_tokens_per_s,
                     r.predicted->decode_tokens_per_s);
    if (r.predicted_refreshed)
      s += fmt::format("{:<22}{:>12} {:>12.2f} / {:.3f}  (TTFT ms / TPOT ms from the file's formats re-measured just now)\n",
                       "predicted, refreshed", "", r.predicted_refreshed->ttft_s * 1e3, r.predicted_refreshed->tpot_s * 1e3);
    if (!r.refresh_note.empty()) s += "refresh: " + r.refresh_note + "\n";
    if (!r.calibration_measured_at.empty())
      s += fmt::format("{:<22}measured {}{} (a shared machine's speed drifts after calibration; --refresh re-measures "
                       "the file's formats now)\n", "calibration", r.calibration_measured_at,
                       r.calibration_age_s ? ", " + age_text(*r.calibration_age_s) + " before this run" : std::string());
    if (r.peak_resident_bytes > 0)
      s += fmt::format("{:<22}{:>12.1f} {:>12.1f}  (fit: weights {:.1f} + KV {:.1f} for {} positions + activations "
                       "{:.1f} + the runtime before the weights were read {:.1f})\n",
                       "peak memory (MB)", r.peak_resident_bytes / 1e6, r.predicted->memory_bytes / 1e6,
                       r.predicted->weights_bytes / 1e6, r.predicted->kv_bytes / 1e6, r.kv_capacity,
                       r.predicted->activation_bytes / 1e6, r.predicted->overhead_bytes / 1e6);
    // The two sides split the small work differently (the engine's post-norms and q/k norms run inside its small
    // ops; the analyzer prices every norm in its norms op and again per value in its fixed costs): read norms and
    // small_ops together.
    auto stage_table = [&](const char* title, const auto& measured, const auto& predicted) {
      if (!explain || measured.empty() || predicted.size() != measured.size()) return;
      s += fmt::format("\n{} by stage (ms). small_ops: RoPE, residual adds, SwiGLU/GeGLU, Gemma's post- and q/k-norms, "
                       "and (predicted) the layers' barriers; each matmul stage includes its regions' starts, norms the "
                       "input norms' values; lm_head includes the output norm.\n{:<22}{:>12} {:>12} {:>9}\n",
                       title, "stage", "measured", "predicted", "error");
      for (size_t i = 0; i < measured.size(); ++i) {
        const double m = measured[i].second, p = predicted[i].second;
        s += fmt::format("{:<22}{:>12.3f} {:>12.3f} {:>9}\n", measured[i].first, m * 1e3, p * 1e3,
                         m > 0 && p > 0 ? fmt::format("{:+.0f}%", 100 * (p / m - 1)) : std::string("-"));
      }
    };
    stage_table("prefill", r.prefill_stages, r.predicted->prefill_stages);
    stage_table("one decode step (the mean; without sampling)", r.decode_stages, r.predicted->decode_stages);
  }
  return s;
}

}  // namespace

void register_run(CLI::App& app, Context& ctx) {
  struct Opts {
    std::string gguf, prompt;
    std::vector<int32_t> prompt_ids;
    int64_t n = 64, show_logits = 0, context = 0;
    int threads = 0;
    bool chat = false, ignore_eos = false, special = false, refresh = false;
    std::string system;  // used when --system is given; else the chat template's default
    engine::SamplerConfig s;
    OutputOptions out;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("run", "generate text with the project's own engine and kernels, and time it\n"
                                        "Example: rooftop run --chat --prompt \"What is the capital of France?\" -n 32 [--gguf gemma3]");
  add_gguf_option(*cmd, o->gguf);
  auto* prompt = cmd->add_option("-p,--prompt", o->prompt, "the prompt text");
  auto* prompt_ids = cmd->add_option("--prompt-ids", o->prompt_ids, "the prompt as token ids, comma-separated (exactly "
                                                                    "these ids run: for timing against other engines)")
                         ->delimiter(',');
  prompt->excludes(prompt_ids);
  prompt_ids->excludes(prompt);
  cmd->add_option("-n", o->n, "tokens to generate")->capture_default_str()->check(in_range(1, double(limits::kContext)));
  cmd->add_flag("--chat", o->chat, "wrap the prompt in the model's chat template (system + user turn)");
  auto* system = cmd->add_option("--system", o->system, "the system turn for --chat (default: the chat template's own; \"\" = none)");
  cmd->add_flag("--special", o->special, "recognise control tokens such as <|im_start|> written in the prompt");
  cmd->add_option("--temperature", o->s.temperature, "0 = greedy")->capture_default_str()->check(in_range(0, 100));
  cmd->add_option("--top-k", o->s.top_k, "keep the k likeliest tokens (0 = all)")->capture_default_str()->check(in_range(0, double(limits::kVocab)));
  cmd->add_option("--top-p", o->s.top_p, "keep the smallest set reaching probability p")->capture_default_str()->check(in_range(1e-6, 1));
  add_seed_option(*cmd, o->s.seed, "random seed for sampling");
  cmd->add_option("--show-logits", o->show_logits, "print the N likeliest next tokens at each step")->capture_default_str()->check(in_range(0, 1000));
  add_threads_option(*cmd, o->threads);
  cmd->add_option("--context", o->context, "KV cache capacity in tokens (0 = prompt + n)")->check(in_range(0, double(limits::kContext)));
  cmd->add_flag("--refresh", o->refresh,
                "after the run, re-measure the calibrated figures of the file's formats (a few seconds) and predict from "
                "them too: this machine's speed now, not at calibration time");
  cmd->add_flag("--ignore-eos", o->ignore_eos, "keep generating past the stop token (for timing)");
  add_output_options(*cmd, o->out, {"table", "json"});
  cmd->callback([&ctx, o, system] {
    ctx.action = [&ctx, o, given = system->count() > 0] {
      check_threads(o->threads);
      std::string path = engine::resolve_model(o->gguf);
      engine::LlamaModel model = engine::load_llama(path);
      auto tok = engine::Tokenizer::take_from_gguf(model.file);
      // The runtime's own memory (process, libraries, tokenizer, the file's metadata pages), measured before any
      // weight is read: the overhead the fit prediction adds to the model's weights, KV and activations.
      const double baseline = resident_memory().value_or(ResidentMemory{}).current_bytes;
      model.file.populate();  // weights paged in here, not inside the timed prefill
      std::string text = o->chat ? tok.chat_prompt(o->prompt, given ? std::optional<std::string_view>(o->system) : std::nullopt)
                                 : o->prompt;
      if (o->prompt.empty() && o->prompt_ids.empty())
        throw InputError("no prompt: expected --prompt TEXT or --prompt-ids ID,ID,...");
      if (!o->prompt_ids.empty() && o->chat) throw InputError("--chat wraps a text prompt; it cannot be used with --prompt-ids");
      auto ids = o->prompt_ids.empty() ? tok.prompt_ids(text, o->chat || o->special) : o->prompt_ids;
      if (ids.empty()) throw InputError("the prompt is empty: at least one token is needed");
      int64_t need = int64_t(ids.size()) + o->n;
      if (need > model.cfg.context)
        throw InputError(fmt::format("prompt ({} tokens) + -n {} = {} tokens exceeds the model's context of {}",
                                     ids.size(), o->n, need, model.cfg.context));
      if (o->context > model.cfg.context)
        throw InputError(fmt::format("--context {} exceeds the model's context of {} tokens", o->context, model.cfg.context));
      if (o->context > 0 && o->context < need)
        throw InputError(fmt::format("--context {} is below the prompt ({} tokens) + -n {} = {} tokens", o->context,
                                     ids.size(), o->n, need));
      int64_t capacity = o->context > 0 ? o->context : need;
      // The KV cache (fp32 K and V per layer, windows on local layers) is allocated whole: refuse up front what
      // memory cannot hold.
      const double kv_bytes = model.cfg.kv_cache_bytes(capacity);
      const double memory = hwdb::detect_host_cpu().memory_bytes;
      if (memory > 0 && kv_bytes > 0.8 * memory)
        throw InputError(fmt::format("a KV cache of {} tokens needs {:.3g} GB; this machine has {:.3g} GB of memory "
                                     "(expected a --context / -n that fits in 80% of it)", capacity, kv_bytes / 1e9, memory / 1e9));
      kernels::ThreadPool pool(o->threads);
      engine::Forward fwd(model, capacity, pool);
      engine::GenerateOptions g;
      g.max_tokens = o->n;
      g.sampler = o->s;
      g.show_logits = o->show_logits;
      g.stop_at_eos = !o->ignore_eos;
      const bool stream = o->out.format == "table" && (o->out.output.empty() || o->out.output == "-");
      engine::PassStages stages, decode_stages;
      fwd.set_stage_clock(&stages, &decode_stages);  // the prefill's and decode steps' stages (about 13 clock reads a layer)
      engine::RunRecord r = engine::generate(fwd, tok, ids, g, [&](const std::string& piece) {
        if (stream) ctx.out << piece << std::flush;
      });
      fwd.set_stage_clock(nullptr);
      r.prefill_stages = stage_list(stages);
      r.decode_stages = stage_list(decode_stages, double(r.steps.size()));
      r.model_path = path;
      r.threads = pool.size();
      r.kv_capacity = capacity;
      r.peak_resident_bytes = resident_memory().value_or(ResidentMemory{}).peak_bytes;
      const ChipSpec chip = resolve_chip(ctx, "cpu");
      r.predicted = predict(chip, model, path, r, baseline);
      r.calibration_measured_at = chip.measured.measured_at;
      if (!r.calibration_measured_at.empty()) r.calibration_age_s = seconds_since_utc(r.calibration_measured_at);
      if (o->refresh) {
        if (chip.measured.empty()) {
          r.refresh_note = "this CPU is not calibrated (run rooftop calibrate): nothing to refresh";
        } else {
          std::string why;
          const ChipSpec now = refreshed_for_model(chip, model, o->threads, why);
          if (why.empty()) r.predicted_refreshed = predict(now, model, path, r, baseline);
          else r.refresh_note = "re-measured figures rejected (" + why + ")";
        }
      }
      if (o->out.format == "json")
        emit(ctx, o->out, run_json(r, tok).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
      else
        emit(ctx, o->out, (stream ? std::string("\n") : r.text + "\n") + run_table(r, tok, o->out.explain));
      return kExitOk;
    };
  });
}

}  // namespace rooftop::cli
