// The combined report's views: terminal tables, JSON and sources (cli/report_build.cpp assembles the record).
#include "reports/report.h"

#include <algorithm>
#include <set>

#include "base/suggest.h"
#include "reports/fit_report.h"
#include "reports/speed_report.h"
#include "reports/table.h"
#include "reports/units.h"

namespace rooftop::reports {
namespace {

Table field_table(const ReportData& d) {
  Table t;
  t.title = "decode across chips: " + d.model.id + ", weights " + d.plan.weights + ", batch 1";
  t.headers = {"chip", "name", "fits", "decode tok/s"};
  t.right_align = {false, false, false, true};
  for (const auto& r : d.field) {
    if (!r.error.empty()) t.rows.push_back({r.hw, r.name, "n/a", r.error});
    else t.rows.push_back({r.hw, r.name, r.fits ? "yes" : "no (won't fit)", sig(r.decode_tokens_per_s)});
  }
  t.footnotes.push_back("chips marked no cannot hold the weights, KV and overhead: their speed is what they would reach if it fit");
  return t;
}

Table sources_table(const ReportData& d) {
  Table t;
  t.title = "assumptions and sources";
  t.headers = {"figure", "value or statement", "source"};
  t.right_align = {false, false, false};
  for (auto& row : report_sources(d)) t.rows.push_back(row);
  return t;
}

Table calibration_table(const ReportData& d) {
  Table t;
  t.title = "calibrated figures of " + d.chip.id + " (measured on this machine)";
  t.headers = {"figure", "value", "provenance"};
  t.right_align = {false, true, false};
  for (const auto& [k, v] : d.chip.measured.entries()) t.rows.push_back({k, sig(v), provenance_of(d.chip, k)});
  return t;
}

}  // namespace

std::vector<std::vector<std::string>> report_sources(const ReportData& d) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"model " + d.model.id, d.model.name, d.model.source.empty() ? "model card" : d.model.source});
  rows.push_back({"chip " + d.chip.id, d.chip.name, d.chip.file.empty() ? (d.chip.kind == "cpu" ? "detected" : "built in") : d.chip.file});
  for (const auto& s : d.chip.sources) rows.push_back({"chip source", d.chip.id, s});
  rows.push_back({"memory", bytes(d.chip.memory_bytes), provenance_of(d.chip, "memory_bytes")});
  rows.push_back({"memory bandwidth", rate_bytes(d.chip.memory_bandwidth_bytes_per_s), provenance_of(d.chip, "memory_bandwidth_bytes_per_s")});
  for (const auto& [fmt, v] : d.chip.peak_flops) rows.push_back({"peak " + fmt + " (dense)", flops_rate(v), provenance_of(d.chip, "peak_flops." + fmt)});
  if (d.chip.usd_per_hour)
    rows.push_back({"price", usd(*d.chip.usd_per_hour) + " per hour (" + d.chip.usd_per_hour_date + ")",
                    d.chip.usd_per_hour_source.empty() ? "card" : d.chip.usd_per_hour_source});
  if (d.chip.tdp_watts) rows.push_back({"power", sig(*d.chip.tdp_watts) + " W", "card TDP"});
  for (const auto& [k, v] : d.speed.provenance) rows.push_back({"speed: " + k, v, "provenance"});
  std::set<std::string> seen;
  auto add = [&](const std::string& what, const std::vector<std::string>& list) {
    for (const auto& a : list)
      if (seen.insert(a).second) rows.push_back({what, a, "assumed"});
  };
  add("fit assumption", d.fit.assumptions);
  add("fit note", d.fit.notes);
  add("speed assumption", d.speed.assumptions);
  add("roofline assumption", d.roof.assumptions);
  for (const auto& n : d.chip.notes) rows.push_back({"chip note", n, d.chip.id});
  return rows;
}

std::string report_text(const ReportData& d) {
  std::vector<Table> tables = report_tables(d);
  tables.push_back(sources_table(d));
  std::string validated;
  if (!d.validation.is_null()) validated = "\nValidated on this machine\n" + validation_summary(d.validation) + "\n";
  if (!d.validation_notice.empty()) validated = "\n" + d.validation_notice + "\n";
  return render(tables, "table") + validated +
         "\n(charts: rooftop report --model " + d.model.id + " --hw " + d.chip.id + " --format html -o report.html)\n";
}

nlohmann::json report_json(const ReportData& d) {
  nlohmann::json j;
  j["model"] = d.model.id;
  j["hw"] = d.chip.id;
  j["fit"] = fit_json(d.fit, d.chip);
  j["speed"] = speed_json(d.speed);
  j["sweep"] = speed_json(d.sweep);
  j["roofline"] = roofline_json(d.roof);
  j["field"] = nlohmann::json::array();
  for (const auto& r : d.field) {
    nlohmann::json c{{"hw", r.hw}, {"name", r.name}};
    if (!r.error.empty()) c["error"] = r.error;
    else {
      c["fits"] = r.fits;
      c["decode_tokens_per_s"] = r.decode_tokens_per_s;
    }
    j["field"].push_back(c);
  }
  if (!d.chip.measured.empty()) j["measured"] = d.chip.measured.entries();
  if (!d.validation.is_null()) j["validation"] = d.validation;
  if (!d.validation_notice.empty()) j["validation_notice"] = d.validation_notice;
  j["sources"] = nlohmann::json::array();
  for (const auto& row : report_sources(d)) j["sources"].push_back({{"figure", row[0]}, {"value", row[1]}, {"source", row[2]}});
  return j;
}

// Tables shared by the HTML and Markdown views (defined here so both use the same list).
std::vector<Table> report_tables(const ReportData& d) {
  std::vector<Table> tables = fit_tables(d.fit, d.chip, false);
  for (auto& t : speed_tables(d.speed, false)) tables.push_back(std::move(t));
  for (auto& t : cost_tables(d.speed, false)) tables.push_back(std::move(t));
  for (auto& t : roofline_tables(d.roof)) tables.push_back(std::move(t));
  tables.push_back(field_table(d));
  if (!d.chip.measured.empty()) tables.push_back(calibration_table(d));
  return tables;
}

Table report_sources_table(const ReportData& d) { return sources_table(d); }

}  // namespace rooftop::reports
