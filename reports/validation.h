// Validation records: one measured-vs-predicted decode point, and the error summary over many points.
#pragma once
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "base/stats.h"  // median

namespace rooftop::reports {

// The model's terms, added one at a time (see validate/local/terms.h): 0 the plain law, 1 + per-op
// max(memory, compute) at the calibrated bandwidth, 2 + per-format kernel rates, 3 + fixed costs (full).
inline constexpr int kTermSets = 4;

// One point of `rooftop validate`: the engine's decode step (or a prompt's prefill) over a synthetic model of a real shape in
// one weight format. Per-token figures of a batch-B step: weights / B + one sequence's KV.
struct ValidatePoint {
  std::string model;            // "smollm2-135m"
  std::string format;           // kernel weight format, "q4_1"
  std::string phase = "decode"; // "decode" or "prefill" (tok/s = prompt tokens / TTFT)
  int64_t context = 0;          // cached positions attended over (prefill: the prompt length)
  int64_t batch = 1;            // sequences per decode step
  int64_t prompt_tokens = 0;    // prefill only
  int threads = 1;
  double weight_bytes_per_token = 0;  // every weight matrix + norm vectors read once per step
  double kv_read_bytes_per_token = 0; // fp32 K and V of `context` positions, all layers
  double flops_per_token = 0;         // 2 x matrix elements + attention (QK^T and PV)
  double measured_s_median = 0;       // seconds per decode step or TTFT (median of the samples)
  double predicted_s = 0;             // the analyzer's seconds per step (TPOT) or TTFT
  double measured_spread = 0;         // (max - min) / median of the samples
  int samples = 0;
  double measured_tokens_per_s = 0;
  double achieved_bandwidth_bytes_per_s = 0;  // bytes per token x measured tok/s
  double bandwidth_fraction = 0;      // achieved / the chip's bandwidth figure
  double predicted_tokens_per_s = 0;  // rooftop::speed at the same shape
  double relative_error = 0;          // predicted / measured - 1
  std::string bound;                  // the analyzer's bound: "memory" or "compute"
  double law_tokens_per_s = 0;        // the plain law: bandwidth / bytes per token
  double law_relative_error = 0;      // law / measured - 1
  // With refresh_calibration: the format's GEMV streaming rate at the model's hidden width (32 MiB
  // matrices cycled past 4x the LLC; batched points: gemv_batch at n = 4 or 16), the median of samples taken
  // in turn with this point's step samples; the prediction's roof at that width. 0: not probed. When probed,
  // relative_error is the median over rounds of (step seconds / predicted seconds at that round's probe) - 1,
  // and predicted_tokens_per_s = measured x (1 + relative_error).
  double probe_bytes_per_s = 0;
  // The analyzer's raw prediction at the calibrated roof (the group's refreshed figures, no pairing with the
  // probe's rounds) and its error; equal to predicted_tokens_per_s and relative_error when not probed.
  double raw_predicted_tokens_per_s = 0;
  double raw_relative_error = 0;
  // With refresh_calibration: the cores' speed during the point, the median over rounds of an L2-resident GEMV
  // probe's FLOP/s over its rate at the group's calibration refresh (1 = as then; other tenants move it). 1 when
  // not probed.
  double probe_cpu_speed = 1;
  // Times the point was measured: more than 1 when the CPU probe said the cores ran over 15% off their
  // calibrated speed (the attempt nearest it is kept).
  int attempts = 1;
  // Measured once more at the end of the sweep because the cores were still over 15% off after its attempts
  // (attempts then counts those too; the attempt nearest the refresh's speed is the one reported).
  bool measured_at_end = false;
  // Points of the real model file (the engine's own decode over the GGUF's tensors): the file's path, and the
  // formats of its embedding and output matrices (analyzer names; "" = `format`, the layers' dominant format).
  std::string file, embedding_format, lm_head_format;
  // Decode tok/s predicted with the first i + 1 terms of the model, and its error (NaN for prefill).
  std::array<double, kTermSets> term_tokens_per_s{nan(), nan(), nan(), nan()};
  std::array<double, kTermSets> term_relative_error{nan(), nan(), nan(), nan()};
  static constexpr double nan() { return std::numeric_limits<double>::quiet_NaN(); }
  double bytes_per_token() const { return weight_bytes_per_token + kv_read_bytes_per_token; }
};

// Median and worst absolute relative error over one group of points (nullopt when the group is empty).
struct ErrorStats {
  int count = 0;
  std::optional<double> median_abs, max_abs;
};

struct TermStats {
  std::string name;  // "law", "+ per-op roofline", ...
  ErrorStats error;  // over decode points
};

struct ValidateSummary {
  ErrorStats memory_bound;   // analyzer's error over decode points it calls memory-bound
  ErrorStats compute_bound;  // ... over decode points it calls compute-bound
  // Of those, how many the measurement agrees with: they drew less than kComputeAgreeFraction of the
  // bandwidth figure, so memory was not what held them back.
  int compute_agree = 0;
  ErrorStats law;            // the plain law's error over every decode point
  ErrorStats prefill;        // the analyzer's TTFT-derived tok/s error over prefill points
  ErrorStats raw;            // the raw prediction's error over every decode point (probe pairing aside)
  std::vector<TermStats> terms;  // one per term set, in order; the last equals the full analyzer
};

inline constexpr double kComputeAgreeFraction = 0.7;

struct SweepResult {
  std::string chip_id, chip_name;
  double memory_bandwidth_bytes_per_s = 0;  // the chip's figure the law and the analyzer use
  std::string bandwidth_provenance;         // "measured <date>", "derived" ...
  bool calibrated = false;
  int threads = 0;
  std::vector<ValidatePoint> points;
  std::vector<std::string> skipped;          // one line per skipped configuration, with the reason
  // With refresh_calibration: the STREAM read bandwidth of each refresh, in sweep order (the drift).
  std::vector<double> refreshed_bandwidths_bytes_per_s;
  ValidateSummary summary;
};

// Name of term set i (0 <= i < kTermSets).
const char* term_set_name(int i);

// predicted / measured - 1 (measured > 0 and finite, else std::invalid_argument).
double relative_error(double predicted, double measured);
// Median and maximum of |e| over `errors`.
ErrorStats error_stats(const std::vector<double>& errors);
// Split decode points by the analyzer's bound and summarize each group, the plain law and each term
// set over decode points, and prefill points on their own.
ValidateSummary summarize_points(const std::vector<ValidatePoint>& points);

}  // namespace rooftop::reports
