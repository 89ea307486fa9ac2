#include "cli/report_build.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "base/suggest.h"
#include "analyzer/roofline.h"
#include "base/json.h"

namespace rooftop::cli {
namespace {

using nlohmann::json;

bool positive_number(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number() && std::isfinite(j[key].get<double>()) && j[key].get<double>() > 0;
}

// Empty when the record has every field the section reads, else what is wrong (a few words).
std::string check_record(const json& r) {
  if (!r.is_object()) return "not a JSON object";
  if (!r.contains("chip") || !positive_number(r["chip"], "memory_bandwidth_bytes_per_s"))
    return "no chip.memory_bandwidth_bytes_per_s above zero";
  if (!r.contains("summary_line") || !r["summary_line"].is_string()) return "no summary_line";
  if (!r.contains("points") || !r["points"].is_array()) return "no points array";
  for (size_t i = 0; i < r["points"].size(); ++i) {
    const json& p = r["points"][i];
    if (!p.is_object() || !p.contains("phase") || !p["phase"].is_string() || !p.contains("bound") || !p["bound"].is_string() ||
        !p.contains("bytes_per_token") || !p["bytes_per_token"].is_number() || !p.contains("measured_tokens_per_s") ||
        !p["measured_tokens_per_s"].is_number())
      return "point " + std::to_string(i) + " lacks phase, bound, bytes_per_token or measured_tokens_per_s";
  }
  return "";
}

}  // namespace

void load_validation(const std::string& path, nlohmann::json& record, std::string& notice) {
  record = nullptr;
  notice.clear();
  std::error_code ec;
  if (path.empty() || !std::filesystem::is_regular_file(path, ec)) return;
  std::string why;
  json r;
  try {
    r = read_json_file(path, "validation record");
    why = check_record(r);
  } catch (const InputError& e) {
    why = e.what();
  }
  if (!why.empty()) {
    notice = "validation record " + path + " is damaged (" + why + "): skipped; rerun `rooftop validate` to replace it";
    return;
  }
  record = std::move(r);
}

reports::ReportData build_report(const ReportInputs& in) {
  reports::ReportData d;
  d.model = in.model;
  d.chip = in.chip;
  d.plan = in.plan;
  d.fit = fit(in.model, in.chip, in.plan, in.fit);
  d.speed = speed(in.model, in.chip, in.plan, in.speed);
  SpeedOptions sweep = in.speed;
  sweep.batches.clear();
  for (int64_t b = 1; b <= 4096; b *= 2) sweep.batches.push_back(b);
  d.sweep = speed(in.model, in.chip, in.plan, sweep);
  RooflineOptions ro;
  ro.prompt_tokens = in.speed.prompt_tokens;
  ro.context = in.speed.context.value_or(in.speed.prompt_tokens + in.speed.output_tokens / 2);
  d.roof = roofline(in.model, in.chip, in.plan, ro);
  for (const auto& chip : in.field) {
    reports::FieldRow row{chip.id, chip.name, 0, false, ""};
    SpeedOptions s = in.speed;
    s.batches = {1};
    try {
      const auto r = speed(in.model, chip, in.plan, s);
      row.decode_tokens_per_s = r.points[0].decode_tokens_per_s;
      row.fits = r.points[0].fits;
    } catch (const InputError& e) {
      row.error = e.what();
    }
    d.field.push_back(std::move(row));
  }
  std::stable_sort(d.field.begin(), d.field.end(), [](const reports::FieldRow& a, const reports::FieldRow& b) {
    return (a.error.empty() ? a.decode_tokens_per_s : -1) > (b.error.empty() ? b.decode_tokens_per_s : -1);
  });
  load_validation(in.validation_file, d.validation, d.validation_notice);
  return d;
}

}  // namespace rooftop::cli
