// Model shapes from the models' config.json files (hidden_size, intermediate_size, heads, kv heads).
#include "measure/shapes.h"

#include <algorithm>

namespace rooftop::measure {

const std::vector<MatrixShape>& model_matrix_shapes() {
  static const std::vector<MatrixShape> shapes = {
      {"llama-3.1-8b", "ffn_up", 14336, 4096},   // intermediate_size 14336, hidden_size 4096
      {"qwen2.5-1.5b", "ffn_up", 8960, 1536},    // intermediate_size 8960, hidden_size 1536
      {"smollm2-135m", "ffn_up", 1536, 576},     // intermediate_size 1536, hidden_size 576
  };
  return shapes;
}

const std::vector<MatrixShape>& in_cache_shapes() {
  static const std::vector<MatrixShape> shapes = {
      {"smollm2-135m", "ffn_up", 1536, 576},     // intermediate_size 1536, hidden_size 576
      {"qwen2.5-0.5b", "ffn_up", 4864, 896},     // intermediate_size 4864, hidden_size 896
      {"qwen2.5-1.5b", "ffn_up", 8960, 1536},    // intermediate_size 8960, hidden_size 1536
      {"llama-3.1-8b", "attn_k", 1024, 4096},    // 8 KV heads x head_dim 128, hidden_size 4096
      {"llama-3.1-8b", "ffn_down", 256, 14336},  // 256 of its 4096 rows: FFN down reads rows of intermediate_size 14336
  };
  return shapes;
}

const MatrixShape& llama8b_ffn() { return model_matrix_shapes()[0]; }
const MatrixShape& smollm2_ffn() { return model_matrix_shapes()[2]; }

MatrixShape narrow_gemm_shape(kernels::WeightFormat f) {
  MatrixShape s = smollm2_ffn();
  const int64_t block = kernels::block_values(f);
  s.k = block * std::max<int64_t>(1, (s.k + block / 2) / block);
  return s;
}

AttentionShape llama8b_attention(int64_t t) { return {"llama-3.1-8b", 32, 8, 128, t}; }

const std::vector<kernels::WeightFormat>& all_formats() {
  using F = kernels::WeightFormat;
  static const std::vector<F> formats = {F::f32, F::f16, F::bf16, F::q8_0, F::q4_0, F::q4_1, F::q5_0, F::q5_1, F::q4_k, F::q5_k, F::q6_k};
  return formats;
}

}  // namespace rooftop::measure
