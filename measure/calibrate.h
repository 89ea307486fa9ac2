// The calibration runner: every measurement of this folder in order, into one CalibrationRecord.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "kernels/cpu/kernels.h"
#include "measure/calibration_record.h"

namespace rooftop::measure {

struct CalibrateOptions {
  bool quick = false;  // fewer repetitions, smaller sweep and fewer shapes (under a minute on 2 cores)
  int threads = 0;     // 0 = every logical CPU
  // Refresh (non-empty): quick timers, and only what the analyzer's prediction for these weight formats
  // reads: STREAM (all threads), their GEMV rates (+ gemv_batch at n = 4, 16 when refresh_batched; + GEMM
  // n = 16, 128 and prefill attention when refresh_prefill), decode attention (fp32 KV) and the fixed
  // costs. `rooftop validate` refreshes before each format's points: this VM's bandwidth drifts by up
  // to +-30% from one minute to the next. Overlaying the record keeps every figure it did not measure.
  std::vector<kernels::WeightFormat> refresh_formats;
  bool refresh_batched = false, refresh_prefill = false;
};

// Called before each step with its label and the fraction of the run already done (0..1).
using Progress = std::function<void(const std::string& step, double done_fraction)>;

// Runs the whole suite; never prints. Skipped measurements are listed in record.notes with the reason.
CalibrationRecord run_calibration(const CalibrateOptions& opt, const Progress& progress = {});

// Why the record looks measured on a busy machine, or "" when it does not. Each kernel figure's
// spread (interquartile range over median) is read: a quiet run of this 2-core VM has a median
// spread of 3-4% and no figure above 25%; two calibrations at once gave a median of 11-12% with
// 26-29% of the figures above 25% (docs/calibration-noise.md). Busy = median above 8% or more than
// 10% of the figures above 25%.
std::string busy_reason(const CalibrationRecord& r);

// The prefill GEMM's cost model of each format, from its timed runs (the wide shape at n = 16, 128 and
// 512, the narrow one at n = 16 and 128): the derived entries "gemm_<fmt>_pack", "_pack_k<k>", "_marginal",
// "_marginal_large", "_act" and "_dram" (each where the runs allow it), to append to the record.
std::vector<KernelResult> derive_gemm_models(const std::vector<KernelResult>& runs, double dram_bytes_per_s);

// Sets each kernel's ceiling: memory-bound ops (gemv, attention) against the bandwidth of the
// smallest level holding their working set with room to spare (<= half its capacity, the same band
// as detect_levels; DRAM = memory_bandwidth_bytes_per_s),
// gemm against the best fp32 peak; fraction = achieved / ceiling. Pure (tests use made-up figures).
void assign_ceilings(std::vector<KernelResult>& kernels, double dram_bytes_per_s,
                     const std::vector<LevelBandwidth>& levels, const CacheSizes& caches,
                     const std::vector<std::pair<std::string, double>>& peaks);

}  // namespace rooftop::measure
