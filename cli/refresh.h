// A calibrated CPU's figures for one model file's formats, re-measured now. The VM's speed moves between a
// calibration and a run (docs/calibration-noise.md), so `rooftop run --refresh` and `rooftop validate --serving`
// price the run again from figures taken right after it.
#pragma once

#include <string>

#include "analyzer/chip_spec.h"
#include "engine/model.h"

namespace rooftop::cli {

// `chip` with the GEMV, GEMM and attention figures of `model`'s weight formats re-measured (quick calibration kernels,
// `threads` workers). When the new figures are rejected, `chip` is returned unchanged and `why` says why.
ChipSpec refreshed_for_model(const ChipSpec& chip, const engine::LlamaModel& model, int threads, std::string& why);

}  // namespace rooftop::cli
