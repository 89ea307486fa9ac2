// rooftop quant: quantization error of a GGUF file's weights re-quantized into each format (seed 002's
// per-tensor against per-block scales), beside each format's bits per weight.
#include <nlohmann/json.hpp>

#include "analyzer/embedded_file.h"
#include "base/suggest.h"
#include "cli/common.h"
#include "engine/forward.h"
#include "engine/model_path.h"
#include "engine/tokenizer.h"
#include "kernels/cpu/thread_pool.h"
#include "engine/quant_error.h"
#include "reports/html.h"
#include "reports/svg.h"
#include "reports/table.h"
#include "reports/units.h"

#include <algorithm>
#include <chrono>
#include <tuple>

namespace rooftop {
extern const EmbeddedFile embedded_text[];
extern const std::size_t embedded_text_count;
}  // namespace rooftop

namespace rooftop::cli {
namespace {

// The project's fixed English paragraph (tests/data/perplexity_paragraph.txt, embedded).
std::string paragraph() {
  for (std::size_t i = 0; i < embedded_text_count; ++i)
    if (embedded_text[i].name == "perplexity_paragraph.txt") return std::string(embedded_text[i].content);
  throw InternalError("the embedded perplexity paragraph is missing");
}

struct EndToEnd {
  std::string format;
  double weight_bytes = 0, perplexity = 0, agreement = 0, decode_tok_s = 0;
  int64_t kept = 0;
};

// Perplexity on the paragraph, top-1 agreement with the file's own model at every position, decode tok/s
// (median of 3 runs of 16 steps after the paragraph).
std::vector<EndToEnd> end_to_end(const std::string& path, int threads) {
  kernels::ThreadPool pool(threads);
  const engine::LlamaModel original = engine::load_llama(path);
  const engine::Tokenizer tok = engine::Tokenizer::from_gguf(original.file);
  const std::vector<int32_t> ids = tok.prompt_ids(paragraph(), false);
  const int64_t V = original.cfg.vocab;
  std::vector<int32_t> reference_top1;
  std::vector<EndToEnd> out;
  const std::vector<std::pair<std::string, kernels::WeightFormat>> formats = {
      {"file", original.token_embd.format}, {"q8_0", kernels::WeightFormat::q8_0}, {"q6_k", kernels::WeightFormat::q6_k},
      {"q5_0", kernels::WeightFormat::q5_0}, {"q4_k", kernels::WeightFormat::q4_k}, {"q4_1", kernels::WeightFormat::q4_1},
      {"q4_0", kernels::WeightFormat::q4_0}};
  for (const auto& [name, f] : formats) {
    EndToEnd e;
    e.format = name;
    const engine::LlamaModel m = name == "file" ? engine::load_llama(path) : engine::requantized(engine::load_llama(path), f, &e.kept);
    e.weight_bytes = static_cast<double>(m.weights_bytes_per_step());
    engine::Forward fw(m, static_cast<int64_t>(ids.size()) + 64, pool);
    const auto logits = fw.prefill(ids, /*all_logits=*/true);
    e.perplexity = engine::perplexity(logits, ids, V);
    std::vector<int32_t> top1(ids.size());
    for (size_t i = 0; i < ids.size(); ++i) {
      const float* row = logits.data() + static_cast<int64_t>(i) * V;
      top1[i] = static_cast<int32_t>(std::max_element(row, row + V) - row);
    }
    if (reference_top1.empty()) reference_top1 = top1;
    size_t same = 0;
    for (size_t i = 0; i < ids.size(); ++i) same += top1[i] == reference_top1[i];
    e.agreement = static_cast<double>(same) / static_cast<double>(ids.size());
    std::vector<double> rates;
    for (int run = 0; run < 3; ++run) {
      fw.rewind(static_cast<int64_t>(ids.size()));
      const auto t0 = std::chrono::steady_clock::now();
      int32_t next = top1.back();
      for (int s = 0; s < 16; ++s) {
        const auto l = fw.decode(next);
        next = static_cast<int32_t>(std::max_element(l.begin(), l.end()) - l.begin());
      }
      rates.push_back(16.0 / std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(rates.begin(), rates.end());
    e.decode_tok_s = rates[1];
    out.push_back(e);
  }
  return out;
}

// A labelled point per format: x against y.
reports::svg::LineChart labelled(const std::string& title, const std::string& x, const std::string& y,
                                 const std::vector<std::tuple<std::string, double, double>>& points) {
  reports::svg::LineChart c;
  c.title = title;
  c.x = {x, false, {}, {}};
  c.y = {y, false, {}, {}};
  reports::svg::Series s{"formats", "#1f77b4", {}, false, true};
  for (const auto& [name, px, py] : points) {
    s.points.push_back({px, py});
    c.labels.push_back({px, py, name, "#1f77b4", false});
  }
  c.series = {s};
  return c;
}

// Bits per weight against quality (SNR) for the tensors; with --end-to-end, weights read per token against
// perplexity and against decode speed.
std::vector<std::string> quant_charts(const engine::FileQuantError& r, const std::vector<EndToEnd>& e2e) {
  std::vector<std::tuple<std::string, double, double>> snr;
  for (const auto& e : r.overall)
    if (e.values > 0 && e.snr_db < 300) snr.emplace_back(e.format, e.bits_per_weight, e.snr_db);
  std::vector<std::string> out = {reports::svg::render(labelled("Quality against bits per weight (the file's tensors re-quantized)",
                                                                "bits per weight", "SNR (dB)", snr))};
  if (!e2e.empty()) {
    std::vector<std::tuple<std::string, double, double>> ppl, speed;
    for (const auto& e : e2e) {
      ppl.emplace_back(e.format, e.weight_bytes / 1e6, e.perplexity);
      speed.emplace_back(e.format, e.weight_bytes / 1e6, e.decode_tok_s);
    }
    out.push_back(reports::svg::render(labelled("Perplexity against weights read per token", "MB per token", "perplexity", ppl)));
    out.push_back(reports::svg::render(labelled("Decode speed on this machine against weights read per token", "MB per token",
                                                "tokens per second", speed)));
  }
  return out;
}

}  // namespace

void register_quant(CLI::App& app, Context& ctx) {
  struct QuantCli {
    std::string gguf = "smollm2";
    int64_t max_values = 1 << 20;
    bool per_tensor = false, end_to_end = false;
    int threads = 0;
    OutputOptions out;
  };
  auto o = std::make_shared<QuantCli>();
  auto* cmd = app.add_subcommand("quant",
                                 "quantization error on real weights: each 2-D tensor of a GGUF re-quantized into per-tensor int8 "
                                 "and the block formats (RMSE, max error, SNR, the share caused by the largest 0.1%)\n"
                                 "Example: rooftop quant --gguf smollm2");
  add_gguf_option(*cmd, o->gguf);
  cmd->add_option("--max-values", o->max_values, "values measured per tensor (rows sampled evenly)")->capture_default_str()->check(in_range(256, 1e9));
  cmd->add_flag("--per-tensor", o->per_tensor, "one row per tensor and format");
  cmd->add_flag("--end-to-end", o->end_to_end, "also run the model re-quantized into each format: perplexity on a fixed paragraph, "
                                               "top-1 agreement with the file's model, decode tok/s (llama and gemma3 files)");
  add_threads_option(*cmd, o->threads, "for --end-to-end");
  add_output_options(*cmd, o->out, {"table", "json", "md", "csv", "html"});
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
      std::vector<EndToEnd> e2e;
      if (o->end_to_end) {
        check_threads(o->threads);
        e2e = end_to_end(path, o->threads);
      }
      if (o->out.format == "json") {
        nlohmann::json j{{"file", path}, {"tensors_measured", r.tensors.size()}, {"tensors_skipped", r.tensors_skipped}};
        for (const auto& e : e2e)
          j["end_to_end"].push_back({{"format", e.format}, {"weight_bytes", e.weight_bytes}, {"perplexity", e.perplexity},
                                     {"top1_agreement", e.agreement}, {"decode_tokens_per_s", e.decode_tok_s}, {"matrices_kept", e.kept}});
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
      std::vector<reports::Table> tables = {t};
      if (!e2e.empty()) {
        reports::Table x;
        x.title = "end to end: the model re-quantized (from the file's values) into each format, on a fixed paragraph";
        x.headers = {"format", "weights read per token", "perplexity", "top-1 agreement", "decode tok/s", "matrices kept"};
        for (const auto& e : e2e)
          x.rows.push_back({e.format, reports::bytes(e.weight_bytes), reports::sig(e.perplexity), reports::sig(100 * e.agreement) + "%",
                            reports::sig(e.decode_tok_s), std::to_string(e.kept)});
        x.footnotes.push_back("top-1 agreement: positions where the argmax equals the file's own model's; decode tok/s: median of 3 runs "
                              "of 16 steps on this machine (noisy: compare within one run)");
        x.footnotes.push_back("matrices kept: in the file's format, because the format's blocks do not divide their width (or it is the same)");
        tables.push_back(x);
      }
      if (o->out.format == "html") {
        emit(ctx, o->out, reports::simple_page(t.title, quant_charts(r, e2e), tables));
        return kExitOk;
      }
      emit(ctx, o->out, reports::render(tables, o->out.format));
      return kExitOk;
    };
  });
}

}  // namespace rooftop::cli
