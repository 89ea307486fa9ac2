// rooftop synth: a llama GGUF of any dense model card's shape with random weights in a chosen format, and a
// real tokenizer: model files nobody tuned for, to time with `rooftop run` (or llama.cpp) against predictions.
#include <fmt/format.h>

#include "cli/common.h"
#include "base/suggest.h"
#include "analyzer/params.h"
#include "engine/gguf_write.h"
#include "engine/model_path.h"
#include "engine/synthetic.h"
#include "validate/local/decode.h"

namespace rooftop::cli {

void register_synth(CLI::App& app, Context& ctx) {
  struct Opts {
    std::string model, format = "q4_0", tokenizer, output;
    int64_t context = 4096;
    uint32_t seed = 1;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("synth", "write a llama GGUF of a model card's shape with random weights\n"
                                          "Example: rooftop synth --model smollm2-360m --format q4_k_m -o /tmp/360m-q4km.gguf");
  cmd->add_option("-m,--model", o->model, "a dense llama-style model id or config.json (see rooftop model list)")->required();
  cmd->add_option("--format", o->format,
                  "weight format: f32, f16, bf16, q4_0, q4_1, q5_0, q5_1, q8_0, q4_k, q5_k, q6_k, or q4_k_m (llama.cpp's "
                  "Q4_K_M recipe)")->capture_default_str();
  cmd->add_option("--tokenizer", o->tokenizer, "GGUF whose tokenizer (and vocabulary size) the file gets (default: the "
                                               "SmolLM2-135M file fetched by scripts/setup.sh)");
  cmd->add_option("--context", o->context, "trained context the file states")->capture_default_str()->check(in_range(16, 1 << 20));
  add_seed_option(*cmd, o->seed, "random seed of the weights");
  cmd->add_option("-o,--output", o->output, "the .gguf file to write")->required();
  cmd->callback([&ctx, o] {
    ctx.action = [&ctx, o] {
      ModelSpec m = resolve_model(ctx, o->model);
      const engine::GgufFile tok_file = engine::open_gguf(o->tokenizer.empty() ? engine::require_default_model() : o->tokenizer, false);
      const auto tokenizer = engine::tokenizer_metadata(tok_file);
      const auto tokens = tokenizer.find("tokenizer.ggml.tokens");
      if (tokens == tokenizer.end() || tokens->second.array_size() == 0)
        throw InputError(tok_file.path + " has no tokenizer.ggml.tokens list; expected a GGUF with a tokenizer");
      m.vocab = int64_t(tokens->second.array_size());  // the tokenizer sets the vocabulary (embedding rows)
      engine::LlamaConfig c = validate::llama_config(m, o->context);
      if (auto why = validate::decode_shape_problem(m, kernels::WeightFormat::f32); !why.empty()) throw InputError(why);
      engine::FormatRule rule;
      if (o->format == "q4_k_m") {
        rule = engine::q4_k_m_rule(c.layers, m.tied_embeddings);
      } else {
        kernels::WeightFormat f{};
        bool found = false;
        std::vector<std::string> names;
        for (const auto g : kernels::kWeightFormats) {
          names.push_back(kernels::format_name(g));
          if (o->format == names.back()) f = g, found = true;
        }
        names.push_back("q4_k_m");
        if (!found) throw InputError(unknown_id_message("--format", o->format, names));
        rule = [f](const std::string&, int64_t, int64_t) { return f; };
      }
      const engine::LlamaModel model = engine::synthetic_llama(c, rule, m.tied_embeddings, o->seed);
      engine::write_llama_gguf(o->output, model, tokenizer);
      ctx.out << fmt::format("wrote {}: {} ({} layers, width {}, {} heads / {} KV heads, FFN {}, vocabulary {}) in {}, "
                             "{:.1f} MB of weights\n",
                             o->output, m.id, c.layers, c.dim, c.heads, c.kv_heads, c.ffn_dim, c.vocab, o->format,
                             double(model.weights_bytes_per_step()) / 1e6);
      return kExitOk;
    };
  });
}

}  // namespace rooftop::cli
