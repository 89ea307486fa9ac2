// A llama model with random weights held in memory: the engine's own forward pass at any model card's shape,
// in any format the kernels read, without a file. `rooftop validate` times it.
#pragma once
#include <cstdint>
#include <string>

#include "engine/model.h"

namespace rooftop::engine {

// Why a shape cannot be built in format f ("" = it can): every dimension positive, heads a multiple of the
// KV heads, an even head dimension, and the format's block dividing every matrix's input width (D, H*d, F).
std::string synthetic_shape_problem(const LlamaConfig& c, kernels::WeightFormat f);

// Every matrix in `f` (16 distinct random rows per matrix, values +-[0.1, 1), never zero, tiled down its rows so
// the memory traffic is the real size; kernels::random_weights), norm vectors fp32 in [0.5, 1.5). The output
// matrix is the embedding when `tied`, else its own matrix. Every layer has its own storage (no reuse, so small
// models are not flattered by caches). InputError when synthetic_shape_problem is non-empty.
LlamaModel synthetic_llama(const LlamaConfig& c, kernels::WeightFormat f, bool tied, uint32_t seed);

}  // namespace rooftop::engine
