// Predictions of published records from their passes: see predict.h.
#include "validate/predict.h"

#include <algorithm>
#include <cmath>

#include "base/suggest.h"
#include "formats/formats.h"
#include "analyzer/memory.h"
#include "analyzer/work.h"

namespace rooftop::validate {
namespace {

// Printed model names of the dataset -> the card with that architecture (the card ids themselves need none).
struct Alias {
  const char* printed;
  const char* card;
};
constexpr Alias kAliases[] = {
    {"meta-llama/Meta-Llama-3-8B", "llama-3-8b"},
    {"meta-llama/Meta-Llama-3-8B-Instruct", "llama-3-8b"},
    {"meta-llama/Meta-Llama-3-70B", "llama-3-70b"},
    {"meta-llama/Meta-Llama-3-70B-Instruct", "llama-3-70b"},
    {"meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b"},
    {"Llama 4 Scout", "llama-4-scout"},
    {"meta-llama/Llama-4-Maverick-17B-128E-Instruct", "llama-4-maverick"},
    {"Qwen/Qwen3-235B-A22B", "qwen3-235b-a22b"},
    {"Qwen/Qwen3-0.6B", "qwen3-0.6b"},
    {"Mixtral 8x22B", "mixtral-8x22b"},
    {"GPT-J 6B", "gpt-j-6b"},
    {"Falcon 180B", "falcon-180b"},
    // llama-bench prints the architecture and size of the file ("llama 7B"): LLaMA-1 7B's shape (Llama-2 7B's
    // differs only in context length); "llama 13B" is the 13B shape both generations share.
    {"llama 7B", "llama-7b"},
    {"LLaMA 7B", "llama-7b"},
    {"llama 13B", "llama-2-13b"},
    // "llama 8B": a llama-architecture file of about 8B parameters, Llama 3's 8B shape (Llama 3 and 3.1 8B share it:
    // 32 layers, 4096 wide, 8 KV heads, a 128,256-token vocabulary). "llama 1B" is left unresolved: TinyLlama 1.1B and
    // Llama 3.2 1B both print it.
    {"llama 8B", "llama-3-8b"},
    {"tinyllama-1.1b-1t-openorca", "tinyllama-1.1b"},  // TinyLlama-1.1B fine-tune: same config
    {"mlx-community/Qwen2.5-72B-Instruct-6bit", "qwen2.5-72b"},
    {"mlx-community/Qwen2.5-32B-Instruct-4bit", "qwen2.5-32b"},
};

// Weights as the dataset prints them -> the format table's name. GGUF file types map to their mixes where the
// table has one; the _S types (Q4_K_S, Q3_K_S ...) to their main block format (their few larger tensors left out).
// TensorRT-LLM's FP4 is NVFP4; MLX's n-bit is its group-64 format with a 16-bit scale and bias.
const std::map<std::string, std::string>& weight_table() {
  static const std::map<std::string, std::string> t = {
      {"fp16", "fp16"},         {"f16", "fp16"},          {"bf16", "bf16"},     {"fp8", "fp8"},       {"fp4", "nvfp4"},
      {"int8", "int8"},         {"int4-g32", "int4_g32"}, {"mlx-4bit", "mlx_4bit"}, {"mlx-6bit", "mlx_6bit"},
      {"q4_k_m", "q4_k_m"},     {"q5_k_m", "q5_k_m"},     {"q4_0", "q4_0"},     {"q4_1", "q4_1"},     {"q5_0", "q5_0"},     {"q5_1", "q5_1"},
      {"q8_0", "q8_0_file"},    {"q6_k", "q6_k_file"},    {"q4_k_s", "q4_k"},   {"q5_k_s", "q5_k"},   {"q3_k_s", "q3_k"},
      {"q2_k", "q2_k"},         {"q3_k_m", "q3_k_m"},     {"mxfp4", "mxfp4"}};
  return t;
}

std::string kv_format_of(const std::string& printed) {
  if (printed == "fp8" || printed == "fp8_e5m2") return printed;
  return "fp16";  // "default": 16-bit KV (fp16/bf16 take the same bytes)
}

std::string metric_class(const PublishedRecord& r) {
  const bool one = r.batch && *r.batch == 1;
  if (r.metric == "pp_tok_s") return "prefill";
  if (r.metric == "ttft_s") return "ttft";
  if (r.metric == "tg_tok_s" || r.metric == "tpot_s") return one ? "decode" : "batched";
  if (r.metric == "request_s") return "end_to_end";
  return one ? "end_to_end" : "batched";  // throughput_tok_s, total_tok_s
}

}  // namespace

std::optional<std::string> model_card_id(const std::string& printed, const models::Database& models) {
  if (models.find(printed)) return printed;
  for (const auto& a : kAliases)
    if (printed == a.printed && models.find(a.card)) return std::string(a.card);
  return std::nullopt;
}

std::optional<std::string> weight_format_of(const std::string& printed) {
  auto it = weight_table().find(printed);
  if (it == weight_table().end()) return std::nullopt;
  return it->second;
}

const RuntimeProfile& profile_by_id(const std::vector<RuntimeProfile>& profiles, const std::string& id) {
  for (const auto& p : profiles)
    if (p.id == id) return p;
  return profiles.front();
}

std::string runtime_for_engine(const PublishedSource& source, const std::vector<RuntimeProfile>& profiles) {
  for (const auto& p : profiles)
    if (std::find(p.engines.begin(), p.engines.end(), source.engine) != p.engines.end() &&
        p.covers_build(source.engine_version, source.date))
      return p.id;
  return "generic";
}

CaseSet build_cases(const PublishedDataset& data, const std::vector<RuntimeProfile>& profiles,
                    const hwdb::Database& chips, const models::Database& models, const std::string& forced_runtime,
                    const std::string& only_hw) {
  CaseSet out;
  auto profile = [&](const std::string& id) -> const RuntimeProfile& { return profile_by_id(profiles, id); };
  for (int i = 0; i < static_cast<int>(data.records.size()); ++i) {
    const PublishedRecord& rec = data.records[static_cast<size_t>(i)];
    if (!only_hw.empty() && rec.hw != only_hw) continue;
    auto skip = [&](const std::string& why) { out.skipped.push_back({i, why}); };
    const PublishedSource& source = data.sources[static_cast<size_t>(rec.source)];
    const RuntimeProfile& prof = profile(forced_runtime.empty() ? runtime_for_engine(source, profiles) : forced_runtime);
    const ChipSpec* chip = chips.find(rec.hw);
    if (!chip) { skip("no chip card for '" + rec.hw + "'"); continue; }
    const auto model_id = model_card_id(rec.model, models);
    if (!model_id) { skip("no model card for '" + rec.model + "'"); continue; }
    const ModelSpec& m = *models.find(*model_id);
    const auto weights = weight_format_of(rec.weights);
    if (!weights) { skip("weights '" + rec.weights + "' have no format in the table (validate/predict.cpp)"); continue; }
    RecordCase c;
    c.record = i;
    c.runtime = prof.id;
    c.chip = chip;
    c.arch = chip->architecture;
    c.family = format_family_name(format_family(*weights));
    c.metric = rec.metric;
    c.metric_class = metric_class(rec);
    PrecisionPlan plan;
    plan.weights = *weights;
    plan.kv = kv_format_of(rec.kv);
    // A run that states no KV format keeps it as its runtime does: TensorRT-LLM's FP8/FP4 checkpoints carry FP8 KV.
    const FormatFamily wf = format_family(*weights);
    if (rec.kv == "default" && !prof.quantized_kv.empty() && (wf == FormatFamily::fp8 || wf == FormatFamily::fp4))
      plan.kv = prof.quantized_kv;
    const bool needs_lengths = rec.metric != "tg_tok_s" && rec.metric != "tpot_s" && rec.metric != "pp_tok_s";
    if ((rec.metric == "pp_tok_s" || rec.metric == "ttft_s") && !(rec.prompt_tokens && *rec.prompt_tokens > 0)) {
      skip(rec.metric + " without a prompt length");
      continue;
    }
    if (needs_lengths && (!rec.prompt_tokens || !rec.output_tokens)) { skip("prompt or output length not stated"); continue; }
    if (!rec.batch && (rec.metric == "ttft_s" || rec.metric == "tpot_s" || rec.metric == "request_s" || rec.metric == "tg_tok_s")) {
      skip("a latency under an unstated concurrency (a request rate, a server scenario) needs a queueing model");
      continue;
    }
    if (rec.request_rate && rec.metric != "throughput_tok_s" && rec.metric != "total_tok_s") {
      skip("a latency at an offered request rate needs a queueing model");
      continue;
    }
    c.request_rate = rec.request_rate.value_or(0);
    c.prompt = static_cast<double>(rec.prompt_tokens.value_or(0));
    c.output = static_cast<double>(rec.output_tokens.value_or(1));
    // An unstated split: the runtime's own way of using several devices (llama.cpp splits layers).
    int64_t tp = rec.tp, pp = rec.pp;
    if (tp == 0 && pp == 0) {
      tp = prof.multi_device == "pipeline" ? 1 : rec.hw_count;
      pp = prof.multi_device == "pipeline" ? rec.hw_count : 1;
    }
    tp = std::max<int64_t>(tp, 1);
    pp = std::max<int64_t>(pp, 1);
    const int64_t devices = tp * pp;
    // Devices beyond tp x pp hold replicas (data parallel): they multiply throughput, not latency.
    c.replicas = static_cast<double>(rec.hw_count / devices);
    c.client = source.client;
    try {
      if (devices > 1) {
        if (!chip->scaleup_bandwidth_bytes_per_s && !chip->scaleout_bandwidth_bytes_per_s) {
          skip("tp x pp = " + std::to_string(devices) + " on '" + rec.hw + "', whose card has no interconnect figure");
          continue;
        }
        const DeviceLink link = device_link(*chip, devices, rec.interconnect.rfind("pcie", 0) == 0);
        c.link_bytes_per_s = link.bytes_per_s;
        c.scaleup_link = link.scaleup;
      }
      const double weights_total = weight_bytes(m, plan).total;
      // KV cache: the runtime's share of the devices' memory, less the weights (as `rooftop fit` counts it). A run
      // whose weights exceed that share but fit the devices shows its user raised the share (vLLM's
      // --gpu-memory-utilization): the whole memory is then the limit.
      const double memory = chip->memory_bytes * static_cast<double>(devices);
      const double share = weights_total < prof.memory_fraction * memory ? prof.memory_fraction : 1.0;
      const double budget = share * memory - weights_total;
      const double per_seq = kv_bytes(m, plan.kv_format(), static_cast<int64_t>(c.prompt + c.output), 1) + state_bytes_per_sequence(m);
      if (budget <= 0) { skip("the weights (" + std::to_string(weights_total / 1e9).substr(0, 6) + " GB) do not fit the stated devices"); continue; }
      // Sequences running at once: a stated batch or concurrency, up to what the KV cache holds (the rest of a
      // stated concurrency waits in the queue); unstated, the runtime's maximum batch up to the same limit.
      const double kv_limit = std::max(1.0, std::floor(budget / per_seq));
      c.concurrency = rec.batch ? static_cast<double>(*rec.batch) : std::min(kv_limit, static_cast<double>(prof.max_batch));
      c.batch = std::min(c.concurrency, kv_limit);
      const int64_t b = static_cast<int64_t>(c.batch);
      const int64_t micro = std::min<int64_t>(b, pp), per_micro = (b + micro - 1) / micro;
      const double layers = static_cast<double>(m.layers);
      auto compact = [&](PassShape s) {
        s.moe_expert_fraction = prof.moe_expert_fraction;
        CompactPass p = compact_pass(pass_work(m, plan, s), *chip, layers, static_cast<double>(tp));
        add_collectives(p, m, static_cast<double>(s.seqs * s.new_tokens), tp, pp, 1, 2.0);
        return p;
      };
      const int64_t P = static_cast<int64_t>(c.prompt), O = static_cast<int64_t>(c.output);
      // The decode window: steps after P, P + O/2 and P + O - 1 cached tokens (one step when O <= 2).
      if (rec.metric != "pp_tok_s") {
        if (O <= 2) c.window.push_back(compact({per_micro, 1, P, false}));
        else
          for (int64_t ctx : {P, P + O / 2, P + O - 1}) c.window.push_back(compact({per_micro, 1, ctx, false}));
      }
      // Prefill: one prompt, and the batch's prompts, in the profile's chunks.
      // The chunk is tokens per pass (llama.cpp's ubatch): a batch of b prompts advances chunk / b tokens each.
      const int64_t whole = std::max<int64_t>(P, 1);
      // A stated microbatch (llama-bench -ub) replaces the profile's chunk: its passes run the small-batch kernels.
      const int64_t stated_chunk = rec.ubatch ? *rec.ubatch : prof.prefill_chunk;
      const int64_t chunk = stated_chunk > 0 ? stated_chunk : whole;
      const int64_t batch_chunk = stated_chunk > 0 ? std::max<int64_t>(1, stated_chunk / b) : whole;
      if (rec.metric == "ttft_s" || rec.metric == "tpot_s" || b == 1)
        for (int64_t done = 0; done < P; done += chunk) c.prefill_one.push_back(compact({1, std::min(chunk, P - done), done, false}));
      if (b > 1 && rec.metric != "ttft_s" && rec.metric != "tpot_s")
        for (int64_t done = 0; done < P; done += batch_chunk)
          c.prefill_batch.push_back(compact({b, std::min(batch_chunk, P - done), done, false}));
      if (b == 1) c.prefill_batch = c.prefill_one;
      // A closed loop of requests of one prompt and one output length (as a benchmark client sends them) runs in
      // lockstep: the requests that started in one step end in one step, and their successors arrive together. The
      // server prefills as many of them in one step as its token budget holds (vLLM: max_num_batched_tokens), so a
      // new request's first token waits for that whole step. Its other running sequences' decodes ride in it.
      if (rec.metric == "ttft_s" && b > 1 && c.concurrency <= c.batch && rec.output_tokens && *rec.output_tokens > 0) {
        const int64_t budget = prof.serving_limits(*chip).second;
        c.group = static_cast<double>(std::clamp<int64_t>(budget / std::max<int64_t>(P, 1), 1, b));
        if (c.group > 1) c.prefill_group.push_back(compact({static_cast<int64_t>(c.group), P, 0, false}));
      }
    } catch (const InputError& e) {
      skip(std::string("the analyzer refused it: ") + e.what());
      continue;
    }
    out.cases.push_back(std::move(c));
  }
  return out;
}

double predict_case(const RecordCase& c, const RuntimeRates& r) {
  auto sum = [&](const std::vector<CompactPass>& passes) {
    double s = 0;
    for (const auto& p : passes) s += pass_seconds(p, r);
    return s;
  };
  // What a prompt adds to running decode steps when its tokens ride in them (in-flight batching, chunked
  // prefill): its arithmetic only. The steps stream the weights anyway, and their fixed costs are paid once.
  auto riding = [&](const std::vector<CompactPass>& passes) {
    double s = 0;
    for (const auto& p : passes)
      for (const auto& o : p.ops) {
        double rate = o.peak * r.gemm_fraction[0];
        if (o.kind == CompactOp::matmul) rate = o.matmul_peak(r) * r.gemm_fraction[static_cast<size_t>(o.family)];
        else if (o.kind == CompactOp::attention) rate *= r.prefill_attention_fraction;
        s += o.flops / rate / p.tp;
      }
    return s;
  };
  // Mean decode step over the output window (Simpson's rule: the step time is smooth in the context).
  double step = 0;
  if (c.window.size() == 3) step = (pass_seconds(c.window[0], r) + 4 * pass_seconds(c.window[1], r) + pass_seconds(c.window[2], r)) / 6;
  else if (!c.window.empty()) step = pass_seconds(c.window[0], r);
  const double b = c.batch, P = c.prompt, O = std::max(c.output, 1.0);
  // After a prefill its last pass gives the first token: O - 1 decode steps follow (llama-bench's tg has no prefill).
  const double decode_s = (c.metric == "tg_tok_s" ? O : O - 1) * step;
  if (c.metric == "tg_tok_s") return b / step;                      // tokens of all streams per second of decode
  if (c.metric == "pp_tok_s") return b * P / sum(c.prefill_batch);
  // In-flight batching of b running sequences: over a request's O outputs the other b - 1 requests' prompts
  // ride in the running steps (each adding its arithmetic); a new request's prefill joins one running step.
  const double tpot = step + (b - 1) * riding(c.prefill_one) / O;
  if (c.metric == "tpot_s") return tpot;
  // A client of a server sees each request the server's delay later (with the requests running beside it in
  // flight), added once, outside the engine's time; the engine's own benchmarks do not.
  const double served = c.client ? r.served.at(std::min(c.concurrency, b)) : 0.0;
  if (c.metric == "ttft_s") {
    const double ttft = (c.prefill_group.empty() ? sum(c.prefill_one) : sum(c.prefill_group)) + (b > 1 ? step : 0.0);
    if (c.concurrency <= b) return served + ttft;
    // More clients than the KV cache holds (a closed loop): by Little's law each client's cycle is
    // concurrency x request time / running; all of it beyond its own decode is waiting for a slot and prefill.
    const double request_s = ttft + (O - 1) * tpot;
    return served + c.concurrency * request_s / b - (O - 1) * tpot;
  }
  // Static batch: the batch's prefill, then its output decode (and, for a client, the server's delay).
  const double batch_s = sum(c.prefill_batch) + decode_s + served;
  // A rate-limited run delivers what is offered, up to what the chips sustain.
  const double offered = c.request_rate > 0 ? c.request_rate : 1e300;
  if (c.metric == "throughput_tok_s") return std::min(offered * O, c.replicas * b * O / batch_s);
  if (c.metric == "total_tok_s") return std::min(offered * (P + O), c.replicas * b * (P + O) / batch_s);
  return batch_s;  // request_s
}

double predict_case(const RecordCase& c, const RuntimeProfile& p) {
  return predict_case(c, resolve_rates(p, *c.chip, c.link_bytes_per_s, c.scaleup_link));
}

}  // namespace rooftop::validate
