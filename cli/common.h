// Options shared by the analyzer commands (--model, --hw, --precision ...) and how they are resolved.
#pragma once
#include <string>
#include <vector>

#include "analyzer/chip_spec.h"
#include "cli/cli.h"
#include "analyzer/memory.h"
#include "analyzer/runtime.h"
#include <optional>
#include "analyzer/model_spec.h"
#include "hwdb/hwdb.h"
#include "models/models.h"

namespace rooftop::cli {

struct ModelOptions {
  std::string model;
  std::string hw = "h100-sxm";
  std::string precision = "bf16";
  bool precision_given = false;              // --precision was on the command line (a .gguf's own formats otherwise)
  std::string kv_precision = "bf16";
  std::vector<std::string> class_precision;  // CLASS=FMT, e.g. experts=mxfp4
  std::string runtime;                       // --runtime: an engine's profile (hwdb/runtimes/), "" = generic/calibrated
};
void add_model_options(CLI::App& cmd, ModelOptions& o, bool with_hw = true, bool with_runtime = true, bool model_required = true);

const hwdb::Database& hw_database(const Context& ctx);
const models::Database& model_database(const Context& ctx);
ModelSpec resolve_model(const Context& ctx, const std::string& id_or_path);
ChipSpec resolve_chip(const Context& ctx, const std::string& id);
PrecisionPlan resolve_plan(const ModelOptions& o);
// The --runtime profile, or nullopt when none was asked for. Unknown id: InputError listing the valid ids.
std::optional<RuntimeProfile> resolve_runtime(const ModelOptions& o);

// --threads: 0 (every CPU) to 1024 (the ThreadPool starts that many OS threads); InputError otherwise.
void check_threads(int threads);

// --device: "cpu" -> -1, "cuda:N" -> N; anything else is InputError.
int parse_device(const std::string& d);

// rooftop validate --published (cmd_validate_published.cpp).
struct PublishedOptions {
  OutputOptions out;
  std::string runtime;         // every record under this profile ("" = its engine's)
  std::string hw;              // one chip's records ("" = all)
  bool fit = false;            // refit the profiles, leave-one-source-out
  std::string write_runtimes;  // with fit: write the fitted cards into this folder
  std::vector<std::string> dirs;  // --published-dir: more sources (*.yaml in the dataset's schema)
  bool only_dirs = false;         // --held-out: those sources alone, predicted by the embedded (fitted) profiles
};
int run_validate_published(Context& ctx, const PublishedOptions& o);

// Parse "1,8,64" into positive integers (InputError on anything else).
std::vector<int64_t> parse_list(const std::string& name, const std::string& text, int64_t max);
// "a,b,c" -> {a, b, c}; an empty list or item is bad input naming --NAME.
std::vector<std::string> parse_id_list(const std::string& name, const std::string& text);

}  // namespace rooftop::cli
