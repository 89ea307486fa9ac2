// Renderers for the validate sweep: every view is computed from the same SweepResult record.
#include "microbench/validate_render.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

namespace rooftop::microbench {
namespace {

std::string num(double v, const char* f = "%.3g") {
  if (!std::isfinite(v)) return "n/a";
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}
std::string pct(double v) { return std::isfinite(v) ? num(100.0 * v, "%+.1f") + "%" : "n/a"; }
std::string pct_abs(const std::optional<double>& v) { return v ? num(100.0 * *v, "%.1f") + "%" : "n/a"; }

std::vector<std::string> header() {
  return {"model", "format", "context", "MB/token", "GFLOP/token", "measured tok/s", "spread", "GB/s", "of bw",
          "predicted tok/s", "error", "bound", "law tok/s", "law error"};
}

std::vector<std::string> row(const ValidatePoint& p) {
  return {p.model, p.format, std::to_string(p.context), num(p.bytes_per_token() / 1e6),
          num(p.flops_per_token / 1e9), num(p.measured_tokens_per_s), num(100 * p.measured_spread, "%.0f") + "%",
          num(p.achieved_bandwidth_bytes_per_s / 1e9), num(100 * p.bandwidth_fraction, "%.0f") + "%",
          num(p.predicted_tokens_per_s), pct(p.relative_error), p.bound, num(p.law_tokens_per_s),
          pct(p.law_relative_error)};
}

std::string heading(const SweepResult& r) {
  return "Chip " + r.chip_id + " (" + r.chip_name + "), bandwidth " + num(r.memory_bandwidth_bytes_per_s / 1e9) +
         " GB/s (" + r.bandwidth_provenance + "), " + (r.calibrated ? "calibrated" : "not calibrated: run `rooftop calibrate`") +
         ", " + std::to_string(r.threads) + " threads, batch 1, fp32 KV cache.";
}


}  // namespace

std::string validate_summary_line(const SweepResult& r) {
  const auto& s = r.summary;
  return "Analyzer |error|: memory-bound median " + pct_abs(s.memory_bound.median_abs) + ", worst " +
         pct_abs(s.memory_bound.max_abs) + " (" + std::to_string(s.memory_bound.count) + " points); compute-bound median " +
         pct_abs(s.compute_bound.median_abs) + ", worst " + pct_abs(s.compute_bound.max_abs) + " (" +
         std::to_string(s.compute_bound.count) + " points). Plain law |error|: median " + pct_abs(s.law.median_abs) +
         ", worst " + pct_abs(s.law.max_abs) + ".";
}

std::string validate_teaches(const SweepResult& r) {
  if (r.points.empty()) return "No point was measured, so nothing can be concluded.";
  std::map<std::string, std::vector<double>> fraction, law;
  std::vector<std::string> order;
  for (const auto& p : r.points) {
    if (!fraction.count(p.format)) order.push_back(p.format);
    fraction[p.format].push_back(p.bandwidth_fraction);
    law[p.format].push_back(p.law_tokens_per_s / p.measured_tokens_per_s);
  }
  std::ostringstream s;
  s << "Against the " << num(r.memory_bandwidth_bytes_per_s / 1e9) << " GB/s bandwidth figure, decode steps reached";
  std::string lowest, highest;
  double lo = 1e300, hi = -1;
  for (size_t i = 0; i < order.size(); ++i) {
    const double f = median(fraction[order[i]]);
    s << (i ? ", " : " ") << order[i] << " " << num(100 * f, "%.0f") << "%";
    if (f < lo) lo = f, lowest = order[i];
    if (f > hi) hi = f, highest = order[i];
  }
  s << " of it (median over the points of each format). ";
  s << "So the plain law (bandwidth / bytes per token) over-predicts " << lowest << " by "
    << num(median(law[lowest]), "%.2g") << "x and " << highest << " by " << num(median(law[highest]), "%.2g") << "x";
  if (lowest != highest && lo < 0.8 * hi)
    s << ": fewer bytes per token did not buy proportionally more speed, because " << lowest
      << " spends more instructions per byte (dequantization) and the fixed costs per layer (norms, "
         "attention, thread hand-offs) do not shrink with the weights";
  s << ". ";
  if (hi > 1.0)
    s << "A fraction above 100% means the working set partly fits in the caches, so DRAM bandwidth is not "
         "the roof there. ";
  const auto& m = r.summary.memory_bound;
  if (m.median_abs)
    s << "The analyzer" << (r.calibrated ? " (calibrated)" : " (uncalibrated: datasheet/assumed figures)")
      << " is off by a median " << pct_abs(m.median_abs) << " over memory-bound points (target 10%), worst "
      << pct_abs(m.max_abs) << ". ";
  if (r.summary.compute_bound.count > 0)
    s << "It called " << r.summary.compute_bound.count << " point(s) compute-bound.";
  else
    s << "It called no point compute-bound.";
  std::vector<double> spreads;
  for (const auto& p : r.points) spreads.push_back(p.measured_spread);
  if (const double sp = median(spreads); sp > 0.10)
    s << " The samples of a point spread by a median " << num(100 * sp, "%.0f")
      << "% (max - min over median): the machine was busy, so treat the measured figures as lower bounds.";
  return s.str();
}

std::string validate_table(const SweepResult& r) {
  std::vector<std::vector<std::string>> rows{header()};
  for (const auto& p : r.points) rows.push_back(row(p));
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& rw : rows)
    for (size_t c = 0; c < rw.size(); ++c) width[c] = std::max(width[c], rw[c].size());
  std::ostringstream s;
  s << heading(r) << "\n\n";
  for (const auto& rw : rows) {
    for (size_t c = 0; c < rw.size(); ++c) {
      const std::string pad(width[c] - rw[c].size(), ' ');
      s << (c ? "  " : "") << (c < 2 || c == 11 ? rw[c] + pad : pad + rw[c]);
    }
    s << "\n";
  }
  for (const auto& k : r.skipped) s << "skipped: " << k << "\n";
  s << "\n" << validate_summary_line(r) << "\n\n" << validate_teaches(r) << "\n";
  return s.str();
}

std::string validate_markdown(const SweepResult& r) {
  std::ostringstream s;
  s << "# rooftop validate\n\n" << heading(r) << "\n\n";
  const auto h = header();
  for (const auto& c : h) s << "| " << c << " ";
  s << "|\n";
  for (size_t i = 0; i < h.size(); ++i) s << (i < 2 || i == 11 ? "| --- " : "| ---: ");
  s << "|\n";
  for (const auto& p : r.points) {
    for (const auto& c : row(p)) s << "| " << c << " ";
    s << "|\n";
  }
  if (!r.skipped.empty()) {
    s << "\nSkipped:\n";
    for (const auto& k : r.skipped) s << "- " << k << "\n";
  }
  s << "\n**Summary.** " << validate_summary_line(r) << "\n\n**What it teaches.** " << validate_teaches(r) << "\n";
  return s.str();
}

std::string validate_json(const SweepResult& r) {
  using nlohmann::json;
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  json points = json::array();
  for (const auto& p : r.points)
    points.push_back({{"model", p.model},
                      {"format", p.format},
                      {"context", p.context},
                      {"batch", p.batch},
                      {"threads", p.threads},
                      {"weight_bytes_per_token", p.weight_bytes_per_token},
                      {"kv_read_bytes_per_token", p.kv_read_bytes_per_token},
                      {"bytes_per_token", p.bytes_per_token()},
                      {"flops_per_token", p.flops_per_token},
                      {"measured_s_per_token", p.measured_s_median},
                      {"measured_spread", p.measured_spread},
                      {"samples", p.samples},
                      {"measured_tokens_per_s", p.measured_tokens_per_s},
                      {"achieved_bandwidth_bytes_per_s", p.achieved_bandwidth_bytes_per_s},
                      {"bandwidth_fraction", p.bandwidth_fraction},
                      {"predicted_tokens_per_s", p.predicted_tokens_per_s},
                      {"relative_error", p.relative_error},
                      {"bound", p.bound},
                      {"law_tokens_per_s", p.law_tokens_per_s},
                      {"law_relative_error", p.law_relative_error}});
  const auto& s = r.summary;
  json j = {{"chip",
             {{"id", r.chip_id},
              {"name", r.chip_name},
              {"memory_bandwidth_bytes_per_s", r.memory_bandwidth_bytes_per_s},
              {"calibrated", r.calibrated}}},
            {"provenance", {{"memory_bandwidth_bytes_per_s", r.bandwidth_provenance}}},
            {"threads", r.threads},
            {"points", points},
            {"skipped", r.skipped},
            {"summary",
             {{"median_abs_error_memory_bound", opt(s.memory_bound.median_abs)},
              {"max_abs_error_memory_bound", opt(s.memory_bound.max_abs)},
              {"memory_bound_points", s.memory_bound.count},
              {"median_abs_error_compute_bound", opt(s.compute_bound.median_abs)},
              {"max_abs_error_compute_bound", opt(s.compute_bound.max_abs)},
              {"compute_bound_points", s.compute_bound.count},
              {"median_abs_error_law", opt(s.law.median_abs)},
              {"max_abs_error_law", opt(s.law.max_abs)}}},
            {"summary_line", validate_summary_line(r)},
            {"teaches", validate_teaches(r)}};
  return j.dump(2) + "\n";
}

}  // namespace rooftop::microbench
