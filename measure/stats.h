// Repetition statistics: median, quartiles, min/max and a "wide spread" flag over timing samples.
#pragma once
#include <vector>

#include "base/stats.h"

namespace rooftop::measure {

// Summary of repeated measurements (any unit; timings are seconds).
struct Stats {
  int count = 0;
  double median = 0, min = 0, max = 0;
  double q1 = 0, q3 = 0;   // quartiles (linear interpolation between order statistics)
  double spread = 0;       // (max - min) / median: the range relative to the typical value
  double iqr_relative = 0; // (q3 - q1) / median
  bool wide = false;       // iqr_relative > wide_threshold: the median is not a precise figure
};

inline constexpr double kWideThreshold = 0.10;

// Statistics of `samples` (non-empty, every value finite and > 0). Throws std::invalid_argument otherwise.
Stats summarize(std::vector<double> samples, double wide_threshold = kWideThreshold);

using rooftop::quantile_sorted;  // base/stats.h

}  // namespace rooftop::measure
