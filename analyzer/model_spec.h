// ModelSpec: a transformer's architecture as plain data; parameter counts are derived from it (params.h).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rooftop {

enum class FfnKind { swiglu, gelu };  // swiglu/geglu: 3 matrices (gate, up, down); plain: 2 (up, down)

struct MoeSpec {
  int64_t experts = 0;            // routed experts per MoE layer
  int64_t active_experts = 0;     // routed experts each token runs (top-k)
  int64_t shared_experts = 0;     // always-on experts per MoE layer
  int64_t expert_ffn = 0;         // intermediate size of one expert
  int64_t shared_expert_ffn = 0;  // intermediate size of one shared expert (0: same as expert_ffn)
  int64_t dense_layers = 0;       // leading layers with a dense FFN instead of experts (DeepSeek: 3)
  bool router_bias = false;
};

struct MlaSpec {  // multi-head latent attention (DeepSeek-V2/V3)
  int64_t kv_lora_rank = 0;       // latent width cached per token per layer
  int64_t q_lora_rank = 0;        // 0: queries projected directly
  int64_t qk_rope_head_dim = 0;   // decoupled RoPE key width (cached per token per layer, shared by heads)
  int64_t qk_nope_head_dim = 0;
  int64_t v_head_dim = 0;
};

struct ModelSpec {
  std::string id;                 // e.g. "llama-3.1-70b"
  std::string name;               // human name
  std::string family;             // llama, qwen2, mistral, gpt-oss, deepseek-v3, gemma3 ...
  int64_t vocab = 0;
  int64_t hidden = 0;             // d_model
  int64_t layers = 0;
  int64_t heads = 0;              // query heads
  int64_t kv_heads = 0;           // key/value heads (GQA when < heads)
  int64_t head_dim = 0;           // per-head width of Q and K (and V unless v_head_dim set)
  int64_t ffn = 0;                // dense FFN intermediate size
  FfnKind ffn_kind = FfnKind::swiglu;
  bool tied_embeddings = false;   // LM head shares the embedding matrix
  bool attention_bias = false;    // biases on q, k, v projections
  bool attention_out_bias = false;// bias on the output projection
  bool ffn_bias = false;
  bool qk_norm = false;           // per-head RMSNorm on q and k (Qwen3, Gemma 3)
  bool attention_sinks = false;   // one learned sink logit per query head per layer (gpt-oss)
  int64_t norms_per_layer = 2;    // RMSNorm/LayerNorm vectors per layer (Gemma 3: 4)
  bool layernorm_bias = false;    // LayerNorm with bias (doubles norm params)
  std::optional<MoeSpec> moe;
  std::optional<MlaSpec> mla;
  int64_t sliding_window = 0;       // tokens; 0 = none
  int64_t sliding_window_layers = 0;// how many layers use the window (the rest are global)
  int64_t max_context = 0;
  double rope_theta = 10000.0;
  std::string source;               // where the architecture numbers come from (config.json URL)
  std::optional<double> published_params;  // vendor's headline total, for the 0.5% test
  std::optional<double> published_active_params;  // vendor's headline active count (MoE), see the card for its convention
};

}  // namespace rooftop
