// A llama-family model loaded from GGUF (or built in memory, engine/synthetic.h): its shape (LlamaConfig) and typed views of every weight.
//
// Dimension legend: D = embedding width, H = query heads, Hk = KV heads, d = head dim (D / H),
// F = feed-forward width, V = vocabulary, L = layers.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/gguf.h"
#include "base/buffer.h"
#include "kernels/cpu/kernels.h"
#include "kernels/cpu/random_weights.h"

namespace rooftop::engine {

struct LlamaConfig {
  int64_t layers = 0;      // L
  int64_t dim = 0;         // D
  int64_t heads = 0;       // H
  int64_t kv_heads = 0;    // Hk
  int64_t head_dim = 0;    // d
  int64_t ffn_dim = 0;     // F
  int64_t vocab = 0;       // V
  int64_t context = 0;     // trained context length (tokens)
  float rms_eps = 1e-5f;
  float rope_base = 10000.f;
};

struct LayerWeights {
  std::span<const float> attn_norm;    // (D)
  kernels::WeightView wq, wk, wv, wo;  // (H*d, D), (Hk*d, D), (Hk*d, D), (D, H*d)
  std::span<const float> ffn_norm;     // (D)
  kernels::WeightView gate, up, down;  // (F, D), (F, D), (D, F)
};

struct LlamaModel {
  GgufFile file;  // keeps the mapping alive
  LlamaConfig cfg;
  kernels::WeightView token_embd;      // (V, D)
  std::vector<LayerWeights> layers;    // L
  std::span<const float> output_norm;  // (D)
  kernels::WeightView output;          // (V, D): output.weight, or token_embd when tied
  bool tied_embeddings = false;
  // A model built in memory (synthetic_llama) owns its weights here; a file's views point into `file`.
  std::vector<kernels::RandomWeights> owned_matrices;
  std::vector<AlignedFloats> owned_vectors;

  // Bytes of weights one decode step reads: every matrix and norm once, plus one embedding row.
  int64_t weights_bytes_per_step() const;
  // KV cache bytes per token in fp32: 2 x L x Hk x d x 4.
  int64_t kv_bytes_per_token() const { return 2 * cfg.layers * cfg.kv_heads * cfg.head_dim * 4; }
};

// Maps the file and checks it: architecture "llama", every tensor present with the expected shape
// and a format the kernels read. InputError (naming the tensor or key) otherwise.
LlamaModel load_llama(const std::string& path);
// The same from a parsed file whose tensor data stays valid while the model lives.
LlamaModel load_llama(GgufFile file);

}  // namespace rooftop::engine
