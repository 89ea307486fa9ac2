// The model shapes the kernels are measured at (layer shapes of real models), as data.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cpu/kernels.h"

namespace rooftop::measure {

// A weight matrix W (m, k) of a model's layer: y (m) = W x (k).
struct MatrixShape {
  std::string model;  // "llama-3.1-8b"
  std::string what;   // "ffn_up" (m = intermediate, k = hidden)
  int64_t m = 0, k = 0;
};

// Decode attention of one layer: h query heads share hk KV heads of dimension d, t cached positions.
struct AttentionShape {
  std::string model;
  int64_t heads = 0, kv_heads = 0, head_dim = 0, t = 0;
};

// Llama-3.1-8B FFN up/gate (14336 x 4096), Qwen2.5-1.5B FFN (8960 x 1536), SmolLM2-135M FFN (1536 x 576).
const std::vector<MatrixShape>& model_matrix_shapes();
// Shapes small enough to stay in the caches, one per input width k = 576, 896, 1536, 4096, 14336: the GEMVs'
// arithmetic rate at each row length (SmolLM2-135M FFN, Qwen2.5-0.5B FFN, Qwen2.5-1.5B FFN, Llama-3.1-8B
// k_proj, 256 rows of Llama-3.1-8B's FFN down). calibrate also streams each width from DRAM.
const std::vector<MatrixShape>& in_cache_shapes();
const MatrixShape& llama8b_ffn();   // the headline shape (DRAM-bound on every CPU)
const MatrixShape& smollm2_ffn();   // a small model: fits in the caches
// The prefill GEMM's narrow shape for format f: SmolLM2-135M's FFN (1536 x 576), its k rounded to a whole number of
// the format's blocks where 576 is not one (the k-quants' 256: 1536 x 512).
MatrixShape narrow_gemm_shape(kernels::WeightFormat f);
// Llama-3.1-8B attention (32 heads, 8 KV heads, d = 128) at t = 1024.
AttentionShape llama8b_attention(int64_t t = 1024);

// The weight formats calibrated and benchmarked: f32 f16 bf16 q8_0 q4_0 q4_1 q5_0 q5_1 q4_k q5_k q6_k. (q5_1 was
// left out as only the fallback of q5_k rows; a whole q5_1 file was then priced from no q5_1 rate, 2.3x fast.)
const std::vector<kernels::WeightFormat>& all_formats();

inline constexpr int64_t kPrefillTokens = 128;      // n of the prefill GEMM
inline constexpr int64_t kSmallPrefillTokens = 16;  // a second n, to separate per-weight from per-token cost
inline constexpr int64_t kLargePrefillTokens = 512;  // a third n: the per-token cost past kPrefillTokens

}  // namespace rooftop::measure
