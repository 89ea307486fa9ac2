// Fitting runtime profiles' terms to published records, with leave-one-source-out cross-validation.
#pragma once
#include <string>
#include <vector>

#include "analyzer/runtime.h"
#include "validate/predict.h"

namespace rooftop::validate {

// One record's prediction and its error (predicted / measured - 1).
struct Prediction {
  int record = 0;
  int source = 0;
  double measured = 0, predicted = 0;
  double error() const { return predicted / measured - 1.0; }
};

struct FitResult {
  RuntimeProfile profile;               // fitted on every record of the runtime (bands from the LOSO errors)
  std::vector<Prediction> in_sample;    // the fitted profile's predictions
  std::vector<Prediction> held_out;     // each source's records predicted by a fit on the other sources only
  int sources = 0;
  std::vector<std::string> fitted_terms;  // what the fit varied ("per_layer_s", "decode_bandwidth_fraction.kquant/ada" ...)
  std::vector<std::string> at_bound;      // fitted terms that ended at a bound of their range (suspect: see the note)
};

// Fits `start`'s fitted terms to `cases` (all of one runtime; `values[i]` is case i's measured value and
// `source_of[i]` its source). Terms fitted: decode bandwidth and GEMM fractions ("*/*", per format family, per
// family and architecture where >= 3 records inform them), fixed costs per layer and per step, attention
// fraction, the small-batch rate (when the profile states a threshold), collective latency and bus fraction
// (when a case has collectives). The loss: Huber on log(predicted / measured), each source weighted
// 1 / sqrt(its records). Coordinate descent by golden-section search in log space, from `start`'s values.
RuntimeProfile fit_profile(const RuntimeProfile& start, const std::vector<const RecordCase*>& cases,
                           const std::vector<double>& values, const std::vector<int>& source_of,
                           std::vector<std::string>* fitted_terms = nullptr);

// The fit on every case, and leave-one-source-out: each source's cases predicted by a fit on the others
// (started from `start`, never from the full fit); a runtime with one source has no held-out predictions. Bands: p10/p50/p90 of the held-out errors per metric
// class and architecture (>= 5 records), per metric class, and over all.
FitResult fit_with_loso(const RuntimeProfile& start, const std::vector<const RecordCase*>& cases,
                        const std::vector<double>& values, const std::vector<int>& source_of);

// `p` with every fitted term back at generic's value (stated terms kept): where every fit starts.
RuntimeProfile unfitted(const RuntimeProfile& p);

// Percentile (0..1) of the values, linear between order statistics; 0 for none.
double percentile(std::vector<double> v, double q);

}  // namespace rooftop::validate
