// The model database: embedded model cards, user cards from --models DIR, HF config.json and GGUF headers.
#pragma once
#include <string>
#include <string_view>
#include <vector>

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
// from_hf_config on the text of a config.json; `path` names it in messages and gives the model id.
ModelSpec from_hf_config_text(std::string_view text, const std::string& path);

// An id from the database, or a path to a config.json / .gguf file. Unknown id: InputError with the
// closest ids.
ModelSpec resolve(const Database& db, std::string_view id_or_path);

}  // namespace rooftop::models
