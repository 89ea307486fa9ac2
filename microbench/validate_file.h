// The real model file as the analyzer sees it: the formats of a GGUF's tensors as a precision plan
// (`rooftop run` predicts with it, and `rooftop validate` measures the file against it).
#pragma once
#include <string>

#include "analyzer/memory.h"
#include "engine/model.h"

namespace rooftop::microbench {

// A kernel format by the analyzer's name ("f32" is the analyzer's "fp32", "f16" its "fp16").
std::string analyzer_format(kernels::WeightFormat f);

// The format holding the most bytes across the layers' matrices (q, k, v, o, gate, up, down).
kernels::WeightFormat dominant_format(const engine::LlamaModel& m);

// The file as the engine runs it: the dominant format for the layers, the embedding's and the output's own
// formats, fp32 norms, fp32 KV.
PrecisionPlan file_precision_plan(const engine::LlamaModel& m);

}  // namespace rooftop::microbench
