// The combined report: fit, speed sweep, roofline and the field of chips for one model on one chip, and its views.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzer/chip_spec.h"
#include "analyzer/memory.h"
#include "analyzer/model_spec.h"
#include "analyzer/roofline.h"
#include "analyzer/speed.h"
#include "reports/table.h"

namespace rooftop::reports {

// Page layout of the HTML report (the browser test reads charts at these pixel boxes, CSS px at zoom 1):
// a header of kHeaderPx, then one figure block of kFigurePx per chart, kFigureLeftPx from the left edge,
// each chart kChartWidthPx x kChartHeightPx at the top of its block.
inline constexpr int kHeaderPx = 120, kFigurePx = 540, kFigureLeftPx = 24, kChartWidthPx = 1000, kChartHeightPx = 520;
// How many figure blocks the page holds (memory, roofline, field, batch pair, KV vs context).
inline constexpr int kFigureCount = 5;

// One chip of the field: decode tok/s at batch 1 and whether the model fits, or why it could not be computed.
struct FieldRow {
  std::string hw, name;
  double decode_tokens_per_s = 0;
  bool fits = false;
  std::string error;
};

struct ReportData {
  ModelSpec model;
  ChipSpec chip;
  PrecisionPlan plan;
  FitResult fit;
  SpeedResult speed;               // at the requested batches
  SpeedResult sweep;               // batch 1, 2, 4 ... 4096 (the tok/s and $/Mtok curves)
  RooflineResult roof;
  std::vector<FieldRow> field;     // sorted by decode tok/s, fastest first
  nlohmann::json validation;       // the validate record when present and well formed, else null (cli/report_build.h)
  std::string validation_notice;   // one line when the record was damaged and skipped, else empty
};

// The charts as standalone SVG documents, each named ("memory", "roofline", "field", "batch-tokens",
// "batch-cost", "kv-context", and "law" when a validation record is shown), in page order.
std::vector<std::pair<std::string, std::string>> report_charts(const ReportData& d);
// Every figure's assumptions and sources: rows of (figure, value or statement, source).
std::vector<std::vector<std::string>> report_sources(const ReportData& d);

// "Validated on this machine": the bandwidth-law chart (measured decode tok/s against bytes per token,
// log-log, the law's line = bandwidth / bytes, points coloured by the analyzer's bound) and the summary line.
std::string validation_chart(const nlohmann::json& record);
std::string validation_summary(const nlohmann::json& record);

// The tables of every view (fit, speed, cost, roofline, field, calibration when measured), and the sources table.
std::vector<Table> report_tables(const ReportData& d);
Table report_sources_table(const ReportData& d);

std::string report_text(const ReportData& d);  // terminal: the tables as aligned text
std::string report_html(const ReportData& d);  // one self-contained page: inline CSS and SVG, no scripts, no links
// Markdown: the tables, with the charts referenced as `<svg_stem>-<name>.svg` (written by the caller).
std::string report_markdown(const ReportData& d, const std::string& svg_stem);
nlohmann::json report_json(const ReportData& d);

}  // namespace rooftop::reports
