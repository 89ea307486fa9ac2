// synthetic_llama: random weights in the shapes load_llama checks a file's tensors against.
#include "engine/synthetic.h"

#include "base/errors.h"

namespace rooftop::engine {

std::string synthetic_shape_problem(const LlamaConfig& c, kernels::WeightFormat f) {
  if (c.layers <= 0 || c.dim <= 0 || c.heads <= 0 || c.kv_heads <= 0 || c.head_dim <= 0 || c.ffn_dim <= 0 ||
      c.vocab <= 0 || c.context <= 0)
    return "incomplete shape (layers, width, heads, KV heads, head dim, FFN width, vocabulary and context must be positive)";
  if (c.heads % c.kv_heads != 0)
    return std::to_string(c.heads) + " heads are not a multiple of " + std::to_string(c.kv_heads) + " KV heads";
  if (c.head_dim % 2 != 0) return "head dimension " + std::to_string(c.head_dim) + " is odd (RoPE rotates pairs)";
  const int64_t block = kernels::block_values(f);
  for (int64_t k : {c.dim, c.heads * c.head_dim, c.ffn_dim})
    if (k % block != 0)
      return "input width " + std::to_string(k) + " is not a multiple of " + kernels::format_name(f) +
             "'s block of " + std::to_string(block);
  return "";
}

LlamaModel synthetic_llama(const LlamaConfig& c, kernels::WeightFormat f, bool tied, uint32_t seed) {
  if (auto why = synthetic_shape_problem(c, f); !why.empty()) throw InputError("synthetic llama: " + why);
  return synthetic_llama(c, [f](const std::string&, int64_t, int64_t) { return f; }, tied, seed);
}

FormatRule q4_k_m_rule(int64_t layers, bool tied) {
  return [layers, tied](const std::string& tensor, int64_t layer, int64_t cols) {
    using F = kernels::WeightFormat;
    const bool more_bits = layer < layers / 8 || layer >= 7 * layers / 8 || (layer - layers / 8) % 3 == 2;
    const bool output = tensor == "output" || (tied && tensor == "token_embd");
    const bool q6 = output || ((tensor == "attn_v" || tensor == "ffn_down") && more_bits);
    if (cols % 256 != 0) return q6 ? F::q8_0 : F::q5_0;
    return q6 ? F::q6_k : F::q4_k;
  };
}

LlamaModel synthetic_llama(const LlamaConfig& c, const FormatRule& rule, bool tied, uint32_t seed) {
  if (auto why = synthetic_shape_problem(c, kernels::WeightFormat::f32); !why.empty())
    throw InputError("synthetic llama: " + why);
  LlamaModel m;
  m.cfg = c;
  int64_t layer = -1;
  auto matrix = [&](const char* tensor, int64_t rows, int64_t cols, uint32_t s) {
    const kernels::WeightFormat f = rule(tensor, layer, cols);
    if (cols % kernels::block_values(f) != 0)
      throw InputError("synthetic llama: " + std::string(tensor) + " rows of " + std::to_string(cols) +
                       " values are not a whole number of " + kernels::format_name(f) + " blocks");
    m.owned_matrices.push_back(kernels::random_weights(f, rows, cols, s));
    return m.owned_matrices.back().view;  // the view points at heap storage, which later push_backs do not move
  };
  auto vector = [&](int64_t n, uint32_t s) {
    m.owned_vectors.emplace_back(n, s);
    return std::span<const float>(m.owned_vectors.back().span());
  };
  const int64_t qd = c.heads * c.head_dim, kvd = c.kv_heads * c.head_dim;
  m.token_embd = matrix("token_embd", c.vocab, c.dim, seed);
  for (layer = 0; layer < c.layers; ++layer) {
    const uint32_t s = seed + 16u * static_cast<uint32_t>(layer + 1);
    LayerWeights w;
    w.attn_norm = vector(c.dim, s);
    w.wq = matrix("attn_q", qd, c.dim, s + 1);
    w.wk = matrix("attn_k", kvd, c.dim, s + 2);
    w.wv = matrix("attn_v", kvd, c.dim, s + 3);
    w.wo = matrix("attn_output", c.dim, qd, s + 4);
    w.ffn_norm = vector(c.dim, s + 5);
    w.gate = matrix("ffn_gate", c.ffn_dim, c.dim, s + 6);
    w.up = matrix("ffn_up", c.ffn_dim, c.dim, s + 7);
    w.down = matrix("ffn_down", c.dim, c.ffn_dim, s + 8);
    m.layers.push_back(w);
  }
  layer = -1;
  m.output_norm = vector(c.dim, seed + 9);
  m.tied_embeddings = tied;
  m.output = tied ? m.token_embd : matrix("output", c.vocab, c.dim, seed + 1000003u);
  return m;
}

}  // namespace rooftop::engine
