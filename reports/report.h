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

struct ReportInputs {
  ModelSpec model;
  ChipSpec chip;
  PrecisionPlan plan;
  FitOptions fit;                  // context, batch
  SpeedOptions speed;              // batches of the speed/cost tables, prompt and output lengths
  std::vector<ChipSpec> field;     // every chip to compare against (the database)
  // This machine's `rooftop validate` record (JSON) to show, when the file exists; empty: none (other chips).
  std::string validation_file;
};

// Where `rooftop validate` keeps this machine's latest CPU record inside the cache folder (hwdb::cache_dir()).
inline std::string validation_path(const std::string& cache_dir) { return cache_dir + "/validation/local.json"; }

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
  nlohmann::json validation;       // the validate record when present and well formed, else null
  std::string validation_notice;   // one line when the record was damaged and skipped, else empty
};

// Runs the analyzer for every part of the report (pure arithmetic; InputError on bad input).
ReportData build_report(const ReportInputs& in);

// The charts as standalone SVG documents, each named ("memory", "roofline", "field", "batch-tokens",
// "batch-cost", "kv-context", and "law" when a validation record is shown), in page order.
std::vector<std::pair<std::string, std::string>> report_charts(const ReportData& d);
// Every figure's assumptions and sources: rows of (figure, value or statement, source).
std::vector<std::vector<std::string>> report_sources(const ReportData& d);

// Reads and checks a validate record (points with bytes_per_token, measured_tokens_per_s, bound; the chip's
// bandwidth; summary_line). A missing file leaves both empty; a damaged one sets only `notice` (one line).
void load_validation(const std::string& path, nlohmann::json& record, std::string& notice);
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
