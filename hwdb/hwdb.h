// The hardware database: embedded chip cards, user cards from --hwdb DIR, and the host CPU ("cpu"/"local").
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/chip_spec.h"
#include "base/files.h"

namespace rooftop::hwdb {

struct Database {
  std::vector<ChipSpec> chips;  // embedded cards, then user cards (a user card may replace an id)
  const ChipSpec* find(std::string_view id) const;  // nullptr when absent
  // The chip with this id; "cpu" and "local" give the host CPU (detected, then calibrated figures
  // from the cache when a valid calibration exists). Unknown id: InputError naming the closest ids.
  ChipSpec get(std::string_view id) const;
  std::vector<std::string> ids() const;  // every id, "cpu" included
};

// Embedded cards plus every *.yaml in each extra directory. Throws InputError naming file:chip:key.
Database load(const std::vector<std::string>& extra_dirs = {});

// Parse one card. `file` names the source in error messages. Rejects unknown, misspelled or duplicate
// keys, wrong types, negative or zero capacities, sparse-looking peak values without a note.
ChipSpec parse_card(std::string_view yaml_text, const std::string& file);

// The host CPU as a chip: cores, ISA flags, cache sizes, memory, theoretical peak
// (cores x SIMD lanes x FMA units x 2 x clock). Figures are "derived"/"assumed" until calibrated.
ChipSpec detect_host_cpu();

using rooftop::cache_dir;  // base/files.h
// Path of this machine's calibration file (written by `rooftop calibrate`): cache_dir()/calibration/local.json
std::string calibration_path();

}  // namespace rooftop::hwdb
