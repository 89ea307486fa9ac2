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
  int64_t dense_layers = 0;       // layers (of those with an FFN) whose FFN is dense, not experts (DeepSeek: 3)
  bool router_bias = false;
  bool shared_expert_gate = false;  // a 1 x hidden sigmoid gate on the shared expert's output (Qwen2-MoE, Qwen3-Next)
};

struct MlaSpec {  // multi-head latent attention (DeepSeek-V2/V3)
  int64_t kv_lora_rank = 0;       // latent width cached per token per layer
  int64_t q_lora_rank = 0;        // 0: queries projected directly
  int64_t qk_rope_head_dim = 0;   // decoupled RoPE key width (cached per token per layer, shared by heads)
  int64_t qk_nope_head_dim = 0;
  int64_t v_head_dim = 0;
};

// DeepSeek Sparse Attention (DeepSeek-V3.2, GLM-5): a lightning indexer scores every cached token with
// its own small keys, and the attention reads only the top-k of them.
struct SparseAttentionSpec {
  int64_t index_heads = 0;     // indexer query heads
  int64_t index_head_dim = 0;  // indexer key width (one key per token per layer, cached in fp8 + an fp32 scale)
  int64_t topk = 0;            // tokens each query attends to
};

// Token mixers that keep a fixed-size recurrent state per sequence instead of a KV cache that grows
// with the context. Their projections count as the attention class of weights (the token mixer).
enum class StateKind {
  mamba,           // Mamba-1 (Jamba): d_inner channels, each with a d_state-wide state; x_proj and dt_proj
  mamba2,          // Mamba-2 (Nemotron-H, Falcon-H1): heads x head_dim channels, B and C shared by groups
  gated_deltanet,  // Gated DeltaNet (Qwen3-Next): one key_head_dim x head_dim matrix per value head
};
const char* state_kind_name(StateKind k);  // "mamba", "mamba2", "gated_deltanet"

struct StateSpec {
  StateKind kind = StateKind::mamba2;
  int64_t layers = 0;          // layers with this mixer
  bool parallel = false;       // those layers also run attention beside it (Falcon-H1); else it replaces attention
  int64_t inner = 0;           // channels the state runs over (mamba: d_inner; mamba2: heads x head_dim)
  int64_t heads = 0;           // mamba2 heads; gated DeltaNet value heads
  int64_t head_dim = 0;        // mamba2 head width; gated DeltaNet value head width
  int64_t key_heads = 0;       // gated DeltaNet query/key heads
  int64_t key_head_dim = 0;    // gated DeltaNet query/key head width
  int64_t state_dim = 0;       // mamba/mamba2 d_state (N)
  int64_t groups = 1;          // mamba2 groups sharing B and C
  int64_t conv_kernel = 4;     // causal depthwise convolution width
  int64_t dt_rank = 0;         // mamba: rank of the time-step projection
  bool conv_bias = true;
  bool proj_bias = false;      // biases on the input and output projections
  bool gated_norm = true;      // an RMSNorm (inner wide; gated DeltaNet: head_dim wide) before the output projection;
                               // mamba: Jamba's RMSNorms on dt, B and C
  bool ssm_state_fp32 = false; // the SSM state is kept in fp32 (Nemotron-H in vLLM); else in the model's 16-bit dtype
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
  std::optional<SparseAttentionSpec> sparse;
  int64_t sliding_window = 0;       // tokens; 0 = none
  int64_t sliding_window_layers = 0;// how many attention layers use the window (the rest are global)
  bool chunked_window = false;      // the window restarts every sliding_window tokens (Llama 4's chunked attention)
  bool attention_output_gate = false;  // q_proj also gives a sigmoid gate on the attention output (Qwen3-Next): 2x rows
  // Hybrid models. Layer counts: attention layers = layers - mixer_free_layers - (state layers unless parallel);
  // FFN layers = layers - ffn_free_layers (of which moe->dense_layers are dense).
  std::optional<StateSpec> state;
  int64_t mixer_free_layers = 0;    // layers with an FFN only (Nemotron-H's MLP layers)
  int64_t ffn_free_layers = 0;      // layers with a token mixer only (Nemotron-H's Mamba and attention layers)
  int64_t max_context = 0;
  double rope_theta = 10000.0;
  std::string source;               // where the architecture numbers come from (config.json URL)
  std::optional<double> published_params;  // vendor's headline total, for the 0.5% test
  std::optional<double> published_active_params;  // vendor's headline active count (MoE), see the card for its convention
};

}  // namespace rooftop
