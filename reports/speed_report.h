// Views of SpeedResult (speed, cost) and RooflineResult: JSON records and tables.
#pragma once
#include <nlohmann/json.hpp>

#include "analyzer/roofline.h"
#include "analyzer/speed.h"
#include "reports/table.h"

namespace rooftop::reports {

nlohmann::json speed_json(const SpeedResult& r);
std::vector<Table> speed_tables(const SpeedResult& r, bool explain);
std::vector<Table> cost_tables(const SpeedResult& r, bool explain);
nlohmann::json roofline_json(const RooflineResult& r);
std::vector<Table> roofline_tables(const RooflineResult& r);

}  // namespace rooftop::reports
