// The combined report's record, assembled: the analyzer run for every part (fit, speed at the requested batches
// and a batch sweep, roofline, the field of chips) and this machine's validate record read from the cache folder.
// reports/ renders the record; it neither reads files nor runs the analyzer.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzer/chip_spec.h"
#include "analyzer/memory.h"
#include "analyzer/model_spec.h"
#include "analyzer/speed.h"
#include "reports/report.h"

namespace rooftop::cli {

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

// Runs the analyzer for every part of the report (InputError on bad input) and reads the validation record.
reports::ReportData build_report(const ReportInputs& in);

// Reads and checks a validate record (points with bytes_per_token, measured_tokens_per_s, bound; the chip's
// bandwidth; summary_line). A missing file leaves both empty; a damaged one sets only `notice` (one line).
void load_validation(const std::string& path, nlohmann::json& record, std::string& notice);

}  // namespace rooftop::cli
