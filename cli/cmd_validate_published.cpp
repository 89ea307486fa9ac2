// rooftop validate --published: the published measurements (validate/published/) against the analyzer's
// predictions under each engine's runtime profile and under `generic`; --fit refits the profiles with
// leave-one-source-out cross-validation.
#include <nlohmann/json.hpp>

#include <map>
#include <set>

#include "cli/common.h"
#include "base/suggest.h"
#include "base/files.h"
#include "hwdb/runtime_cards.h"
#include "reports/html.h"
#include "reports/svg.h"
#include "reports/table.h"
#include "reports/units.h"
#include "validate/compare.h"

namespace rooftop::cli {
namespace {

std::string pct(double e) { return (e >= 0 ? "+" : "") + reports::sig(100 * e, 2) + "%"; }
std::string apct(double e) { return reports::sig(100 * e, 2) + "%"; }

reports::Table summary_table(const validate::Comparison& c, const std::string& by, const std::string& title) {
  reports::Table t;
  t.title = title;
  t.headers = {by, "records", "median |err|", "p90 |err|", "median err", "generic median |err|", "generic p90 |err|"};
  for (const auto& g : c.groups)
    if (g.by == by)
      t.rows.push_back({g.key, std::to_string(g.records), apct(g.median_abs), apct(g.p90_abs), pct(g.median),
                        apct(g.generic_median_abs), apct(g.generic_p90_abs)});
  return t;
}

std::vector<reports::Table> comparison_tables(const validate::Comparison& c, const validate::PublishedDataset& data,
                                              bool records) {
  std::vector<reports::Table> out;
  out.push_back(summary_table(c, "class", "published measurements against rooftop: by metric class (profile fitted in-sample; "
                                          "cross-validated errors: rooftop validate --published --fit)"));
  out.push_back(summary_table(c, "engine", "by engine"));
  out.push_back(summary_table(c, "hw", "by chip"));
  out.push_back(summary_table(c, "family", "by weight-format family"));
  out.push_back(summary_table(c, "all", "all records"));
  out.back().footnotes.push_back(std::to_string(c.rows.size()) + " records predicted, " + std::to_string(c.skipped.size()) +
                                 " skipped (rooftop validate --published --format json lists each reason)");
  // Reasons grouped with their quoted ids ('h100-pcie') replaced by "…"; the ids are listed after the group.
  struct Group { int n = 0; std::set<std::string> ids; };
  std::map<std::string, Group> reasons;
  for (const auto& s : c.skipped) {
    std::string key;
    std::set<std::string> ids;
    for (size_t i = 0; i < s.reason.size();) {
      const size_t close = s.reason[i] == '\'' ? s.reason.find('\'', i + 1) : std::string::npos;
      if (close == std::string::npos) { key += s.reason[i++]; continue; }
      ids.insert(s.reason.substr(i, close + 1 - i));
      key += "\u2026";
      i = close + 1;
    }
    auto& g = reasons[key];
    g.n++;
    g.ids.insert(ids.begin(), ids.end());
  }
  for (const auto& [r, g] : reasons) {
    std::string line = "skipped " + std::to_string(g.n) + ": " + r;
    if (!g.ids.empty()) {
      line += " (";
      int shown = 0;
      for (const auto& id : g.ids) {
        if (shown == 8) { line += ", " + std::to_string(g.ids.size() - 8) + " more"; break; }
        line += (shown++ ? ", " : "") + id;
      }
      line += ")";
    }
    out.back().footnotes.push_back(line);
  }
  if (records) {
    reports::Table t;
    t.title = "every record";
    t.headers = {"source:line", "engine", "runtime", "hw", "model", "weights", "batch", "metric", "measured", "predicted", "error", "generic"};
    for (const auto& r : c.rows) {
      const auto& rec = data.records[static_cast<size_t>(r.record)];
      t.rows.push_back({data.sources[static_cast<size_t>(r.source)].file + ":" + std::to_string(rec.line), r.engine, r.runtime,
                        r.hw + (rec.hw_count > 1 ? " x" + std::to_string(rec.hw_count) : ""), r.model, r.weights,
                        r.batch ? std::to_string(r.batch) : "max", r.metric, reports::sig(r.measured), reports::sig(r.predicted),
                        pct(r.error()), r.has_generic ? pct(r.generic_error()) : "-"});
    }
    out.push_back(t);
  }
  return out;
}

nlohmann::json comparison_json(const validate::Comparison& c, const validate::PublishedDataset& data) {
  nlohmann::json j;
  j["records"] = nlohmann::json::array();
  for (const auto& r : c.rows) {
    const auto& rec = data.records[static_cast<size_t>(r.record)];
    j["records"].push_back({{"file", data.sources[static_cast<size_t>(r.source)].file}, {"line", rec.line}, {"engine", r.engine},
                            {"runtime", r.runtime}, {"hw", r.hw}, {"architecture", r.arch}, {"hw_count", rec.hw_count},
                            {"model", r.model}, {"weights", r.weights}, {"family", r.family}, {"batch", rec.batch ? nlohmann::json(*rec.batch) : nlohmann::json()},
                            {"metric", r.metric}, {"metric_class", r.metric_class}, {"measured", r.measured},
                            {"predicted", r.predicted}, {"error", r.error()},
                            {"generic_predicted", r.has_generic ? nlohmann::json(r.generic) : nlohmann::json()},
                            {"generic_error", r.has_generic ? nlohmann::json(r.generic_error()) : nlohmann::json()}});
  }
  j["skipped"] = nlohmann::json::array();
  for (const auto& s : c.skipped) {
    const auto& rec = data.records[static_cast<size_t>(s.record)];
    j["skipped"].push_back({{"file", data.sources[static_cast<size_t>(rec.source)].file}, {"line", rec.line}, {"reason", s.reason}});
  }
  j["summary"] = nlohmann::json::array();
  for (const auto& g : c.groups)
    j["summary"].push_back({{"by", g.by}, {"key", g.key}, {"records", g.records}, {"median_abs_error", g.median_abs},
                            {"p90_abs_error", g.p90_abs}, {"median_error", g.median}, {"generic_median_abs_error", g.generic_median_abs},
                            {"generic_p90_abs_error", g.generic_p90_abs}});
  return j;
}

// Log-log scatter of predicted against measured, one colour per engine, with the y = x line.
std::string comparison_chart(const validate::Comparison& c) {
  reports::svg::LineChart ch;
  ch.title = "published measurements: predicted against measured (each record in its own unit; y = x is exact)";
  ch.x = {"measured (as printed: tok/s or s)", true, {}, {}};
  ch.y = {"predicted by rooftop", true, {}, {}};
  const std::vector<std::string> colors = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
  std::map<std::string, reports::svg::Series> by_engine;
  double lo = 1e300, hi = 0;
  for (const auto& r : c.rows) {
    auto& s = by_engine[r.engine];
    s.name = r.engine;
    s.line = false;
    s.markers = true;
    s.points.push_back({r.measured, r.predicted});
    lo = std::min({lo, r.measured, r.predicted});
    hi = std::max({hi, r.measured, r.predicted});
  }
  size_t i = 0;
  for (auto& [e, s] : by_engine) {
    s.color = colors[i++ % colors.size()];
    ch.series.push_back(s);
  }
  if (hi > 0) {
    reports::svg::Series diag;
    diag.name = "y = x";
    diag.color = "#555555";
    diag.dashed = true;
    diag.points = {{lo, lo}, {hi, hi}};
    ch.series.push_back(diag);
  }
  return reports::svg::render(ch);
}

std::string html_page(const std::vector<reports::Table>& tables, const std::string& chart) {
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>rooftop validate --published</title>"
                  "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}"
                  "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}th{background:#eee}</style></head>\n<body>\n"
                  "<h1>rooftop validate --published</h1>\n" + chart;
  for (const auto& t : tables) h += reports::render_html(t);
  return h + "</body>\n</html>\n";
}

// --fit: per runtime, the fit on all its records and the leave-one-source-out errors.
int run_fit(Context& ctx, const PublishedOptions& o, const validate::PublishedDataset& data,
            const std::vector<RuntimeProfile>& profiles) {
  const validate::CaseSet set = validate::build_cases(data, profiles, hw_database(ctx), model_database(ctx), "", o.hw);
  reports::Table t;
  t.title = "runtime profiles fitted to the published measurements: in-sample and leave-one-source-out (LOSO) |error|";
  t.headers = {"runtime", "class", "records", "sources", "in-sample median", "in-sample p90", "LOSO median", "LOSO p90"};
  nlohmann::json j = nlohmann::json::array(), held = nlohmann::json::array();
  for (const auto& start : profiles) {
    if (start.id == "generic" || start.id == "rooftop" || (!o.runtime.empty() && start.id != o.runtime)) continue;
    std::vector<const validate::RecordCase*> cases;
    std::vector<double> values;
    std::vector<int> sources;
    for (const auto& c : set.cases)
      if (c.runtime == start.id) {
        cases.push_back(&c);
        values.push_back(data.records[static_cast<size_t>(c.record)].value);
        sources.push_back(data.records[static_cast<size_t>(c.record)].source);
      }
    if (cases.empty()) continue;
    validate::FitResult fit = validate::fit_with_loso(start, cases, values, sources);
    std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> by_class;
    std::map<int, std::string> class_of;
    for (const auto* c : cases) class_of[c->record] = c->metric_class;
    for (size_t i = 0; i < fit.in_sample.size(); ++i) {
      for (const std::string& k : {class_of[fit.in_sample[i].record], std::string("all")}) by_class[k].first.push_back(fit.in_sample[i].error());
    }
    for (const auto& p : fit.held_out)
      for (const std::string& k : {class_of[p.record], std::string("all")}) by_class[k].second.push_back(p.error());
    for (const auto& [cls, errs] : by_class) {
      const auto in = validate::summarize("class", cls, errs.first, errs.first);
      const auto out = validate::summarize("class", cls, errs.second, errs.second);
      const bool cv = out.records > 0;  // one source: nothing to hold out
      t.rows.push_back({start.id, cls, std::to_string(in.records), std::to_string(fit.sources), apct(in.median_abs), apct(in.p90_abs),
                        cv ? apct(out.median_abs) : "n/a", cv ? apct(out.p90_abs) : "n/a"});
      j.push_back({{"runtime", start.id}, {"class", cls}, {"records", in.records}, {"sources", fit.sources},
                   {"in_sample_median_abs", in.median_abs}, {"in_sample_p90_abs", in.p90_abs},
                   {"loso_median_abs", out.median_abs}, {"loso_p90_abs", out.p90_abs}});
      if (cls == "all") {
        const std::string how = "fitted to " + std::to_string(in.records) + " records from " + std::to_string(fit.sources) +
                                " sources (validate/published); " +
                                (cv ? "leave-one-source-out median |error| " + apct(out.median_abs) : std::string("one source: not cross-validated")) +
                                ", in-sample " + apct(in.median_abs);
        if (!fit.at_bound.empty()) {
          std::string terms;
          for (const auto& b : fit.at_bound) terms += (terms.empty() ? "" : ", ") + b;
          t.footnotes.push_back(start.id + ": at a bound of their range (the data ask for more than the term gives): " + terms);
        }
        for (const auto& term : fit.fitted_terms) fit.profile.provenance[term.substr(0, term.find('.'))] = how;
      }
    }
    // Every record's held-out and in-sample prediction (JSON), for finding where the model misses.
    std::map<int, double> in_sample;
    for (const auto& p : fit.in_sample) in_sample[p.record] = p.predicted;
    for (const auto& p : fit.held_out) {
      const auto& rec = data.records[static_cast<size_t>(p.record)];
      held.push_back({{"runtime", start.id}, {"file", data.sources[static_cast<size_t>(rec.source)].file}, {"line", rec.line},
                      {"class", class_of[p.record]}, {"hw", rec.hw}, {"model", rec.model}, {"weights", rec.weights},
                      {"metric", rec.metric}, {"measured", p.measured}, {"held_out_predicted", p.predicted},
                      {"held_out_error", p.error()}, {"in_sample_predicted", in_sample[p.record]}});
    }
    if (!o.write_runtimes.empty()) {
      const std::string path = o.write_runtimes + "/" + start.id + ".yaml";
      write_file_atomically(path, hwdb::runtime_card_yaml(fit.profile,
                                 start.name + " runtime profile. Stated terms carry their source; fitted terms were written by\n"
                                 "rooftop validate --published --fit --write-runtimes hwdb/runtimes (do not edit them by hand)."),
                            true);
    }
  }
  if (o.out.format == "json") emit(ctx, o.out, nlohmann::json{{"summary", j}, {"records", held}}.dump(2) + "\n");
  else emit(ctx, o.out, reports::render({t}, o.out.format == "html" ? "md" : o.out.format));
  return kExitOk;
}

}  // namespace

int run_validate_published(Context& ctx, const PublishedOptions& o) {
  if (o.only_dirs && o.dirs.empty()) throw InputError("--held-out needs --published-dir DIR (the sources to check)");
  if (o.only_dirs && o.fit) throw InputError("--held-out checks the fitted profiles on other sources; it does not go with --fit");
  const validate::PublishedDataset data = validate::load_published(o.dirs, !o.only_dirs);
  const std::vector<RuntimeProfile> profiles = hwdb::load_runtimes();
  if (!o.runtime.empty()) hwdb::find_runtime(profiles, o.runtime);  // unknown id: the valid ones listed
  if (!o.hw.empty()) resolve_chip(ctx, o.hw);
  if (o.fit) return run_fit(ctx, o, data, profiles);
  const validate::Comparison c = validate::compare_published(data, profiles, hw_database(ctx), model_database(ctx), o.runtime, o.hw);
  if (o.out.format == "json") {
    emit(ctx, o.out, comparison_json(c, data).dump(2) + "\n");
    return kExitOk;
  }
  const auto tables = comparison_tables(c, data, o.out.explain || o.out.format != "table");
  if (o.out.format == "html") emit(ctx, o.out, html_page(tables, comparison_chart(c)));
  else emit(ctx, o.out, reports::render(tables, o.out.format));
  return kExitOk;
}

}  // namespace rooftop::cli
