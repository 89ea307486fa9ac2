// Views of SpeedResult (speed, cost) and RooflineResult: JSON records and tables.
#pragma once
#include <nlohmann/json.hpp>

#include "analyzer/roofline.h"
#include "analyzer/speed.h"
#include "reports/table.h"

namespace rooftop::reports {

nlohmann::json speed_json(const SpeedResult& r);
// The range measurements fall in when the prediction errs as the band says (error = predicted / measured - 1):
// "low-high", or "-" without a band.
std::string expected_range(double predicted, const std::optional<ErrorBand>& band);

std::vector<Table> speed_tables(const SpeedResult& r, bool explain);
std::vector<Table> cost_tables(const SpeedResult& r, bool explain);
nlohmann::json roofline_json(const RooflineResult& r);
std::vector<Table> roofline_tables(const RooflineResult& r);
// The chip's roofline alone: one roof per compute format (JSON, a table, and an SVG chart of every roof).
nlohmann::json chip_roofline_json(const ChipRoofline& r);
std::vector<Table> chip_roofline_tables(const ChipRoofline& r);
std::string chip_roofline_svg(const ChipRoofline& r);

}  // namespace rooftop::reports
