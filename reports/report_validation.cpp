// The report's "Validated on this machine" section: the law chart and the summary of a validate record.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "base/json.h"
#include "reports/report.h"
#include "reports/svg.h"
#include "reports/units.h"

namespace rooftop::reports {

using nlohmann::json;

std::string validation_chart(const nlohmann::json& r) {
  svg::LineChart c;
  const json& chip = r["chip"];
  const std::string id = chip.contains("id") && chip["id"].is_string() ? chip["id"].get<std::string>() : "cpu";
  c.title = "Validated on this machine: measured decode tok/s against bytes per token (" + id + ")";
  c.width_px = kChartWidthPx;
  c.height_px = kChartHeightPx;
  c.x = {"bytes read per token (B)", true, std::nullopt, std::nullopt};
  c.y = {"measured decode tok/s", true, std::nullopt, std::nullopt};
  svg::Series memory{"measured, analyzer says memory-bound", "#1f77b4", {}, false, true, false};
  svg::Series compute{"measured, analyzer says compute-bound", "#d62728", {}, false, true, false};
  double lo = 0, hi = 0;
  for (const auto& p : r["points"]) {
    const double bytes = p["bytes_per_token"].get<double>(), tps = p["measured_tokens_per_s"].get<double>();
    if (p["phase"] != "decode" || !(bytes > 0) || !(tps > 0) || !std::isfinite(bytes) || !std::isfinite(tps)) continue;
    (p["bound"] == "compute" ? compute : memory).points.push_back({bytes, tps});
    lo = lo > 0 ? std::min(lo, bytes) : bytes;
    hi = std::max(hi, bytes);
  }
  if (hi > 0) {
    const double bw = r["chip"]["memory_bandwidth_bytes_per_s"].get<double>();
    svg::Series law{"law: " + rate_bytes(bw) + " / bytes per token", "#555555", {}, true, false, true};
    for (double x : {lo / 1.5, hi * 1.5}) law.points.push_back({x, bw / x});
    c.series.push_back(std::move(law));
  }
  if (!memory.points.empty()) c.series.push_back(std::move(memory));
  if (!compute.points.empty()) c.series.push_back(std::move(compute));
  return svg::render(c);
}

std::string validation_summary(const nlohmann::json& r) {
  size_t decode = 0;
  for (const auto& p : r["points"]) decode += p["phase"] == "decode";
  const json& chip = r["chip"];
  const bool calibrated = chip.contains("calibrated") && chip["calibrated"].is_boolean() && chip["calibrated"].get<bool>();
  return "Measured on this machine with rooftop's kernels: " + std::to_string(decode) + (decode == 1 ? " decode point" : " decode points") + " against a bandwidth of " +
         rate_bytes(chip["memory_bandwidth_bytes_per_s"].get<double>()) +
         (calibrated ? " (calibrated)" : " (not calibrated: run `rooftop calibrate`)") + ". " +
         r["summary_line"].get<std::string>();
}

}  // namespace rooftop::reports
