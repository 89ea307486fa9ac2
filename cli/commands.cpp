// The list of commands: each cmd_<name>.cpp defines one registrar, listed here once.
#include "cli/cli.h"

namespace rooftop::cli {

// One line per command file (add yours here).
void register_fit(CLI::App&, Context&);
void register_speed(CLI::App&, Context&);
void register_cost(CLI::App&, Context&);
void register_roofline(CLI::App&, Context&);
void register_compare(CLI::App&, Context&);
void register_hw(CLI::App&, Context&);
void register_model(CLI::App&, Context&);
void register_tokenize(CLI::App&, Context&);
void register_run(CLI::App&, Context&);
void register_synth(CLI::App&, Context&);
void register_calibrate(CLI::App&, Context&);
void register_report(CLI::App&, Context&);
void register_validate(CLI::App&, Context&);
void register_formats(CLI::App&, Context&);
void register_simulate(CLI::App&, Context&);
void register_plan(CLI::App&, Context&);
void register_bench_serve(CLI::App&, Context&);
void register_serve(CLI::App&, Context&);
void register_quant(CLI::App&, Context&);

const std::vector<Registrar>& registrars() {
  static const std::vector<Registrar> list = {
      register_fit,
      register_speed,
      register_cost,
      register_roofline,
      register_compare,
      register_hw,
      register_model,
      register_tokenize,
      register_run,
      register_synth,
      register_calibrate,
      register_report,
      register_validate,
      register_formats,
      register_simulate,
      register_plan,
      register_bench_serve,
      register_serve,
      register_quant,
  };
  return list;
}

}  // namespace rooftop::cli
