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

// The load of bench-serve and simulate: exactly one of --rate (each command declares it: one rate, or a list),
// --concurrency (a closed loop) or --trace. The defaults are each command's.
struct LoadCli {
  LoadCli(int64_t requests, int64_t prompt, int64_t output) : requests(requests), prompt(prompt), output(output) {}
  int64_t concurrency = 0, requests, prompt, output;
  uint64_t seed = 1;
  std::string trace;
  // The requests: the trace's, else `requests` Poisson arrivals at `rate` > 0, else a closed loop's (all at 0).
  std::vector<ServingRequest> requests_at(double rate) const;
};
struct LoadLimits {
  double concurrency, requests, tokens;  // the largest --concurrency, --requests and --prompt/--output-tokens
};
void add_load_options(CLI::App& cmd, LoadCli& l, const LoadLimits& most, const std::string& trace_help,
                      const std::string& seed_help);
// InputError unless exactly one load is given (--rate must be declared on `cmd`).
void check_one_load(const CLI::App& cmd, const LoadCli& l);

}  // namespace rooftop::cli
