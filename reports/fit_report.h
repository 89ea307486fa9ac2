// Views of a FitResult: JSON record and tables.
#pragma once
#include <nlohmann/json.hpp>

#include "analyzer/memory.h"
#include "reports/table.h"

namespace rooftop::reports {

nlohmann::json fit_json(const FitResult& r, const ChipSpec& chip);
std::vector<Table> fit_tables(const FitResult& r, const ChipSpec& chip, bool explain);
// Where a chip figure came from: the card's provenance entry, else "datasheet" for a card from a file.
std::string provenance_of(const ChipSpec& chip, const std::string& key);

}  // namespace rooftop::reports
