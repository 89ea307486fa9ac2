// rooftop formats: every number format with its true bits per weight, block layout and family.
#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "formats/formats.h"
#include "analyzer/runtime.h"
#include "reports/table.h"
#include "reports/units.h"

namespace rooftop::cli {

void register_formats(CLI::App& app, Context& ctx) {
  auto out = std::make_shared<OutputOptions>();
  auto* cmd = app.add_subcommand("formats", "every weight and KV format: bits per weight, block layout, family, compute path\n"
                                            "Example: rooftop formats --format md");
  add_output_options(*cmd, *out);
  cmd->callback([&ctx, out] {
    ctx.action = [&ctx, out] {
      auto layout = [](const NumberFormat& f) {
        std::string s;
        if (!f.mix.empty())
          for (const auto& m : f.mix) s += (s.empty() ? "" : " + ") + reports::sig(100 * m.fraction, 3) + "% " + m.format;
        else
          for (const auto& b : f.layout) s += (s.empty() ? "" : ", ") + b.name;
        return s;
      };
      auto join = [](const std::vector<std::string>& v, const char* sep) {
        std::string s;
        for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
        return s;
      };
      if (out->format == "json") {
        nlohmann::json j = nlohmann::json::array();
        for (const auto& f : all_formats())
          j.push_back({{"name", f.name}, {"aliases", f.aliases}, {"bits_per_weight", f.bits_per_weight()},
                       {"block_values", f.block_values}, {"block_bits", f.mix.empty() ? nlohmann::json(f.block_bits()) : nlohmann::json()},
                       {"layout", layout(f)}, {"family", format_family_name(format_family(f.name))}, {"compute", f.compute},
                       {"kv_cache", f.kv_cache}, {"description", f.description},
                       {"ggml_type", f.ggml_type >= 0 ? nlohmann::json(f.ggml_type) : nlohmann::json()}});
        emit(ctx, *out, j.dump(2) + "\n");
        return kExitOk;
      }
      reports::Table t;
      t.title = "number formats: true storage cost from each block layout (bits per weight = block bits / values per block)";
      t.headers = {"format", "bits/weight", "block", "layout (or file mix)", "family", "compute (first the chip has)", "KV", "ggml type", "aliases"};
      for (const auto& f : all_formats())
        t.rows.push_back({f.name, reports::sig(f.bits_per_weight(), 4), f.mix.empty() ? std::to_string(f.block_values) : "mix",
                          layout(f), format_family_name(format_family(f.name)), join(f.compute, "/"), f.kv_cache ? "yes" : "",
                          f.ggml_type >= 0 ? std::to_string(f.ggml_type) + " (" + f.ggml_name() + ")" : "",
                          join(f.aliases, ", ")});
      t.footnotes.push_back("family: the kernels' code path runtime profiles key their fitted efficiencies on (hwdb/runtimes/)");
      t.footnotes.push_back("ggml type: the id and name GGUF stores the format as; its layout is checked against ggml's block "
                            "(formats/ggml_types.h)");
      emit(ctx, *out, reports::render({t}, out->format));
      return kExitOk;
    };
  });
}

}  // namespace rooftop::cli
