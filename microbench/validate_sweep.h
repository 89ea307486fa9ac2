// The `rooftop validate` sweep: synthetic decode steps of real model shapes, measured and predicted.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "analyzer/chip_spec.h"
#include "analyzer/model_spec.h"
#include "kernels/cpu/kernels.h"
#include "kernels/cpu/thread_pool.h"
#include "microbench/validate_summary.h"

namespace rooftop::microbench {

struct SweepConfig {
  std::vector<ModelSpec> models;
  std::vector<kernels::WeightFormat> formats;
  std::vector<int64_t> contexts;
  int threads = 0;               // 0 = hardware concurrency
  double max_memory_bytes = 0;   // a configuration allocating more is skipped
  int warmup = 2, repetitions = 7;
};

// The model ids, formats and contexts of the quick and the full sweep.
struct SweepPlan {
  std::vector<std::string> model_ids;
  std::vector<kernels::WeightFormat> formats;
  std::vector<int64_t> contexts;
};
SweepPlan quick_plan();  // smollm2-135m, qwen2.5-0.5b x f32, q8_0, q4_1 x context 256
SweepPlan full_plan();   // + smollm2-360m, qwen2.5-1.5b, llama-3.2-3b x f32 f16 q8_0 q4_1 q4_k x 128, 1024

struct SweepResult {
  std::string chip_id, chip_name;
  double memory_bandwidth_bytes_per_s = 0;  // the chip's figure the law and the analyzer use
  std::string bandwidth_provenance;         // "measured <date>", "derived" ...
  bool calibrated = false;
  int threads = 0;
  std::vector<ValidatePoint> points;
  std::vector<std::string> skipped;          // one line per skipped configuration, with the reason
  ValidateSummary summary;
};

// Fill the analyzer's side of a point measured for model m: predicted tok/s, bound, relative error,
// the plain law and its error, and the fraction of the bandwidth reached.
void predict_point(const ModelSpec& m, const ChipSpec& chip, ValidatePoint& p);

// Measure one point (allocates, warms up, times): weights in `f`, batch 1, `context` positions.
ValidatePoint measure_point(const ModelSpec& m, kernels::WeightFormat f, int64_t context, kernels::ThreadPool& pool,
                            int warmup, int repetitions);

// Run the whole sweep; `progress` (may be empty) gets one line per configuration as it starts.
SweepResult run_sweep(const SweepConfig& config, const ChipSpec& chip,
                      const std::function<void(const std::string&)>& progress);

// Half of MemTotal from /proc/meminfo (0 when unreadable).
double default_max_memory_bytes();

}  // namespace rooftop::microbench
