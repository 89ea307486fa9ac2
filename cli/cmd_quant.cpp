// rooftop quant: quantization error of a GGUF file's weights re-quantized into each format (seed 002's
// per-tensor against per-block scales), beside each format's bits per weight.
#include <nlohmann/json.hpp>

#include "analyzer/errors.h"
#include "cli/common.h"
#include "engine/model_path.h"
#include "engine/quant_error.h"
#include "reports/table.h"
#include "reports/units.h"

namespace rooftop::cli {

void register_quant(CLI::App& app, Context& ctx) {
  struct QuantCli {
    std::string gguf = "smollm2";
    int64_t max_values = 1 << 20;
    bool per_tensor = false;
    OutputOptions out;
  };
  auto o = std::make_shared<QuantCli>();
  auto* cmd = app.add_subcommand("quant",
                                 "quantization error on real weights: each 2-D tensor of a GGUF re-quantized into per-tensor int8 "
                                 "and the block formats (RMSE, max error, SNR, the share caused by the largest 0.1%)\n"
                                 "Example: rooftop quant --gguf smollm2");
  cmd->add_option("--gguf", o->gguf, "a GGUF file, or smollm2 / gemma3 (the set-up's files)")->capture_default_str();
  cmd->add_option("--max-values", o->max_values, "values measured per tensor (rows sampled evenly)")->capture_default_str()->check(in_range(256, 1e9));
  cmd->add_flag("--per-tensor", o->per_tensor, "one row per tensor and format");
  add_output_options(*cmd, o->out);
  cmd->callback([&ctx, o] {
    ctx.action = [&ctx, o] {
      const std::string path = engine::resolve_model(o->gguf);
      const engine::GgufFile f = engine::open_gguf(path, /*map_data=*/true);
      const engine::FileQuantError r = engine::file_quant_error(f, o->max_values);
      if (r.tensors.empty()) throw InputError(path + ": no 2-D tensor in a readable format with rows of a multiple of 32 values");
      auto row_json = [](const engine::QuantError& e) {
        return nlohmann::json{{"format", e.format}, {"bits_per_weight", e.bits_per_weight}, {"values", e.values}, {"rmse", e.rmse},
                              {"max_abs_error", e.max_abs_error}, {"snr_db", e.snr_db}, {"outlier_share", e.outlier_share}};
      };
      if (o->out.format == "json") {
        nlohmann::json j{{"file", path}, {"tensors_measured", r.tensors.size()}, {"tensors_skipped", r.tensors_skipped}};
        for (const auto& e : r.overall) j["overall"].push_back(row_json(e));
        if (o->per_tensor)
          for (const auto& t : r.tensors) {
            nlohmann::json tj{{"name", t.name}, {"file_type", t.file_type}, {"rows", t.rows}, {"k", t.k}};
            for (const auto& e : t.by_format) tj["formats"].push_back(row_json(e));
            j["tensors"].push_back(tj);
          }
        emit(ctx, o->out, j.dump(2) + "\n");
        return kExitOk;
      }
      reports::Table t;
      t.title = "quant: " + path + " (" + std::to_string(r.tensors.size()) + " tensors measured, against the file's own values)";
      t.headers = {"format", "bits/weight", "values", "RMSE", "max |error|", "SNR", "error share of the largest 0.1%"};
      auto add = [&](const std::string& label, const engine::QuantError& e) {
        if (e.values <= 0) return;  // a k-quant on rows that are not a multiple of 256
        t.rows.push_back({label, reports::sig(e.bits_per_weight), reports::count(e.values), reports::sig(e.rmse), reports::sig(e.max_abs_error),
                          reports::sig(e.snr_db) + " dB", reports::sig(100 * e.outlier_share) + "%"});
      };
      for (const auto& e : r.overall) add(e.format, e);
      if (o->per_tensor)
        for (const auto& te : r.tensors)
          for (const auto& e : te.by_format) add(te.name + " " + e.format, e);
      t.footnotes.push_back("each tensor's own values (the file's format dequantized) re-quantized and dequantized; int8-tensor: one "
                            "symmetric scale per tensor; the others GGUF's per-block scales (seed 002)");
      t.footnotes.push_back("error share of the largest 0.1%: how much of the other weights' squared error goes away when the "
                            "largest 0.1% by magnitude are left out of the scales");
      if (r.tensors_skipped > 0)
        t.footnotes.push_back(std::to_string(r.tensors_skipped) + " tensors skipped (1-D, another type, or rows not a multiple of 32 values); the k-quants (256-value blocks) measure only rows of a multiple of 256");
      emit(ctx, o->out, reports::render({t}, o->out.format));
      return kExitOk;
    };
  });
}

}  // namespace rooftop::cli
