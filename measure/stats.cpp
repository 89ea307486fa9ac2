// Repetition statistics: sort once, read the order statistics, flag a wide interquartile range.
#include "measure/stats.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace rooftop::measure {

Stats summarize(std::vector<double> samples, double wide_threshold) {
  if (samples.empty()) throw std::invalid_argument("summarize: no samples");
  for (double s : samples)
    if (!std::isfinite(s) || s <= 0) throw std::invalid_argument("summarize: a sample is not a positive finite number");
  std::sort(samples.begin(), samples.end());
  Stats st;
  st.count = static_cast<int>(samples.size());
  st.min = samples.front();
  st.max = samples.back();
  st.median = quantile_sorted(samples, 0.5);
  st.q1 = quantile_sorted(samples, 0.25);
  st.q3 = quantile_sorted(samples, 0.75);
  st.spread = (st.max - st.min) / st.median;
  st.iqr_relative = (st.q3 - st.q1) / st.median;
  st.wide = st.iqr_relative > wide_threshold;
  return st;
}

}  // namespace rooftop::measure
