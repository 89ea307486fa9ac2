// A llama model with random weights held in memory: the engine's own forward pass at any model card's shape,
// in any format the kernels read, without a file. `rooftop validate` times it.
#pragma once
#include <cstdint>
#include <functional>
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

// The format of each matrix from its llama.cpp name without the layer prefix ("attn_v", "ffn_down",
// "token_embd", "output"), its layer (-1 outside the layers) and its input width.
using FormatRule = std::function<kernels::WeightFormat(const std::string& tensor, int64_t layer, int64_t cols)>;
// The same with a format per matrix; InputError when a format's block does not divide its matrix's width.
LlamaModel synthetic_llama(const LlamaConfig& c, const FormatRule& rule, bool tied, uint32_t seed);

// A Q4_K_M file's recipe as llama.cpp's quantizer describes it: q4_k throughout, q6_k for the output (the
// embedding too when it is the output, `tied`) and for attn_v and ffn_down in the first and last eighth of the
// layers and every third layer between; rows whose width is not a multiple of 256 fall back to q5_0 (for q4_k)
// and q8_0 (for q6_k). Left out: the larger attn_v types llama.cpp picks for 70B-class grouped-query models.
FormatRule q4_k_m_rule(int64_t layers, bool tied);

}  // namespace rooftop::engine
