// Validation records: one measured-vs-predicted decode point, and the error summary over many points.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rooftop::microbench {

// One point of `rooftop validate`: a synthetic decode step of a model shape in one weight format.
struct ValidatePoint {
  std::string model;            // "smollm2-135m"
  std::string format;           // kernel weight format, "q4_1"
  int64_t context = 0;          // cached positions attended over
  int64_t batch = 1;
  int threads = 1;
  double weight_bytes_per_token = 0;  // every weight matrix + norm vectors read once per step
  double kv_read_bytes_per_token = 0; // fp32 K and V of `context` positions, all layers
  double flops_per_token = 0;         // 2 x matrix elements + attention (QK^T and PV)
  double measured_s_median = 0;       // seconds per decode step (median of the samples)
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
  double bytes_per_token() const { return weight_bytes_per_token + kv_read_bytes_per_token; }
};

// Median and worst absolute relative error over one group of points (nullopt when the group is empty).
struct ErrorStats {
  int count = 0;
  std::optional<double> median_abs, max_abs;
};

struct ValidateSummary {
  ErrorStats memory_bound;   // analyzer's error over points it calls memory-bound
  ErrorStats compute_bound;  // ... over points it calls compute-bound
  ErrorStats law;            // the plain law's error over every point
};

// predicted / measured - 1 (measured > 0 and finite, else std::invalid_argument).
double relative_error(double predicted, double measured);
// Median of values (the mean of the two middle ones for an even count); empty: std::invalid_argument.
double median(std::vector<double> values);
// Median and maximum of |e| over `errors`.
ErrorStats error_stats(const std::vector<double>& errors);
// Split points by the analyzer's bound and summarize each group, plus the plain law over all points.
ValidateSummary summarize_points(const std::vector<ValidatePoint>& points);

}  // namespace rooftop::microbench
