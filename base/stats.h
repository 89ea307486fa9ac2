// Order statistics shared by the benchmarks' summaries and the published-measurement comparisons.
#pragma once
#include <vector>

namespace rooftop {

// The q-quantile (0..1) of sorted values, linear interpolation between neighbours. Empty: std::invalid_argument.
double quantile_sorted(const std::vector<double>& sorted, double q);

// The median of unsorted values (the mean of the middle two for an even count). Empty: std::invalid_argument.
double median(std::vector<double> values);

}  // namespace rooftop
