// The validate law chart and HTML page: measured decode tok/s against bytes per token, with the law's curve.
#pragma once
#include <string>

#include "reports/validation.h"
#include "reports/svg.h"

namespace rooftop::reports {

// Log-log chart data (rendered with reports::svg::render): one marker series per analyzer bound over
// the decode points (x = bytes per token, y = measured tok/s) and the law's line, bandwidth / bytes,
// drawn across the points' byte range widened by 1.5x on each side.
reports::svg::LineChart validate_law_chart(const SweepResult& r);

// A self-contained HTML page: heading, the points table, the summary, terms and lesson, then `svg`
// (the rendered law chart) inline. Text is HTML-escaped; `svg` is inserted as is.
std::string validate_html(const SweepResult& r, const std::string& svg);

}  // namespace rooftop::reports
