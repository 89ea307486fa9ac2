// Quantization error on real weights (rooftop quant): a GGUF file's tensors, dequantized, re-quantized into
// each format and dequantized again, against the file's own values. Seed 002's point made measurable: one
// outlier stretches a per-tensor scale and crushes every other weight, a per-block scale confines the damage.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gguf/gguf.h"
#include "engine/model.h"
#include "kernels/cpu/kernels.h"

namespace rooftop::engine {

// Formats compared: "int8-tensor" (one symmetric scale per tensor, max |w| / 127) and the block formats.
const std::vector<std::string>& quant_formats();

struct QuantError {
  std::string format;
  double bits_per_weight = 0;
  double values = 0;
  double rmse = 0;                // sqrt(mean squared error)
  double max_abs_error = 0;
  double snr_db = 0;              // 10 log10(sum w^2 / sum e^2)
  // The share of the other 99.9% of weights' squared error caused by the largest 0.1% (by magnitude):
  // 1 - (their error when those are zeroed before quantizing) / (their error as quantized).
  double outlier_share = 0;
};

// The error of quantizing `w` (rows of k values) into `format`. k must be a multiple of the format's block.
QuantError quant_error(std::span<const float> w, int64_t k, const std::string& format);

struct TensorQuantError {
  std::string name;
  std::string file_type;          // the tensor's own type in the file
  int64_t rows = 0, k = 0;        // sampled rows of k values
  std::vector<QuantError> by_format;  // in quant_formats() order; values 0 where the format's block does not fit k
};

struct FileQuantError {
  std::vector<TensorQuantError> tensors;  // the 2-D weight tensors measured
  std::vector<QuantError> overall;        // per format, over every measured value
  int64_t tensors_skipped = 0;            // 1-D, another type, or rows not a multiple of 32
};

// Every 2-D tensor in a readable type whose row length is a multiple of 32 (the k-quants only where it is a
// multiple of 256), up to max_values_per_tensor values each (rows sampled evenly).
FileQuantError file_quant_error(const GgufFile& f, int64_t max_values_per_tensor);

// End to end: the model with every matrix re-quantized into f (from its own dequantized values; a matrix
// whose width f's blocks do not divide keeps its format, counted in `kept`).
LlamaModel requantized(LlamaModel m, kernels::WeightFormat f, int64_t* kept = nullptr);

// exp(mean over i of -log softmax(logits row i)[ids[i + 1]]): every token predicted from the ones before it.
// logits (ids.size(), V).
double perplexity(std::span<const float> logits, std::span<const int32_t> ids, int64_t V);

}  // namespace rooftop::engine
