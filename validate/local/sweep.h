// The `rooftop validate` sweep: the engine's decode steps and prefills over synthetic models of real shapes, measured and predicted.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "analyzer/chip_spec.h"
#include "analyzer/memory.h"
#include "analyzer/model_spec.h"
#include "kernels/cpu/kernels.h"
#include "kernels/cpu/thread_pool.h"
#include "validate/local/records.h"

namespace rooftop::validate {

// What a sweep measures: decode at batch 1 (models x formats x contexts), decode at batches above 1
// (batch_model_ids x formats x contexts x batches), prefill (prefill models x formats x prompts).
struct SweepPlan {
  std::vector<std::string> model_ids;
  std::vector<kernels::WeightFormat> formats;
  std::vector<int64_t> contexts;
  std::vector<int64_t> batches;               // decode batch sizes above 1
  std::vector<std::string> batch_model_ids;   // the models the batches run on
  std::vector<std::string> prefill_model_ids;
  std::vector<kernels::WeightFormat> prefill_formats;
  std::vector<int64_t> prompts;               // prompt lengths (tokens) for TTFT
  std::vector<std::string> all_model_ids() const;  // every id above, once, in first-seen order
};
// smollm2-135m, qwen2.5-0.5b x f32, q8_0, q4_1 x context 256; batch 4 on smollm2-135m;
// prefill of 16 and 128 tokens on smollm2-135m f32/q4_1.
SweepPlan quick_plan();
// + smollm2-360m, qwen2.5-1.5b, llama-3.2-3b x f32 f16 q8_0 q4_1 q4_k x 128, 1024; batches 4 and 16 on
// the three smallest models; prefill of 16, 128, 512 tokens on the three smallest models in f32, q8_0, q4_1.
SweepPlan full_plan();

struct SweepConfig {
  std::vector<ModelSpec> models;  // specs of plan.all_model_ids() (missing ones are skipped)
  SweepPlan plan;
  int threads = 0;               // 0 = hardware concurrency
  double max_memory_bytes = 0;   // a configuration allocating more is skipped
  int warmup = 2, repetitions = 11;  // decode samples per point (prefill: half); the median is reported
  // Re-measure the calibrated figures a format's prediction reads (run_calibration's refresh mode, a few
  // seconds) right before that format's points, and predict from them: the error then measures the model,
  // not the drift of a shared machine between the calibration and the run. Only for a calibrated CPU.
  bool refresh_calibration = false;
  // The real model file (a llama GGUF) to time with the engine's own decode at each of plan.contexts after
  // the synthetic points, and its analyzer spec (models::from_gguf). Empty path: none.
  std::string model_file;
  ModelSpec file_spec;
};


// Fill the analyzer's side of a point measured for model m: predicted tok/s, bound, relative error,
// the plain law and its error, each term set's prediction (decode), the fraction of the bandwidth reached.
// Prefill: predicted = prompt / the analyzer's TTFT; the law = the chip's fp32 peak / FLOPs per token.
void predict_point(const ModelSpec& m, const ChipSpec& chip, ValidatePoint& p);

// A point's bytes and FLOPs per token from the analyzer's per-op work of the pass it times (pass_work, fp32
// activations): weights, KV read and FLOPs of a decode step of p.batch sequences at p.context, or of a prefill
// of p.prompt_tokens, over the tokens of that pass. The one accounting the sweep, the file's points and the
// analyzer share.
void set_point_work(const ModelSpec& m, ValidatePoint& p);

// The analyzer's precision plan for a point: its format for every weight (the file's points: the embedding's
// and output's own formats), fp32 KV as the kernels keep it.
PrecisionPlan plan_for(const ValidatePoint& p);

// The analyzer's seconds per decode step (TPOT) for a decode point's shape on `chip`.
double predict_decode_s(const ModelSpec& m, const ChipSpec& chip, const ValidatePoint& p);

// Measure one decode point (allocates, warms up, times): weights in `f`, `batch` sequences of
// `context` positions each.
ValidatePoint measure_point(const ModelSpec& m, kernels::WeightFormat f, int64_t context, kernels::ThreadPool& pool,
                            int warmup, int repetitions, int64_t batch = 1);
// Measure one prefill point: the TTFT of a `prompt`-token prompt.
ValidatePoint measure_prefill_point(const ModelSpec& m, kernels::WeightFormat f, int64_t prompt,
                                    kernels::ThreadPool& pool, int warmup, int repetitions);

// Run the whole sweep; `progress` (may be empty) gets one line per configuration as it starts.
SweepResult run_sweep(const SweepConfig& config, const ChipSpec& chip,
                      const std::function<void(const std::string&)>& progress);

// Half of MemTotal from /proc/meminfo (0 when unreadable).
double default_max_memory_bytes();

}  // namespace rooftop::validate
