// Predictions of published records (validate/published/) under a runtime profile, and the fit of the
// profiles' terms to them with leave-one-source-out cross-validation.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/runtime.h"
#include "hwdb/hwdb.h"
#include "models/models.h"
#include "validate/published.h"

namespace rooftop::validate {

// What one record needs, built once per (record, profile): the passes the metric is made of. Building
// uses only the profile's stated terms (prefill chunk, max batch, memory fraction, MoE skew), so the
// fitted terms can be varied by evaluating the same passes again.
struct RecordCase {
  int record = 0;                 // index into the dataset's records
  std::string runtime;            // the profile's id
  std::string arch, family;       // the chip's architecture, the weights' format family
  std::string metric;             // the record's metric (published_metrics())
  std::string metric_class;       // decode (batch-1 tg/tpot), batched, prefill (pp), ttft, end_to_end
  const ChipSpec* chip = nullptr;
  double link_bytes_per_s = 0;    // per direction (0: one device)
  bool scaleup_link = true;       // the link is the scale-up fabric (else the scale-out link: PCIe or a NIC)
  double batch = 1, prompt = 0, output = 0;   // batch: sequences running at once (the passes are built for it)
  double concurrency = 1;                     // sequences in flight (stated); above `batch` the rest wait in a queue
  double request_rate = 0;        // requests/s offered (0: as fast as it can)
  double replicas = 1;            // copies of the tp x pp group (hw_count / (tp x pp)): throughput scales with them
  bool client = false;            // measured by a client of a server: its times carry the server's delay
  std::vector<CompactPass> window;  // decode steps at the window's start, middle and end (Simpson: 1, 4, 1)
  std::vector<CompactPass> prefill_one, prefill_batch;  // one prompt; the batch's prompts (chunked)
  // TTFT in a closed loop of fixed-length requests: the prompts that arrive together (those whose requests ended in
  // the same step) and fit one step's token budget are prefilled in one step, and each waits for all of it.
  std::vector<CompactPass> prefill_group;
  double group = 1;               // prompts prefilled in that step
};

struct Skipped {
  int record = 0;
  std::string reason;
};

struct CaseSet {
  std::vector<RecordCase> cases;
  std::vector<Skipped> skipped;
};

// The model card a record names (its id, or a printed name with the same architecture), or nullopt.
std::optional<std::string> model_card_id(const std::string& printed, const models::Database& models);
// The format table's name for a record's weights string (q4_k_m, fp8, mlx-4bit ...), or nullopt.
std::optional<std::string> weight_format_of(const std::string& printed);

// The profile of `profiles` with this id (the first, generic, when none has it).
const RuntimeProfile& profile_by_id(const std::vector<RuntimeProfile>& profiles, const std::string& id);

// Profile predicting a source's records: the profile whose `engines` lists its engine and whose release range
// covers its build (RuntimeProfile::covers_build), else "generic".
std::string runtime_for_engine(const PublishedSource& source, const std::vector<RuntimeProfile>& profiles);

// Builds the cases of every record (or those of `only_hw`) under `profile_of(record)`; the records the
// analyzer cannot express are returned as skipped with the reason.
// `forced_runtime` (an id of `profiles`): every record under that profile instead of its engine's.
CaseSet build_cases(const PublishedDataset& data, const std::vector<RuntimeProfile>& profiles,
                    const hwdb::Database& chips, const models::Database& models,
                    const std::string& forced_runtime = "", const std::string& only_hw = "");

// The record's metric predicted from its passes under the resolved rates.
double predict_case(const RecordCase& c, const RuntimeRates& r);
double predict_case(const RecordCase& c, const RuntimeProfile& p);

}  // namespace rooftop::validate
