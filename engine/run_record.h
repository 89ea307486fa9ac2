// The record of one generation run (rooftop run): timeline, KV growth, weight bytes; printers are views of it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/sampler.h"

namespace rooftop::engine {

struct DecodeStep {
  int32_t token = 0;
  std::string piece;             // the token's bytes
  double s = 0;                  // wall time of the step (forward + sampling)
  int64_t kv_bytes = 0;          // KV cache bytes after the step
  std::vector<TokenProb> top;    // --show-logits: the likeliest candidates for this step's token
};

// What the analyzer predicts for the same run (filled by the CLI; absent when no prediction).
struct RunPrediction {
  double ttft_s = 0;
  double tpot_s = 0;
  double decode_tokens_per_s = 0;
  // `rooftop fit` for the same file and KV capacity (fp32 KV, the prompt in flight), with the process's own
  // resident memory before the model was loaded as its overhead: the peak resident memory it expects.
  double memory_bytes = 0;
  double weights_bytes = 0, kv_bytes = 0, activation_bytes = 0, overhead_bytes = 0;  // its parts
  // The prefill's and one decode step's time by the analyzer's ops, named as PassStages (its fixed costs under
  // "small_ops").
  std::vector<std::pair<std::string, double>> prefill_stages, decode_stages;
};

struct RunRecord {
  std::string model_path;
  int threads = 0;
  int64_t prompt_tokens = 0;
  int64_t generated_tokens = 0;  // including the first, sampled from the prefill's logits
  std::string text;              // the generated text
  double prefill_s = 0;          // the batched forward pass over the prompt
  std::vector<std::pair<std::string, double>> prefill_stages;  // its seconds by stage (engine::PassStages)
  // The mean decode step's seconds by stage (forward only: the step's sampling is outside every stage).
  std::vector<std::pair<std::string, double>> decode_stages;
  double ttft_s = 0;             // prefill + sampling the first token
  double tpot_s = 0;             // mean decode step time (0 when there was no decode step)
  double decode_tokens_per_s = 0;
  std::vector<TokenProb> first_top;  // --show-logits for the first generated token
  int32_t first_token = 0;
  std::vector<DecodeStep> steps;     // one per decode step (generated_tokens - 1 of them)
  int64_t kv_bytes_after_prefill = 0;
  int64_t kv_bytes_per_token = 0;
  int64_t weights_bytes_per_step = 0;
  std::string stop_reason;  // "length", "stop token"
  int64_t kv_capacity = 0;          // positions the KV cache holds (allocated whole)
  double peak_resident_bytes = 0;   // VmHWM after the run (0: not readable)
  // CPU package energy (RAPL) over the prefill and over the decode steps; energy_source "" when not measured,
  // with energy_note saying why.
  double prefill_joules = 0, decode_joules = 0;
  std::string energy_source, energy_note;
  std::optional<RunPrediction> predicted;
  // --refresh: the same prediction from the file's formats' calibrated figures re-measured right after the run
  // (the machine's speed now rather than at calibration time), and why it is absent when the refresh was refused.
  std::optional<RunPrediction> predicted_refreshed;
  std::string refresh_note;
  // The calibration `predicted` comes from: its UTC time and its age at the end of the run ("" / nullopt when the
  // CPU is not calibrated).
  std::string calibration_measured_at;
  std::optional<double> calibration_age_s;
};

}  // namespace rooftop::engine
