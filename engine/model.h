// A llama-family model loaded from GGUF (or built in memory, engine/synthetic.h): its shape (LlamaConfig) and typed
// views of every weight. Three architectures share the layer: "llama" (SmolLM2, Llama, Qwen-style llama GGUFs),
// "qwen2" (Qwen2 / Qwen2.5: biases on the q, k and v projections, NeoX RoPE) and "gemma3" (Gemma 3: scaled embeddings, q/k head norms, post-attention and post-FFN norms, GeGLU, NeoX RoPE,
// sliding-window attention on 5 of every 6 layers with its own RoPE base).
//
// Dimension legend: D = embedding width, H = query heads, Hk = KV heads, d = head dim (D / H),
// F = feed-forward width, V = vocabulary, L = layers.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gguf/gguf.h"
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
  float rope_base = 10000.f;  // global layers
  // Gemma 3's departures from llama (the defaults are llama's).
  float embed_scale = 1.f;                                   // embeddings times this (Gemma: sqrt(D))
  kernels::RopeStyle rope_style = kernels::RopeStyle::adjacent;
  float rope_freq_scale = 1.f;                               // global layers' linear position scaling
  bool gelu = false;                                         // FFN: false = SwiGLU, true = GeGLU (tanh GELU)
  float query_scale = 0.f;                                   // attention scale; 0 = 1/sqrt(d)
  int64_t sliding_window = 0;                                // local layers see the last W positions; 0 = none
  int64_t sliding_period = 0;                                // layer l is global when (l + 1) % period == 0
  float rope_base_local = 10000.f;                           // local layers' RoPE base (unscaled)

  bool is_local(int64_t l) const { return sliding_window > 0 && (sliding_period <= 0 || (l + 1) % sliding_period != 0); }
  // KV slots layer l needs for `capacity` positions: the window on local layers (a ring), else all of them.
  int64_t kv_slots(int64_t l, int64_t capacity) const {
    return is_local(l) && sliding_window < capacity ? sliding_window : capacity;
  }
  // fp32 KV cache bytes for `capacity` positions: 2 x 4 x Hk x d x sum of kv_slots.
  double kv_cache_bytes(int64_t capacity) const {
    double slots = 0;
    for (int64_t l = 0; l < layers; ++l) slots += double(kv_slots(l, capacity));
    return 2.0 * 4 * double(kv_heads) * double(head_dim) * slots;
  }
  // First position token `pos` attends to in layer l: pos - W + 1 on local layers, else 0.
  int64_t first_visible(int64_t l, int64_t pos) const {
    return is_local(l) && pos >= sliding_window ? pos - sliding_window + 1 : 0;
  }
};

struct LayerWeights {
  std::span<const float> attn_norm;    // (D)
  kernels::WeightView wq, wk, wv, wo;  // (H*d, D), (Hk*d, D), (Hk*d, D), (D, H*d)
  std::span<const float> ffn_norm;     // (D)
  kernels::WeightView gate, up, down;  // (F, D), (F, D), (D, F)
  // Gemma 3 only (empty otherwise): RMSNorm of each q and k head (d), and of the attention and FFN outputs (D)
  // before they join the residual stream.
  std::span<const float> q_norm, k_norm, post_attn_norm, post_ffn_norm;
  // Qwen2 only (empty otherwise): the q, k and v projections' biases (H*d, Hk*d, Hk*d).
  std::span<const float> q_bias, k_bias, v_bias;
};

struct LlamaModel {
  GgufFile file;  // keeps the mapping alive
  LlamaConfig cfg;
  kernels::WeightView token_embd;      // (V, D)
  std::vector<LayerWeights> layers;    // L
  std::span<const float> output_norm;  // (D)
  kernels::WeightView output;          // (V, D): output.weight, or token_embd when tied
  std::span<const float> rope_freqs;   // (d/2): Llama 3.1+'s rope_freqs.weight, dividing each pair's angle; empty: none
  bool tied_embeddings = false;
  // A model built in memory (synthetic_llama) owns its weights here; a file's views point into `file`.
  std::vector<kernels::RandomWeights> owned_matrices;
  std::vector<AlignedFloats> owned_vectors;

  // Bytes of weights one decode step reads: every matrix and norm once, plus one embedding row.
  int64_t weights_bytes_per_step() const;
  // KV cache bytes per token in fp32: 2 x L x Hk x d x 4.
  int64_t kv_bytes_per_token() const { return 2 * cfg.layers * cfg.kv_heads * cfg.head_dim * 4; }
};

// Maps the file and checks it: architecture "llama", "qwen2" or "gemma3", every tensor present with the expected shape
// and a format the kernels read. InputError (naming the tensor or key) otherwise.
LlamaModel load_llama(const std::string& path);
// The same from a parsed file whose tensor data stays valid while the model lives.
LlamaModel load_llama(GgufFile file);

}  // namespace rooftop::engine
