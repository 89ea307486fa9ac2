// Renderers for the validate sweep: every view is computed from the same SweepResult record.
#include "reports/validation_render.h"

#include <algorithm>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

namespace rooftop::reports {
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
  return {"model", "format", "phase", "batch", "context", "MB/token", "GFLOP/token", "measured tok/s", "spread", "GB/s", "of bw",
          "predicted tok/s", "error", "bound", "law tok/s", "law error"};
}

std::vector<std::string> row(const ValidatePoint& p) {
  return {p.file.empty() ? p.model : p.model + " (GGUF file)", p.format, p.phase, std::to_string(p.batch), std::to_string(p.context), num(p.bytes_per_token() / 1e6),
          num(p.flops_per_token / 1e9), num(p.measured_tokens_per_s), num(100 * p.measured_spread, "%.0f") + "%",
          num(p.achieved_bandwidth_bytes_per_s / 1e9), num(100 * p.bandwidth_fraction, "%.0f") + "%",
          num(p.predicted_tokens_per_s), pct(p.relative_error), p.bound, num(p.law_tokens_per_s),
          pct(p.law_relative_error)};
}

std::string heading(const SweepResult& r) {
  return "Chip " + r.chip_id + " (" + r.chip_name + "), bandwidth " + num(r.memory_bandwidth_bytes_per_s / 1e9) +
         " GB/s (" + r.bandwidth_provenance + "), " + (r.calibrated ? "calibrated" : "not calibrated: run `rooftop calibrate`") +
         ", " + std::to_string(r.threads) + " threads, fp32 KV cache. Decode tok/s = batch / step time; prefill tok/s "
         "= prompt tokens / TTFT (context = prompt length; the law column is the fp32 compute roof there).";
}


}  // namespace

std::string validate_terms_line(const SweepResult& r) {
  std::string line = "Terms of the model (decode |error| median / worst, each adds to the one before):";
  for (size_t i = 0; i < r.summary.terms.size(); ++i) {
    const auto& t = r.summary.terms[i];
    line += std::string(i ? ";" : "") + " " + t.name + " " + pct_abs(t.error.median_abs) + " / " + pct_abs(t.error.max_abs);
  }
  return line + ".";
}

std::string validate_summary_line(const SweepResult& r) {
  const auto& s = r.summary;
  return "Analyzer |error|: memory-bound median " + pct_abs(s.memory_bound.median_abs) + ", worst " +
         pct_abs(s.memory_bound.max_abs) + " (" + std::to_string(s.memory_bound.count) + " points); compute-bound median " +
         pct_abs(s.compute_bound.median_abs) + ", worst " + pct_abs(s.compute_bound.max_abs) + " (" +
         std::to_string(s.compute_bound.count) + " points, " + std::to_string(s.compute_agree) +
         " of them measured below " + num(100 * kComputeAgreeFraction, "%.0f") + "% of the bandwidth, as a compute bound would). Plain law |error|: median " + pct_abs(s.law.median_abs) +
         ", worst " + pct_abs(s.law.max_abs) + ". Prefill (TTFT) |error|: median " + pct_abs(s.prefill.median_abs) +
         ", worst " + pct_abs(s.prefill.max_abs) + " (" + std::to_string(s.prefill.count) + " points). Raw prediction " +
         "(the calibrated roof, not paired with the probe's rounds) over the decode points: median " +
         pct_abs(s.raw.median_abs) + ", worst " + pct_abs(s.raw.max_abs) + ".";
}

namespace {

// How batched decode compared with batch 1 of the same model, format and context.
std::string validate_batch_words(const SweepResult& r) {
  std::map<int64_t, std::vector<double>> gain;  // batch -> measured tok/s over batch-1 tok/s
  std::map<int64_t, std::vector<double>> bw;    // batch -> achieved GB/s
  for (const auto& p : r.points) {
    if (p.phase != "decode" || p.batch == 1) continue;
    for (const auto& q : r.points)
      if (q.phase == "decode" && q.batch == 1 && q.model == p.model && q.format == p.format && q.context == p.context) {
        gain[p.batch].push_back(p.measured_tokens_per_s / q.measured_tokens_per_s);
        bw[p.batch].push_back(p.achieved_bandwidth_bytes_per_s / 1e9);
      }
  }
  std::string out;
  for (const auto& [b, g] : gain)
    out += "Batch " + std::to_string(b) + " (gemv_batch, n = " + std::to_string(b) + ") ran at a median " +
           num(median(g), "%.2g") + "x the batch-1 tok/s, reading weights at " + num(median(bw[b])) +
           " GB/s; the law expects close to " + std::to_string(b) + "x while memory-bound. ";
  return out;
}

// How each added term moved the median decode error.
std::string validate_terms_words(const SweepResult& r) {
  std::string out;
  for (const auto& t : r.summary.terms) {
    if (!t.error.median_abs) return "";
    out += (out.empty() ? "Adding the model's terms one at a time moved the median decode |error|: " : ", ") +
           t.name + " " + pct_abs(t.error.median_abs);
  }
  return out.empty() ? "" : out + ".";
}

}  // namespace

std::string validate_teaches(const SweepResult& r) {
  bool any_decode = false;
  for (const auto& p : r.points) any_decode = any_decode || (p.phase == "decode" && p.batch == 1);
  if (!any_decode) return "No batch-1 decode point was measured, so nothing can be concluded.";
  std::map<std::string, std::vector<double>> fraction, law;
  std::vector<std::string> order;
  for (const auto& p : r.points) {
    if (p.phase != "decode" || p.batch != 1) continue;
    if (!fraction.count(p.format)) order.push_back(p.format);
    fraction[p.format].push_back(p.bandwidth_fraction);
    law[p.format].push_back(p.law_tokens_per_s / p.measured_tokens_per_s);
  }
  // One finding per line ("- "), so a long sweep's lessons read as a list, not one paragraph.
  std::ostringstream s;
  s << "- Against the " << num(r.memory_bandwidth_bytes_per_s / 1e9) << " GB/s bandwidth figure, decode steps reached";
  std::string lowest, highest;
  double lo = 1e300, hi = -1;
  for (size_t i = 0; i < order.size(); ++i) {
    const double f = median(fraction[order[i]]);
    s << (i ? ", " : " ") << order[i] << " " << num(100 * f, "%.0f") << "%";
    if (f < lo) lo = f, lowest = order[i];
    if (f > hi) hi = f, highest = order[i];
  }
  s << " of it (median over the batch-1 decode points of each format). ";
  s << "So the plain law (bandwidth / bytes per token) predicts " << num(median(law[lowest]), "%.2g")
    << "x the measured speed for " << lowest << " and " << num(median(law[highest]), "%.2g") << "x for " << highest;
  if (lowest != highest && lo < 0.8 * hi)
    s << ": fewer bytes per token did not buy proportionally more speed, because " << lowest
      << " spends more instructions per byte (dequantization) and the fixed costs per layer (norms, "
         "attention, thread hand-offs) do not shrink with the weights";
  s << ".";
  if (hi > 1.0)
    s << "\n- A fraction above 100% means the step drew more than the STREAM read loop does (the GEMVs keep more "
         "loads in flight, and a shared host's bandwidth also moves from second to second), which is why a "
         "prediction's memory roof is the format's GEMV streaming rate, probed during each point, not STREAM.";
  const auto& m = r.summary.memory_bound;
  if (m.median_abs)
    s << "\n- The analyzer" << (r.calibrated ? " (calibrated)" : " (uncalibrated: datasheet/assumed figures)")
      << " is off by a median " << pct_abs(m.median_abs) << " over memory-bound points (target 10%), worst "
      << pct_abs(m.max_abs) << ".";
  if (r.summary.compute_bound.count > 0)
    s << "\n- It called " << r.summary.compute_bound.count << " decode point(s) compute-bound.";
  else
    s << "\n- It called no decode point compute-bound.";
  if (const std::string w = validate_batch_words(r) + validate_terms_words(r); !w.empty()) s << "\n- " << w;
  if (const auto& bw = r.refreshed_bandwidths_bytes_per_s; bw.size() > 1) {
    const auto [lo_bw, hi_bw] = std::minmax_element(bw.begin(), bw.end());
    s << "\n- The calibration was refreshed before each format's points (" << bw.size()
      << " times): STREAM read ranged " << num(*lo_bw / 1e9) << "-" << num(*hi_bw / 1e9)
      << " GB/s across the sweep, a drift the predictions followed instead of counting it as error.";
  }
  {
    std::vector<double> speeds;
    int again = 0, at_end = 0;
    for (const auto& p : r.points) {
      if (p.phase != "decode" || p.probe_bytes_per_s <= 0) continue;
      speeds.push_back(p.probe_cpu_speed);
      again += p.attempts > 1;
      at_end += p.measured_at_end;
    }
    if (!speeds.empty()) {
      const auto [lo_c, hi_c] = std::minmax_element(speeds.begin(), speeds.end());
      s << "\n- The cores ran at " << num(*lo_c, "%.2f") << "-" << num(*hi_c, "%.2f")
        << "x their speed at each group's calibration refresh during the decode points (an L2-resident GEMV probed"
           " beside every step sample; other tenants share them), and "
        << again << " point(s) were measured again, up to twice at once and " << at_end
        << " of them once more at the end of the sweep, because it was over 15% off (the attempt nearest 1 is kept).";
    }
  }
  for (const auto& p : r.points) {
    if (p.file.empty()) continue;
    s << "\n- The real file " << std::filesystem::path(p.file).filename().string()
      << " (the engine's own decode step; layers " << p.format << ", embedding " << p.embedding_format
      << ", output " << p.lm_head_format << ") at context " << p.context << ": measured "
      << num(p.measured_tokens_per_s) << " tok/s, predicted " << num(p.predicted_tokens_per_s) << " ("
      << (p.relative_error >= 0 ? "+" : "") << num(100 * p.relative_error) << "%).";
  }
  std::vector<double> spreads;
  for (const auto& p : r.points) spreads.push_back(p.measured_spread);
  if (const double sp = median(spreads); sp > 0.10)
    s << "\n- The samples of a point spread by a median " << num(100 * sp, "%.0f")
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
      s << (c ? "  " : "") << (c < 3 || c == 13 ? rw[c] + pad : pad + rw[c]);
    }
    s << "\n";
  }
  for (const auto& k : r.skipped) s << "skipped: " << k << "\n";
  s << "\n" << validate_summary_line(r) << "\n" << validate_terms_line(r) << "\n\n" << validate_teaches(r) << "\n";
  return s.str();
}

std::string validate_markdown(const SweepResult& r) {
  std::ostringstream s;
  s << "# rooftop validate\n\n" << heading(r) << "\n\n";
  const auto h = header();
  for (const auto& c : h) s << "| " << c << " ";
  s << "|\n";
  for (size_t i = 0; i < h.size(); ++i) s << (i < 3 || i == 13 ? "| --- " : "| ---: ");
  s << "|\n";
  for (const auto& p : r.points) {
    for (const auto& c : row(p)) s << "| " << c << " ";
    s << "|\n";
  }
  if (!r.skipped.empty()) {
    s << "\nSkipped:\n";
    for (const auto& k : r.skipped) s << "- " << k << "\n";
  }
  s << "\n**Summary.** " << validate_summary_line(r) << "\n\n**Terms.** " << validate_terms_line(r)
    << "\n\n**What it teaches.**\n\n" << validate_teaches(r) << "\n";
  return s.str();
}

std::string validate_json(const SweepResult& r) {
  using nlohmann::json;
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  auto terms_of = [](const std::array<double, kTermSets>& v) {
    json a = json::array();
    for (double x : v) a.push_back(std::isfinite(x) ? json(x) : json(nullptr));
    return a;
  };
  json terms = json::array();
  for (const auto& t : r.summary.terms)
    terms.push_back({{"name", t.name}, {"median_abs_error", opt(t.error.median_abs)}, {"max_abs_error", opt(t.error.max_abs)}});
  json points = json::array();
  for (const auto& p : r.points)
    points.push_back({{"model", p.model},
                      {"format", p.format},
                      {"phase", p.phase},
                      {"context", p.context},
                      {"prompt_tokens", p.prompt_tokens},
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
                      {"predicted_s", p.predicted_s},
                      {"term_tokens_per_s", terms_of(p.term_tokens_per_s)},
                      {"relative_error", p.relative_error},
                      {"bound", p.bound},
                      {"law_tokens_per_s", p.law_tokens_per_s},
                      {"law_relative_error", p.law_relative_error},
                      {"probe_bytes_per_s", p.probe_bytes_per_s},
                      {"raw_predicted_tokens_per_s", p.raw_predicted_tokens_per_s},
                      {"raw_relative_error", p.raw_relative_error},
                      {"probe_cpu_speed", p.probe_cpu_speed},
                      {"attempts", p.attempts},
                      {"measured_at_end", p.measured_at_end},

                      {"file", p.file.empty() ? json(nullptr) : json(p.file)},
                      {"embedding_format", p.embedding_format.empty() ? json(nullptr) : json(p.embedding_format)},
                      {"lm_head_format", p.lm_head_format.empty() ? json(nullptr) : json(p.lm_head_format)}});
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
            {"refreshed_bandwidths_bytes_per_s", r.refreshed_bandwidths_bytes_per_s},
            {"summary",
             {{"median_abs_error_memory_bound", opt(s.memory_bound.median_abs)},
              {"max_abs_error_memory_bound", opt(s.memory_bound.max_abs)},
              {"memory_bound_points", s.memory_bound.count},
              {"median_abs_error_compute_bound", opt(s.compute_bound.median_abs)},
              {"max_abs_error_compute_bound", opt(s.compute_bound.max_abs)},
              {"compute_bound_points", s.compute_bound.count},
              {"compute_bound_points_measured_agree", s.compute_agree},
              {"median_abs_error_law", opt(s.law.median_abs)},
              {"max_abs_error_law", opt(s.law.max_abs)},
              {"median_abs_error_prefill", opt(s.prefill.median_abs)},
              {"max_abs_error_prefill", opt(s.prefill.max_abs)},
              {"prefill_points", s.prefill.count},
              {"median_abs_error_raw", opt(s.raw.median_abs)},
              {"max_abs_error_raw", opt(s.raw.max_abs)}}},
            {"terms", terms},
            {"summary_line", validate_summary_line(r)},
            {"teaches", validate_teaches(r)}};
  return j.dump(2) + "\n";
}

}  // namespace rooftop::reports
