// Validation error arithmetic: relative error, median/max of |error|, memory/compute split.
#include "reports/validation.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace rooftop::reports {

double relative_error(double predicted, double measured) {
  if (!(measured > 0) || !std::isfinite(measured) || !std::isfinite(predicted))
    throw std::invalid_argument("relative_error: measured must be finite and > 0, predicted finite");
  return predicted / measured - 1.0;
}

ErrorStats error_stats(const std::vector<double>& errors) {
  ErrorStats s;
  s.count = static_cast<int>(errors.size());
  if (errors.empty()) return s;
  std::vector<double> abs_errors;
  for (double e : errors) abs_errors.push_back(std::fabs(e));
  s.median_abs = median(abs_errors);
  s.max_abs = *std::max_element(abs_errors.begin(), abs_errors.end());
  return s;
}

const char* term_set_name(int i) {
  static const char* names[kTermSets] = {"law", "+ per-op roofline", "+ kernel rates", "+ fixed costs (full)"};
  if (i < 0 || i >= kTermSets) throw std::invalid_argument("term set index out of range");
  return names[i];
}

ValidateSummary summarize_points(const std::vector<ValidatePoint>& points) {
  std::vector<double> memory, compute, law, prefill, raw;
  int agree = 0;
  std::vector<std::vector<double>> terms(kTermSets);
  for (const auto& p : points) {
    if (p.phase == "prefill") {
      prefill.push_back(p.relative_error);
      continue;
    }
    (p.bound == "compute" ? compute : memory).push_back(p.relative_error);
    if (p.bound == "compute" && p.bandwidth_fraction < kComputeAgreeFraction) ++agree;
    law.push_back(p.law_relative_error);
    raw.push_back(p.raw_relative_error);
    for (int i = 0; i < kTermSets; ++i)
      if (std::isfinite(p.term_relative_error[i])) terms[i].push_back(p.term_relative_error[i]);
  }
  ValidateSummary s{error_stats(memory), error_stats(compute), agree, error_stats(law), error_stats(prefill), error_stats(raw), {}};
  for (int i = 0; i < kTermSets; ++i) s.terms.push_back({term_set_name(i), error_stats(terms[i])});
  return s;
}

}  // namespace rooftop::reports
