// rooftop model list | model show ID|PATH: the model database, parameters derived by class.
#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "formats/formats.h"
#include "analyzer/params.h"
#include "reports/table.h"
#include "reports/units.h"

namespace rooftop::cli {

void register_model(CLI::App& app, Context& ctx) {
  auto out = std::make_shared<OutputOptions>();
  auto id = std::make_shared<std::string>();
  auto kv = std::make_shared<std::string>("bf16");
  auto* model = app.add_subcommand("model", "the model database: rooftop model list, rooftop model show deepseek-v3");
  model->require_subcommand(1);
  auto* list = model->add_subcommand("list", "every model card with derived parameter counts");
  add_output_options(*list, *out);
  auto* show = model->add_subcommand("show", "one model's architecture, parameters by class and KV per token\n"
                                             "Example: rooftop model show deepseek-v3 --format json");
  show->add_option("id", *id, "model id, config.json or .gguf")->required();
  show->add_option("--kv-precision", *kv, "KV cache format")->capture_default_str();
  add_output_options(*show, *out);
  list->callback([&ctx, out] {
    ctx.action = [&ctx, out] {
      const auto& db = model_database(ctx);
      nlohmann::json j = nlohmann::json::array();
      reports::Table t;
      t.title = "models (parameters derived from each architecture)";
      t.headers = {"id", "layers", "hidden", "heads/kv", "params", "active", "KV/token bf16"};
      for (const auto& m : db.models) {
        auto p = count_params(m);
        const double kvb = kv_bytes_per_token(m, find_format("bf16"));
        j.push_back({{"id", m.id}, {"name", m.name}, {"params_total", p.total}, {"params_active", p.active}, {"kv_bytes_per_token", kvb}});
        t.rows.push_back({m.id, std::to_string(m.layers), std::to_string(m.hidden), std::to_string(m.heads) + "/" + std::to_string(m.kv_heads),
                          reports::count(p.total), reports::count(p.active), reports::kib(kvb)});
      }
      emit(ctx, *out, out->format == "json" ? j.dump(2) + "\n" : reports::render({t}, out->format));
      return kExitOk;
    };
  });
  show->callback([&ctx, out, id, kv] {
    ctx.action = [&ctx, out, id, kv] {
      ModelSpec m = resolve_model(ctx, *id);
      const NumberFormat& kvf = find_format(*kv);
      auto p = count_params(m);
      const double kvb = kv_bytes_per_token(m, kvf);
      if (out->format == "json") {
        nlohmann::json by;
        for (int c = 0; c < kParamClassCount; ++c)
          if (p.by_class[c] > 0) by[param_class_name(static_cast<ParamClass>(c))] = p.by_class[c];
        nlohmann::json j{{"id", m.id}, {"name", m.name}, {"family", m.family}, {"vocab", m.vocab}, {"hidden", m.hidden}, {"layers", m.layers},
                         {"heads", m.heads}, {"kv_heads", m.kv_heads}, {"head_dim", m.head_dim}, {"ffn", m.ffn},
                         {"tied_embeddings", m.tied_embeddings}, {"max_context", m.max_context}, {"params_total", p.total},
                         {"params_active", p.active}, {"params_by_class", by}, {"kv_precision", kvf.name},
                         {"kv_bytes_per_token", kvb}, {"source", m.source}};
        if (m.moe) j["moe"] = {{"experts", m.moe->experts}, {"active_experts", m.moe->active_experts}, {"shared_experts", m.moe->shared_experts},
                               {"expert_ffn", m.moe->expert_ffn}, {"dense_layers", m.moe->dense_layers}};
        if (m.mla) j["mla"] = {{"kv_lora_rank", m.mla->kv_lora_rank}, {"q_lora_rank", m.mla->q_lora_rank},
                               {"qk_rope_head_dim", m.mla->qk_rope_head_dim}, {"qk_nope_head_dim", m.mla->qk_nope_head_dim}, {"v_head_dim", m.mla->v_head_dim}};
        j["attention_layers"] = attention_layers(m);
        if (m.sliding_window > 0)
          j["window"] = {{"tokens", m.sliding_window}, {"layers", m.sliding_window_layers}, {"chunked", m.chunked_window}};
        if (m.state)
          j["state"] = {{"kind", state_kind_name(m.state->kind)}, {"layers", m.state->layers}, {"parallel", m.state->parallel},
                        {"bytes_per_sequence", state_bytes_per_sequence(m)}};
        emit(ctx, *out, j.dump(2) + "\n");
        return kExitOk;
      }
      reports::Table t;
      t.title = m.id + (m.name.empty() ? "" : " (" + m.name + ")");
      t.headers = {"quantity", "value"};
      t.right_align = {false, true};
      t.rows.push_back({"layers", std::to_string(m.layers)});
      t.rows.push_back({"hidden", std::to_string(m.hidden)});
      t.rows.push_back({"heads / KV heads / head dim", std::to_string(m.heads) + " / " + std::to_string(m.kv_heads) + " / " + std::to_string(m.head_dim)});
      t.rows.push_back({"FFN", std::to_string(m.ffn)});
      t.rows.push_back({"vocab", std::to_string(m.vocab)});
      if (m.sliding_window > 0)
        t.rows.push_back({m.chunked_window ? "chunked attention" : "sliding window",
                          std::to_string(m.sliding_window) + " tokens on " + std::to_string(m.sliding_window_layers) + " of " +
                              std::to_string(attention_layers(m)) + " attention layers"});
      if (m.state) {
        t.rows.push_back({"state layers", std::to_string(m.state->layers) + " " + state_kind_name(m.state->kind) +
                                              (m.state->parallel ? " beside attention" : "") + "; " +
                                              std::to_string(attention_layers(m)) + " attention layers"});
        t.rows.push_back({"recurrent state per sequence", reports::bytes_exact(state_bytes_per_sequence(m)) + " (any context)"});
      }
      if (m.moe) t.rows.push_back({"experts", std::to_string(m.moe->active_experts) + " of " + std::to_string(m.moe->experts) + " active, " +
                                                  std::to_string(m.moe->shared_experts) + " shared"});
      t.rows.push_back({"parameters", reports::count(p.total) + " (" + reports::grouped(static_cast<long long>(p.total)) + ")"});
      t.rows.push_back({"active per token", reports::count(p.active)});
      for (int c = 0; c < kParamClassCount; ++c)
        if (p.by_class[c] > 0) t.rows.push_back({std::string("  ") + param_class_name(static_cast<ParamClass>(c)), reports::count(p.by_class[c])});
      t.rows.push_back({"KV per token (" + kvf.name + ")", reports::bytes_exact(kvb) + " = " + reports::kib(kvb)});
      if (!m.source.empty()) t.footnotes.push_back("source: " + m.source);
      emit(ctx, *out, reports::render({t}, out->format));
      return kExitOk;
    };
  });
}

}  // namespace rooftop::cli
