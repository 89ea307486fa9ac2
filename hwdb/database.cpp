// The chip database: embedded cards plus user folders, lookup by id, the host CPU, and the cache paths.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analyzer/embedded_file.h"
#include "base/suggest.h"
#include "base/files.h"
#include "hwdb/calibration.h"
#include "hwdb/gpu_calibration.h"
#include "hwdb/hwdb.h"

namespace rooftop {
extern const EmbeddedFile embedded_chip_cards[];
extern const std::size_t embedded_chip_cards_count;
}  // namespace rooftop

namespace rooftop::hwdb {
namespace {

bool is_host_id(std::string_view id) { return id == "cpu" || id == "local"; }

// Add `chip` to `db`: a new id is appended; an existing id is replaced when `may_replace` (a user card
// over a built-in one), otherwise two cards claim one id and that is an error.
void add(Database& db, ChipSpec chip, bool may_replace, const std::vector<std::string>& user_files) {
  if (is_host_id(chip.id))
    throw InputError(chip.file + ":" + chip.id + ":id: '" + chip.id + "' is reserved for the host CPU; expected another id");
  for (auto& existing : db.chips) {
    if (existing.id != chip.id) continue;
    bool existing_is_user = std::find(user_files.begin(), user_files.end(), existing.file) != user_files.end();
    if (!may_replace || existing_is_user)
      throw InputError(chip.file + ":" + chip.id + ":id: duplicate id, also defined in " + existing.file +
                       "; expected one card per id");
    existing = std::move(chip);
    return;
  }
  db.chips.push_back(std::move(chip));
}

}  // namespace

const ChipSpec* Database::find(std::string_view id) const {
  for (const auto& c : chips)
    if (c.id == id) return &c;
  return nullptr;
}

ChipSpec Database::get(std::string_view id) const {
  if (is_host_id(id)) return calibrated_host_cpu();
  if (auto device = gpu_device_id(id)) return require_calibrated_gpu(*device, *this);
  if (const ChipSpec* c = find(id)) return *c;
  throw InputError(unknown_id_message("chip", id, ids()));
}

std::vector<std::string> Database::ids() const {
  std::vector<std::string> out;
  for (const auto& c : chips) out.push_back(c.id);
  out.push_back("cpu");
  return out;
}

Database load(const std::vector<std::string>& extra_dirs) {
  Database db;
  for (std::size_t i = 0; i < embedded_chip_cards_count; ++i) {
    const auto& f = embedded_chip_cards[i];
    add(db, parse_card(f.content, "hwdb/cards/" + std::string(f.name)), false, {});
  }
  std::vector<std::string> user_files;
  for (const auto& dir : extra_dirs) {
    for (const auto& path : list_files(dir, {".yaml"}, "--hwdb (a folder of chip cards)")) {
      ChipSpec chip = parse_card(read_text_file(path, "chip card"), path);
      user_files.push_back(path);
      add(db, std::move(chip), true, user_files);
    }
  }
  return db;
}

std::string calibration_path() { return cache_dir() + "/calibration/local.json"; }

}  // namespace rooftop::hwdb
