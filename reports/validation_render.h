// Views of a validate sweep: terminal table, Markdown, JSON, and the "what it teaches" paragraph.
#pragma once
#include <string>

#include "reports/validation.h"

namespace rooftop::reports {

std::string validate_table(const SweepResult& r);     // aligned text columns + summary + lesson
std::string validate_markdown(const SweepResult& r);  // the same as a Markdown table
std::string validate_json(const SweepResult& r);      // keys: chip, points, skipped, summary, teaches
// One line: median and worst |error| over memory-bound and compute-bound points, and the plain law's.
std::string validate_summary_line(const SweepResult& r);
// One line: median / worst |error| of each term set (law, + per-op roofline, + kernel rates, + fixed costs).
std::string validate_terms_line(const SweepResult& r);
// Plain words computed from the numbers: fraction of the bandwidth each format reached, how far the
// plain law and the analyzer were off, which points the analyzer called compute-bound.
std::string validate_teaches(const SweepResult& r);

}  // namespace rooftop::reports
