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
  LlamaModel m;
  m.cfg = c;
  auto matrix = [&](int64_t rows, int64_t cols, uint32_t s) {
    m.owned_matrices.push_back(kernels::random_weights(f, rows, cols, s));
    return m.owned_matrices.back().view;  // the view points at heap storage, which later push_backs do not move
  };
  auto vector = [&](int64_t n, uint32_t s) {
    m.owned_vectors.emplace_back(n, s);
    return std::span<const float>(m.owned_vectors.back().span());
  };
  const int64_t qd = c.heads * c.head_dim, kvd = c.kv_heads * c.head_dim;
  m.token_embd = matrix(c.vocab, c.dim, seed);
  for (int64_t l = 0; l < c.layers; ++l) {
    const uint32_t s = seed + 16u * static_cast<uint32_t>(l + 1);
    LayerWeights w;
    w.attn_norm = vector(c.dim, s);
    w.wq = matrix(qd, c.dim, s + 1);
    w.wk = matrix(kvd, c.dim, s + 2);
    w.wv = matrix(kvd, c.dim, s + 3);
    w.wo = matrix(c.dim, qd, s + 4);
    w.ffn_norm = vector(c.dim, s + 5);
    w.gate = matrix(c.ffn_dim, c.dim, s + 6);
    w.up = matrix(c.ffn_dim, c.dim, s + 7);
    w.down = matrix(c.dim, c.ffn_dim, s + 8);
    m.layers.push_back(w);
  }
  m.output_norm = vector(c.dim, seed + 9);
  m.tied_embeddings = tied;
  m.output = tied ? m.token_embd : matrix(c.vocab, c.dim, seed + 1000003u);
  return m;
}

}  // namespace rooftop::engine
