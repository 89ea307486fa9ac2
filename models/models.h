// The model database: embedded model cards, user cards from --models DIR, HF config.json and GGUF headers.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/memory.h"
#include "analyzer/model_spec.h"

namespace rooftop::engine {
struct GgufFile;
}

namespace rooftop::models {

struct Database {
  std::vector<ModelSpec> models;
  const ModelSpec* find(std::string_view id) const;
  std::vector<std::string> ids() const;
};

// Embedded cards plus every *.yaml in each extra directory. Throws InputError naming file:model:key.
Database load(const std::vector<std::string>& extra_dirs = {});

// Parse one card; `file` names the source in error messages. Unknown or duplicate keys are errors.
ModelSpec parse_card(std::string_view yaml_text, const std::string& file);

// A Hugging Face config.json (llama, mistral, qwen2, qwen3, qwen3_moe, mixtral, gemma3_text,
// gpt_oss, deepseek_v3 ...). Throws InputError naming the file and the missing/invalid key.
ModelSpec from_hf_config(const std::string& path);

// A GGUF file's metadata only (never its tensor data): sized in milliseconds whatever the file size.
ModelSpec from_gguf(const std::string& path);
// The same from a parsed header (the fuzz target parses bytes in memory).
ModelSpec from_gguf(const engine::GgufFile& f);
// A GGUF file's own weights as a precision plan: each class's exact bytes from the tensor table (mixed formats
// and fallbacks included; tensors of no class, like rope_freqs, are left out), its largest format for the rates
// (q4_k for a Q4_K_M file's FFN ...), and the file's formats with their bytes for the output. KV in `kv`.
PrecisionPlan gguf_precision_plan(const engine::GgufFile& f, const std::string& kv = "bf16");
PrecisionPlan gguf_precision_plan(const std::string& path, const std::string& kv = "bf16");  // header only

// from_hf_config on the text of a config.json; `path` names it in messages and gives the model id.
ModelSpec from_hf_config_text(std::string_view text, const std::string& path);

// An id from the database, or a path to a config.json / .gguf file. Unknown id: InputError with the
// closest ids.
ModelSpec resolve(const Database& db, std::string_view id_or_path);

}  // namespace rooftop::models
