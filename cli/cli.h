// The CLI's shared pieces: command registration, common options, output writing, exit codes.
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace rooftop::cli {

// Exit codes (DESIGN.md): 0 success, 2 bad input, 1 internal failure.
inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitBadInput = 2;

// State shared by every command: the streams, the database folders and the chosen action.
struct Context {
  std::ostream& out;
  std::ostream& err;
  std::vector<std::string> hwdb_dirs;    // --hwdb DIR (repeatable)
  std::vector<std::string> models_dirs;  // --models DIR (repeatable)
  std::function<int()> action;           // set by the subcommand that was parsed
};

// A numeric option's range, checked on its text before conversion: text that is not a number, NaN,
// infinities and values outside [lo, hi] are bad input at parse time ("--acceptance: 1.5 is out of
// range; expected 0 to 1"). Every numeric option of every command declares one.
CLI::Validator in_range(double lo, double hi);

// --seed: a whole number from 0 to 2^53 - 1 (the largest range in which the range check's double holds every
// integer exactly), or to 2^32 - 1 for a 32-bit seed. "-1", "", "1.5" and overflowing text are bad input, not a
// wrapped or defaulted seed.
CLI::Option* add_seed_option(CLI::App& cmd, uint64_t& seed, const std::string& help);
CLI::Option* add_seed_option(CLI::App& cmd, uint32_t& seed, const std::string& help);
// --gguf: a model file, or the names of the files scripts/setup.sh fetched (engine::resolve_model).
CLI::Option* add_gguf_option(CLI::App& cmd, std::string& gguf);
// --threads: worker threads of the kernels, 0 = every core; `what` adds what they run, e.g. "for --end-to-end".
CLI::Option* add_threads_option(CLI::App& cmd, int& threads, const std::string& what = "");

// Output options that most commands share.
struct OutputOptions {
  std::string format = "table";  // table|json|md|csv (+ html for report)
  std::string output;            // -o FILE ("" = stdout)
  bool explain = false;
};
void add_output_options(CLI::App& cmd, OutputOptions& o, const std::vector<std::string>& formats = {"table", "json", "md", "csv"});

// Write `text` to o.output atomically (temp file in the same folder, then rename) or to ctx.out.
void emit(Context& ctx, const OutputOptions& o, const std::string& text);

// Every command file defines one registrar; commands.cpp lists them.
using Registrar = void (*)(CLI::App& app, Context& ctx);
const std::vector<Registrar>& registrars();

// Parse and run: returns the exit code. Errors print one line on ctx.err.
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace rooftop::cli
