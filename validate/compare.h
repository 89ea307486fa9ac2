// `rooftop validate --published`: every record predicted under its runtime profile (and under `generic`),
// compared with the printed value and summarized by engine, chip, format family and metric class.
#pragma once
#include <string>
#include <vector>

#include "validate/fit.h"

namespace rooftop::validate {

struct Compared {
  int record = 0, source = 0;
  std::string engine, hw, arch, model, weights, family, metric, metric_class, runtime;
  int64_t batch = 0;  // 0: not stated (the profile's maximum batch was used)
  double measured = 0, predicted = 0, generic = 0;
  bool has_generic = false;  // generic could express the record too
  double error() const { return predicted / measured - 1.0; }
  double generic_error() const { return generic / measured - 1.0; }
};

struct GroupSummary {
  std::string by, key;  // by: all, engine, hw, family, class; key: its value
  int records = 0;
  double median_abs = 0, p90_abs = 0, median = 0;        // under the runtime profiles
  double generic_median_abs = 0, generic_p90_abs = 0;    // under generic
};

struct Comparison {
  std::vector<Compared> rows;
  std::vector<Skipped> skipped;
  std::vector<GroupSummary> groups;
};

// forced_runtime: every record under that profile (else its engine's); only_hw: one chip's records.
Comparison compare_published(const PublishedDataset& data, const std::vector<RuntimeProfile>& profiles,
                             const hwdb::Database& chips, const models::Database& models,
                             const std::string& forced_runtime = "", const std::string& only_hw = "");

// Summaries of (error, generic error) pairs grouped by `by` (key function) - also used for the fit's tables.
GroupSummary summarize(const std::string& by, const std::string& key, const std::vector<double>& errors,
                       const std::vector<double>& generic_errors);

}  // namespace rooftop::validate
