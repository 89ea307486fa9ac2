// The real model file as the validate sweep measures it: its kernel formats by the analyzer's names and the
// format of most of its layers (the file's own precision plan is models::gguf_precision_plan).
#pragma once
#include <string>

#include "analyzer/memory.h"
#include "engine/model.h"

namespace rooftop::validate {

// A kernel format by the analyzer's name ("f32" is the analyzer's "fp32", "f16" its "fp16").
std::string analyzer_format(kernels::WeightFormat f);

// The format holding the most bytes across the layers' matrices (q, k, v, o, gate, up, down).
kernels::WeightFormat dominant_format(const engine::LlamaModel& m);

}  // namespace rooftop::validate
