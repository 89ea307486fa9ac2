// architecture_diff: the architecture fields where two ModelSpecs differ ("" when equal), for importer tests.
#pragma once
#include <sstream>
#include <string>

#include "analyzer/model_spec.h"

namespace rooftop::test {

// Compares every field that shapes the weights and the KV cache (not id, name, source, published counts).
inline std::string architecture_diff(const ModelSpec& a, const ModelSpec& b, bool compare_max_context = true) {
  std::ostringstream d;
  auto f = [&](const char* name, auto x, auto y) {
    if (!(x == y)) d << name << ": " << x << " vs " << y << "; ";
  };
  f("vocab", a.vocab, b.vocab);
  f("hidden", a.hidden, b.hidden);
  f("layers", a.layers, b.layers);
  f("heads", a.heads, b.heads);
  f("kv_heads", a.kv_heads, b.kv_heads);
  f("head_dim", a.head_dim, b.head_dim);
  f("ffn", a.ffn, b.ffn);
  f("ffn_kind", static_cast<int>(a.ffn_kind), static_cast<int>(b.ffn_kind));
  f("tied_embeddings", a.tied_embeddings, b.tied_embeddings);
  f("attention_bias", a.attention_bias, b.attention_bias);
  f("attention_out_bias", a.attention_out_bias, b.attention_out_bias);
  f("ffn_bias", a.ffn_bias, b.ffn_bias);
  f("qk_norm", a.qk_norm, b.qk_norm);
  f("attention_sinks", a.attention_sinks, b.attention_sinks);
  f("norms_per_layer", a.norms_per_layer, b.norms_per_layer);
  f("layernorm_bias", a.layernorm_bias, b.layernorm_bias);
  f("sliding_window", a.sliding_window, b.sliding_window);
  f("sliding_window_layers", a.sliding_window_layers, b.sliding_window_layers);
  if (compare_max_context) f("max_context", a.max_context, b.max_context);
  f("rope_theta", a.rope_theta, b.rope_theta);
  f("moe", a.moe.has_value(), b.moe.has_value());
  if (a.moe && b.moe) {
    f("moe.experts", a.moe->experts, b.moe->experts);
    f("moe.active_experts", a.moe->active_experts, b.moe->active_experts);
    f("moe.shared_experts", a.moe->shared_experts, b.moe->shared_experts);
    f("moe.expert_ffn", a.moe->expert_ffn, b.moe->expert_ffn);
    f("moe.shared_expert_ffn", a.moe->shared_expert_ffn, b.moe->shared_expert_ffn);
    f("moe.dense_layers", a.moe->dense_layers, b.moe->dense_layers);
    f("moe.router_bias", a.moe->router_bias, b.moe->router_bias);
  }
  f("chunked_window", a.chunked_window, b.chunked_window);
  f("attention_output_gate", a.attention_output_gate, b.attention_output_gate);
  f("mixer_free_layers", a.mixer_free_layers, b.mixer_free_layers);
  f("ffn_free_layers", a.ffn_free_layers, b.ffn_free_layers);
  if (a.moe && b.moe) f("moe.shared_expert_gate", a.moe->shared_expert_gate, b.moe->shared_expert_gate);
  f("state", a.state.has_value(), b.state.has_value());
  if (a.state && b.state) {
    const StateSpec &x = *a.state, &y = *b.state;
    f("state.kind", static_cast<int>(x.kind), static_cast<int>(y.kind));
    f("state.layers", x.layers, y.layers);
    f("state.parallel", x.parallel, y.parallel);
    f("state.inner", x.inner, y.inner);
    f("state.heads", x.heads, y.heads);
    f("state.head_dim", x.head_dim, y.head_dim);
    f("state.key_heads", x.key_heads, y.key_heads);
    f("state.key_head_dim", x.key_head_dim, y.key_head_dim);
    f("state.state_dim", x.state_dim, y.state_dim);
    f("state.groups", x.groups, y.groups);
    f("state.conv_kernel", x.conv_kernel, y.conv_kernel);
    f("state.dt_rank", x.dt_rank, y.dt_rank);
    f("state.conv_bias", x.conv_bias, y.conv_bias);
    f("state.proj_bias", x.proj_bias, y.proj_bias);
    f("state.gated_norm", x.gated_norm, y.gated_norm);
    f("state.ssm_state_fp32", x.ssm_state_fp32, y.ssm_state_fp32);
  }
  f("sparse", a.sparse.has_value(), b.sparse.has_value());
  if (a.sparse && b.sparse) {
    f("sparse.index_heads", a.sparse->index_heads, b.sparse->index_heads);
    f("sparse.index_head_dim", a.sparse->index_head_dim, b.sparse->index_head_dim);
    f("sparse.topk", a.sparse->topk, b.sparse->topk);
  }
  f("mla", a.mla.has_value(), b.mla.has_value());
  if (a.mla && b.mla) {
    f("mla.kv_lora_rank", a.mla->kv_lora_rank, b.mla->kv_lora_rank);
    f("mla.q_lora_rank", a.mla->q_lora_rank, b.mla->q_lora_rank);
    f("mla.qk_rope_head_dim", a.mla->qk_rope_head_dim, b.mla->qk_rope_head_dim);
    f("mla.qk_nope_head_dim", a.mla->qk_nope_head_dim, b.mla->qk_nope_head_dim);
    f("mla.v_head_dim", a.mla->v_head_dim, b.mla->v_head_dim);
  }
  return d.str();
}

}  // namespace rooftop::test
