// bench-serve and validate --serving: the engine serving a load beside the simulator on the same requests.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "analyzer/serving.h"
#include "cli/cli.h"
#include "engine/serve.h"
#include "reports/table.h"

namespace rooftop::cli {

// The engine's steps of one kind (decodes alone, or mixed with prefill chunks), each priced by the simulator's
// StepCost at its own slices: where a percentile's error comes from.
struct StepCostCheck {
  int64_t steps = 0;
  double forward_s = 0;  // the engine's forward passes, summed
  double priced_s = 0;   // StepCost's price of the same steps
  double outside_s = 0;  // the rest of each step (scheduling, sampling), summed: the simulator has no such term
};

struct ServingComparison {
  std::string model_path;
  size_t requests = 0;
  engine::ServeLoadResult engine;          // the engine's own record
  SimulationResult measured, simulated;    // summarized the same way
  bool calibrated = false;                 // the simulation had this CPU's calibrated rates
  bool refreshed = false;                  // ... re-measured right after the engine's run (refreshed_for_model)
  std::string refresh_note;                // why re-measured figures were rejected
  StepCostCheck decode_steps, mixed_steps;
  std::vector<double> priced_s;            // StepCost's price of each of the engine's steps (engine.step_log)
};

// Serves `requests` with the engine on `gguf` (a --gguf argument), then simulates them on the calibrated "cpu" card
// with the same scheduler limits; with `refresh`, on its figures for the file's formats re-measured after the run.
ServingComparison bench_and_simulate(Context& ctx, const std::string& gguf, const std::vector<ServingRequest>& requests,
                                     const engine::ServeLoadOptions& so, int threads, bool refresh = false);
reports::Table serving_comparison_table(const std::string& title, const std::vector<std::string>& loads,
                                        const std::vector<ServingComparison>& runs);
nlohmann::json serving_comparison_json(const ServingComparison& c);

// rooftop validate --serving: SmolLM2-135M served at a light, a medium and a saturating Poisson rate (`requests`
// each), measured beside simulated; with `refresh`, each rate simulated on figures re-measured after its run.
// Returns the exit code.
int run_validate_serving(Context& ctx, const OutputOptions& out, int64_t requests, int threads, bool refresh);

// A trace: CSV with a header naming arrival_s, prompt_tokens and output_tokens (any order, other columns ignored);
// bad rows are InputError with file:line.
std::vector<ServingRequest> read_trace(const std::string& path);

}  // namespace rooftop::cli
