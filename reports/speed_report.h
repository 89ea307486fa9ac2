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

}  // namespace rooftop::reports
