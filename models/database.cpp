// The model database: embedded cards plus user cards, lookup by id, and resolve() for ids or file paths.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analyzer/embedded_file.h"
#include "base/suggest.h"
#include "base/files.h"
#include "models/models.h"

namespace rooftop {
extern const EmbeddedFile embedded_model_cards[];
extern const std::size_t embedded_model_cards_count;
}  // namespace rooftop

namespace rooftop::models {
namespace fs = std::filesystem;

namespace {
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Adds `m` (from `file`). An id already present is an error, except that entries below
// `replaceable_below` (the embedded cards, when adding user cards) are replaced: a user card overrides.
void add_card(Database& db, std::vector<std::string>& files, ModelSpec m, const std::string& file,
              size_t replaceable_below) {
  for (size_t i = 0; i < db.models.size(); ++i) {
    if (db.models[i].id != m.id) continue;
    if (i >= replaceable_below)
      throw InputError(file + ":" + m.id + ":id: duplicate model id, also defined in " + files[i]);
    db.models[i] = std::move(m);
    files[i] = file;
    return;
  }
  db.models.push_back(std::move(m));
  files.push_back(file);
}
}  // namespace

const ModelSpec* Database::find(std::string_view id) const {
  for (const auto& m : models)
    if (m.id == id) return &m;
  return nullptr;
}

std::vector<std::string> Database::ids() const {
  std::vector<std::string> out;
  for (const auto& m : models) out.push_back(m.id);
  return out;
}

Database load(const std::vector<std::string>& extra_dirs) {
  Database db;
  std::vector<std::string> files;  // the card each model came from, for duplicate messages
  for (size_t i = 0; i < embedded_model_cards_count; ++i) {
    const auto& f = embedded_model_cards[i];
    const std::string file = "models/cards/" + std::string(f.name);
    add_card(db, files, parse_card(f.content, file), file, 0);
  }
  const size_t embedded = db.models.size();
  for (const auto& dir : extra_dirs) {
    for (const auto& p : list_files(dir, {".yaml", ".yml"}, "--models"))
      add_card(db, files, parse_card(read_text_file(p, "model card"), p), p, embedded);
  }
  return db;
}

ModelSpec resolve(const Database& db, std::string_view id_or_path) {
  const std::string s(id_or_path);
  if (const ModelSpec* m = db.find(s)) return *m;
  std::error_code ec;
  const bool exists = fs::exists(s, ec);
  if (ends_with(s, ".json")) return from_hf_config(s);
  if (ends_with(s, ".gguf")) return from_gguf(s);
  if (exists) {
    if (fs::is_directory(s, ec)) {
      if (fs::exists(fs::path(s) / "config.json", ec)) return from_hf_config((fs::path(s) / "config.json").string());
      throw InputError("model directory '" + s + "' has no config.json");
    }
    if (ends_with(s, ".yaml") || ends_with(s, ".yml")) return parse_card(read_text_file(s, "model card"), s);
    throw InputError("model file '" + s + "' is not a .json (HF config), .gguf or .yaml (model card)");
  }
  throw InputError(unknown_id_message("model", s, db.ids()) + " (or give a config.json or .gguf path)");
}

}  // namespace rooftop::models
