// The prediction model's terms, removable one at a time to show how much each moves the error.
#pragma once
#include "analyzer/chip_spec.h"
#include "analyzer/model_spec.h"
#include "analyzer/speed.h"
#include "validate/local/records.h"

namespace rooftop::validate {

// The chip the analyzer sees with only term sets 0..i (see kTermSets):
//   1: no measured kernel rates and no fixed costs (the calibrated bandwidth/peak figures stay);
//   2: + the measured kernel rates (gemv_/gemm_/attention_ bytes or FLOP/s), no overhead_* entries;
//   3: the chip as given (full). Set 0 is the plain law and needs no chip change.
ChipSpec chip_with_terms(const ChipSpec& chip, int set);

// SpeedOptions for term set i: sets 1 and 2 fix both efficiencies at 1 (the figures are taken as
// reached, as calibration does) and the per-layer cost at 0; set 3 leaves the analyzer's defaults.
SpeedOptions options_with_terms(SpeedOptions o, int set);

// Decode tok/s of term set i for the point's shape (batch, context, format). Set 0 = the chip's
// bandwidth / the point's measured bytes per token.
double term_tokens_per_s(const ModelSpec& m, const ChipSpec& chip, const ValidatePoint& p, int set);

}  // namespace rooftop::validate
