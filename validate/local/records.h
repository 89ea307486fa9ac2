// The validate sweep's records (points, error summaries, the sweep's result) are reports' own: declared in
// reports/validation.h, which renders them, and filled here. This names them in rooftop::validate.
#pragma once

#include "reports/validation.h"

namespace rooftop::validate {
using reports::ErrorStats;
using reports::kComputeAgreeFraction;
using reports::kTermSets;
using reports::SweepResult;
using reports::TermStats;
using reports::ValidatePoint;
using reports::ValidateSummary;
using reports::error_stats;
using reports::relative_error;
using reports::summarize_points;
using reports::term_set_name;

}  // namespace rooftop::validate
