// validate --published: see compare.h.
#include "validate/compare.h"

#include <cmath>
#include <map>

namespace rooftop::validate {

GroupSummary summarize(const std::string& by, const std::string& key, const std::vector<double>& errors,
                       const std::vector<double>& generic_errors) {
  GroupSummary g;
  g.by = by;
  g.key = key;
  g.records = static_cast<int>(errors.size());
  std::vector<double> a, ga;
  for (double e : errors) a.push_back(std::fabs(e));
  for (double e : generic_errors) ga.push_back(std::fabs(e));
  g.median_abs = percentile(a, 0.5);
  g.p90_abs = percentile(a, 0.9);
  g.median = percentile(errors, 0.5);
  g.generic_median_abs = percentile(ga, 0.5);
  g.generic_p90_abs = percentile(ga, 0.9);
  return g;
}

Comparison compare_published(const PublishedDataset& data, const std::vector<RuntimeProfile>& profiles,
                             const hwdb::Database& chips, const models::Database& models,
                             const std::string& forced_runtime, const std::string& only_hw) {
  Comparison out;
  const CaseSet set = build_cases(data, profiles, chips, models, forced_runtime, only_hw);
  const CaseSet generic = build_cases(data, profiles, chips, models, "generic", only_hw);
  out.skipped = set.skipped;
  std::map<int, const RecordCase*> generic_of;
  for (const auto& c : generic.cases) generic_of[c.record] = &c;
  auto profile = [&](const std::string& id) -> const RuntimeProfile& { return profile_by_id(profiles, id); };
  const RuntimeProfile& gen = profile("generic");
  for (const auto& c : set.cases) {
    const PublishedRecord& r = data.records[static_cast<size_t>(c.record)];
    Compared row;
    row.record = c.record;
    row.source = r.source;
    row.engine = data.sources[static_cast<size_t>(r.source)].engine;
    row.hw = r.hw;
    row.arch = c.arch;
    row.model = r.model;
    row.weights = r.weights;
    row.family = c.family;
    row.metric = r.metric;
    row.metric_class = c.metric_class;
    row.runtime = c.runtime;
    row.batch = r.batch.value_or(0);
    row.measured = r.value;
    row.predicted = predict_case(c, profile(c.runtime));
    auto g = generic_of.find(c.record);
    row.has_generic = g != generic_of.end();
    if (row.has_generic) row.generic = predict_case(*g->second, gen);
    out.rows.push_back(row);
  }
  std::map<std::pair<std::string, std::string>, std::pair<std::vector<double>, std::vector<double>>> groups;
  for (const auto& row : out.rows) {
    for (const auto& [by, key] : std::vector<std::pair<std::string, std::string>>{
             {"all", "all"}, {"class", row.metric_class}, {"engine", row.engine}, {"hw", row.hw}, {"family", row.family}}) {
      auto& g = groups[{by, key}];
      g.first.push_back(row.error());
      if (row.has_generic) g.second.push_back(row.generic_error());
    }
  }
  for (const char* by : {"all", "class", "engine", "hw", "family"})
    for (const auto& [k, v] : groups)
      if (k.first == by) out.groups.push_back(summarize(k.first, k.second, v.first, v.second));
  return out;
}

}  // namespace rooftop::validate
