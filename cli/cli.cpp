// cli::run: builds the CLI11 app from the registrars, parses, runs the action and maps errors to exit codes.
#include "cli/cli.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <unistd.h>

#include "base/suggest.h"
#include "base/files.h"

namespace rooftop::cli {

void add_output_options(CLI::App& cmd, OutputOptions& o, const std::vector<std::string>& formats) {
  cmd.add_option("--format", o.format, "output format")->check(CLI::IsMember(formats))->capture_default_str();
  cmd.add_option("-o,--output", o.output, "write to FILE (atomically) instead of stdout; - = stdout")
      ->check(CLI::Validator([](std::string& v) { return v.empty() ? std::string("expected a file name (or - for stdout)") : ""; }, "FILE"));
  cmd.add_flag("--explain", o.explain, "print the formulas, inputs and intermediate numbers");
}

CLI::Validator in_range(double lo, double hi) {
  auto show = [](double v) {
    char buf[32];
    if (v == std::floor(v) && std::fabs(v) < 1e16) std::snprintf(buf, sizeof buf, "%.0f", v);  // whole numbers in full
    else std::snprintf(buf, sizeof buf, "%.10g", v);
    return std::string(buf);
  };
  const std::string range = show(lo) + " to " + show(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size())
          return "'" + printable(text) + "' is not a number; expected " + range;
        if (!std::isfinite(v) || v < lo || v > hi) return printable(text) + " is out of range; expected " + range;
        return "";
      },
      "NUMBER in [" + range + "]");
}

CLI::Option* add_seed_option(CLI::App& cmd, uint64_t& seed, const std::string& help) {
  return cmd.add_option("--seed", seed, help)->capture_default_str()->check(in_range(0, 9007199254740991.0));
}

CLI::Option* add_seed_option(CLI::App& cmd, uint32_t& seed, const std::string& help) {
  return cmd.add_option("--seed", seed, help)->capture_default_str()->check(in_range(0, 4294967295.0));
}

CLI::Option* add_gguf_option(CLI::App& cmd, std::string& gguf) {
  return cmd.add_option("--gguf", gguf,
                        "model file, or smollm2 / gemma3 for the files scripts/setup.sh fetched (default: smollm2)");
}

CLI::Option* add_threads_option(CLI::App& cmd, int& threads, const std::string& what) {
  return cmd.add_option("--threads", threads, "worker threads" + (what.empty() ? "" : " " + what) + " (0 = every core)")
      ->capture_default_str()
      ->check(in_range(0, 1024));
}

void emit(Context& ctx, const OutputOptions& o, const std::string& text) {
  if (o.output.empty() || o.output == "-") {
    ctx.out << text;
    ctx.out.flush();
    return;
  }
  write_file_atomically(o.output, text);
}

// Messages may quote what the user typed (a 100 kB --model, say): one line, cut to this length.
constexpr size_t kMaxMessage = 400;

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  Context ctx{out, err, {}, {}, {}};
  CLI::App app{"rooftop: will a language model fit this hardware, how fast will it run, what will a million "
               "tokens cost; and proof by measurement.\nExample: rooftop fit --model llama-3.1-70b --hw h200 "
               "--precision fp8 --context 8192"};
  app.name("rooftop");
  app.set_version_flag("--version", std::string("rooftop ") + ROOFTOP_VERSION);
  app.require_subcommand(1);
  app.fallthrough();
  app.add_option("--hwdb", ctx.hwdb_dirs, "extra folder of chip cards (*.yaml)")->type_size(1)->expected(1);
  app.add_option("--models", ctx.models_dirs, "extra folder of model cards (*.yaml)")->type_size(1)->expected(1);
  for (auto reg : registrars()) reg(app, ctx);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    out << app.help();
    return kExitOk;
  } catch (const CLI::CallForAllHelp& e) {
    out << app.help("", CLI::AppFormatMode::All);
    return kExitOk;
  } catch (const CLI::CallForVersion& e) {
    out << std::string("rooftop ") + ROOFTOP_VERSION << "\n";
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help on a subcommand
      app.exit(e, out, err);
      return kExitOk;
    }
    err << "rooftop: " << printable(e.what(), kMaxMessage) << " (see rooftop --help)\n";
    return kExitBadInput;
  }
  try {
    if (!ctx.action) {
      err << "rooftop: no command given (see rooftop --help)\n";
      return kExitBadInput;
    }
    return ctx.action();
  } catch (const InputError& e) {
    err << "rooftop: " << printable(e.what(), kMaxMessage) << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    err << "rooftop: internal error: " << printable(e.what(), kMaxMessage) << "\n";
    return kExitInternal;
  }
}

}  // namespace rooftop::cli
