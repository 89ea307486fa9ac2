// simulate_html: inline SVG charts (reports/svg.h) and the table, no scripts, no links.
#include "reports/serving_report.h"

#include <algorithm>

#include "reports/html.h"
#include "reports/svg.h"

namespace rooftop::reports {
namespace {

// The fraction of requests at or below each latency (an empirical CDF).
svg::Series cdf(const std::string& name, std::vector<double> v, const char* color) {
  svg::Series s{name, color, {}, true, false};
  std::sort(v.begin(), v.end());
  for (size_t i = 0; i < v.size(); ++i)
    s.points.push_back({v[i], static_cast<double>(i + 1) / static_cast<double>(v.size())});
  return s;
}


}  // namespace

std::string simulate_html(const std::string& title, const std::vector<SimulationResult>& runs, const std::vector<double>& rates,
                          const Table& table) {
  std::vector<std::string> charts;
  const SimulationResult& r = runs.back();  // a sweep's heaviest load
  {
    svg::LineChart c;
    c.title = "Latency CDF" + std::string(rates.empty() ? "" : " at " + svg::si(rates.back()) + " req/s");
    c.x = {"seconds", true, {}, {}};
    c.y = {"fraction of requests", false, 0.0, 1.0};
    c.series = {cdf("TTFT", r.ttft_each_s, "#e6730f"), cdf("end to end", r.e2e_each_s, "#1f77b4")};
    charts.push_back(svg::render(c));
  }
  {
    svg::LineChart c;
    c.title = "KV pages in use over time (fraction of the KV memory)";
    c.x = {"seconds since the first arrival", false, {}, {}};
    c.y = {"fraction of KV pages", false, 0.0, 1.0};
    svg::Series s{"KV pages", "#c62828", {}, true, false};
    for (const auto& [t, v] : r.kv_timeline) s.points.push_back({t, v});
    if (s.points.empty()) s.points.push_back({0, 0});
    c.series = {s};
    charts.push_back(svg::render(c));
  }
  if (rates.size() > 1) {
    svg::LineChart c;
    c.title = "Served rate and p99 latency against the offered rate";
    c.x = {"offered requests per second", true, {}, {}};
    c.y = {"req/s served; p99 seconds", true, {}, {}};
    svg::Series served{"served req/s", "#1f77b4", {}, true, true};
    svg::Series ttft{"TTFT p99 (s)", "#e6730f", {}, true, true};
    svg::Series e2e{"end to end p99 (s)", "#2ca02c", {}, true, true, true};
    for (size_t i = 0; i < runs.size() && i < rates.size(); ++i) {
      served.points.push_back({rates[i], runs[i].requests_per_s});
      ttft.points.push_back({rates[i], std::max(runs[i].ttft_s.p99, 1e-6)});
      e2e.points.push_back({rates[i], std::max(runs[i].e2e_s.p99, 1e-6)});
    }
    c.series = {served, ttft, e2e};
    charts.push_back(svg::render(c));
  }
  return simple_page(title, charts, {table});
}

}  // namespace rooftop::reports
