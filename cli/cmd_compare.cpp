// rooftop compare: every chip's decode ceiling, fit and $/Mtok for one model (seed 002's "across the field").
#include <algorithm>

#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "base/limits.h"
#include "base/suggest.h"
#include "analyzer/speed.h"
#include "reports/speed_report.h"
#include "reports/table.h"
#include "reports/units.h"

namespace rooftop::cli {

void register_compare(CLI::App& app, Context& ctx) {
  struct Opts {
    ModelOptions m;
    OutputOptions out;
    int64_t batch = 1, context = 0, prompt = 1024, output = 256;
    bool simple = false, include_cpu = false;
    std::string hw_list;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("compare", "decode speed, fit and cost of one model on every chip, sorted\n"
                                            "Example: rooftop compare --model gpt-oss-120b --precision mxfp4");
  add_model_options(*cmd, o->m, false);
  cmd->add_option("-b,--batch", o->batch, "decode batch")->capture_default_str()->check(in_range(1, double(limits::kBatch)));
  cmd->add_option("-c,--context", o->context, "cached tokens at the decode step (default prompt + output / 2)")->check(in_range(1, double(limits::kContext)));
  cmd->add_option("--prompt-tokens", o->prompt, "prompt length")->capture_default_str()->check(in_range(1, double(limits::kContext)));
  cmd->add_option("--output-tokens", o->output, "output length")->capture_default_str()->check(in_range(1, double(limits::kContext)));
  cmd->add_flag("--simple", o->simple, "the seeds' model: weights only, datasheet figures at 100%");
  cmd->add_flag("--include-cpu", o->include_cpu, "add this machine's CPU");
  cmd->add_option("--hw", o->hw_list, "only these chips, a list (h100-sxm,mi300x,cpu; default: every card)");
  add_output_options(*cmd, o->out);
  cmd->callback([&ctx, o] {
    ctx.action = [&ctx, o] {
      const ModelSpec model = resolve_model(ctx, o->m.model);
      const PrecisionPlan plan = resolve_plan(o->m);
      const std::optional<RuntimeProfile> runtime = resolve_runtime(o->m);
      if (runtime && o->simple) throw InputError("--runtime and --simple do not go together: --simple is the seeds' model at 100% of the datasheet");
      struct Row {
        ChipSpec chip;
        SpeedResult r;
        std::string error;
      };
      std::vector<Row> rows;
      std::vector<ChipSpec> chips;
      if (o->hw_list.empty()) chips = hw_database(ctx).chips;
      else
        for (const auto& id : parse_id_list("hw", o->hw_list)) chips.push_back(resolve_chip(ctx, id));
      if (o->include_cpu) chips.push_back(resolve_chip(ctx, "cpu"));
      for (const auto& chip : chips) {
        SpeedOptions s;
        s.batches = {o->batch};
        s.prompt_tokens = o->prompt;
        s.output_tokens = o->output;
        if (o->context > 0) s.context = o->context;
        s.simple = o->simple;
        s.runtime = runtime;
        Row row{chip, {}, ""};
        try {
          row.r = speed(model, chip, plan, s);
        } catch (const InputError& e) {
          row.error = e.what();
        }
        rows.push_back(std::move(row));
      }
      std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
        const double x = a.error.empty() ? a.r.points[0].decode_tokens_per_s : -1;
        const double y = b.error.empty() ? b.r.points[0].decode_tokens_per_s : -1;
        return x > y;
      });
      if (o->out.format == "json") {
        nlohmann::json j;
        j["model"] = model.id;
        j["precision"] = plan.weights;
        j["batch"] = o->batch;
        j["chips"] = nlohmann::json::array();
        for (const auto& row : rows) {
          nlohmann::json c{{"hw", row.chip.id}, {"name", row.chip.name}};
          if (!row.error.empty()) {
            c["error"] = row.error;
          } else {
            const auto& p = row.r.points[0];
            c["fits"] = p.fits;
            c["compute_format"] = row.r.compute_format;
            c["weights_only_tokens_per_s"] = p.weights_only_tokens_per_s;
            c["decode_tokens_per_s"] = p.decode_tokens_per_s;
            c["runtime"] = row.r.runtime;
            const auto& band = o->batch == 1 ? row.r.decode_band : row.r.batched_band;
            c["typical_measured_tokens_per_s"] = band ? nlohmann::json(reports::expected_range(p.decode_tokens_per_s, band)) : nlohmann::json();
            c["ttft_s"] = p.ttft_s;
            c["bound"] = p.bound;
            c["usd_per_mtok_output"] = row.r.has_price ? nlohmann::json(p.usd_per_mtok_output) : nlohmann::json(nullptr);
            c["joules_per_token"] = row.r.has_power ? nlohmann::json(p.joules_per_token) : nlohmann::json(nullptr);
          }
          j["chips"].push_back(c);
        }
        emit(ctx, o->out, j.dump(2) + "\n");
        return kExitOk;
      }
      reports::Table t;
      t.title = "compare: " + model.id + ", weights " + plan.weights + ", batch " + std::to_string(o->batch) +
                (o->simple ? " (the seeds' model)" : "");
      t.headers = {"chip", "memory", "bandwidth", "fits", "law ceiling tok/s", "modeled tok/s", "TTFT", "$/Mtok out", "J/token"};
      if (runtime) t.headers.insert(t.headers.begin() + 6, "typical measured tok/s");
      for (const auto& row : rows) {
        if (!row.error.empty()) {
          t.rows.push_back({row.chip.id, reports::bytes(row.chip.memory_bytes), reports::rate_bytes(row.chip.memory_bandwidth_bytes_per_s),
                            "n/a", "n/a", "n/a", "n/a", "n/a", row.error});
          if (runtime) t.rows.back().insert(t.rows.back().begin() + 6, "n/a");
          continue;
        }
        const auto& p = row.r.points[0];
        t.rows.push_back({row.chip.id, reports::bytes(row.chip.memory_bytes), reports::rate_bytes(row.chip.memory_bandwidth_bytes_per_s),
                          p.fits ? "yes" : "NO (won't load)", reports::sig(p.weights_only_tokens_per_s), reports::sig(p.decode_tokens_per_s),
                          reports::seconds(p.ttft_s), row.r.has_price ? reports::usd(p.usd_per_mtok_output) : "n/a",
                          row.r.has_power ? reports::sig(p.joules_per_token) : "n/a"});
        if (runtime)
          t.rows.back().insert(t.rows.back().begin() + 6,
                               reports::expected_range(p.decode_tokens_per_s, o->batch == 1 ? row.r.decode_band : row.r.batched_band));
      }
      if (runtime)
        t.footnotes.push_back("runtime profile " + runtime->id + " (hwdb/runtimes/" + runtime->id + ".yaml); typical measured = the "
                              "prediction under the profile's held-out error band on that chip's architecture (- : no band; "
                              "also where the profile's fit has no record of the chip's vendor, whose backend differs)");
      if (runtime)
        for (const auto& note : runtime->notes) t.footnotes.push_back("runtime " + runtime->id + ": " + note);
      t.footnotes.push_back("law ceiling = bandwidth / weight bytes read per token (seed 002); modeled adds KV reads, efficiency and compute");
      t.footnotes.push_back("chips marked NO cannot hold the weights, KV and overhead: their speeds are what they would reach if it fit");
      t.footnotes.push_back("prices are the cards' illustrative rental rates; see rooftop hw show ID for sources");
      emit(ctx, o->out, reports::render({t}, o->out.format));
      return kExitOk;
    };
  });
}

}  // namespace rooftop::cli
