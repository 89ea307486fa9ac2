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
#define SAME(field) f(#field, a.field, b.field)  // the field's own spelling names it in the diff
  SAME(vocab);
  SAME(hidden);
  SAME(layers);
  SAME(heads);
  SAME(kv_heads);
  SAME(head_dim);
  SAME(ffn);
  f("ffn_kind", static_cast<int>(a.ffn_kind), static_cast<int>(b.ffn_kind));
  SAME(tied_embeddings);
  SAME(attention_bias);
  SAME(attention_out_bias);
  SAME(ffn_bias);
  SAME(qk_norm);
  SAME(attention_sinks);
  SAME(norms_per_layer);
  SAME(layernorm_bias);
  SAME(sliding_window);
  SAME(sliding_window_layers);
  if (compare_max_context) SAME(max_context);
  SAME(rope_theta);
  f("moe", a.moe.has_value(), b.moe.has_value());
  if (a.moe && b.moe) {
    SAME(moe->experts);
    SAME(moe->active_experts);
    SAME(moe->shared_experts);
    SAME(moe->expert_ffn);
    SAME(moe->shared_expert_ffn);
    SAME(moe->dense_layers);
    SAME(moe->router_bias);
  }
  SAME(chunked_window);
  SAME(attention_output_gate);
  SAME(mixer_free_layers);
  SAME(ffn_free_layers);
  if (a.moe && b.moe) SAME(moe->shared_expert_gate);
  f("state", a.state.has_value(), b.state.has_value());
  if (a.state && b.state) {
    const StateSpec &x = *a.state, &y = *b.state;
    f("state.kind", static_cast<int>(x.kind), static_cast<int>(y.kind));
    SAME(state->layers);
    SAME(state->parallel);
    SAME(state->inner);
    SAME(state->heads);
    SAME(state->head_dim);
    SAME(state->key_heads);
    SAME(state->key_head_dim);
    SAME(state->state_dim);
    SAME(state->groups);
    SAME(state->conv_kernel);
    SAME(state->dt_rank);
    SAME(state->conv_bias);
    SAME(state->proj_bias);
    SAME(state->gated_norm);
    SAME(state->ssm_state_fp32);
  }
  f("sparse", a.sparse.has_value(), b.sparse.has_value());
  if (a.sparse && b.sparse) {
    SAME(sparse->index_heads);
    SAME(sparse->index_head_dim);
    SAME(sparse->topk);
  }
  f("mla", a.mla.has_value(), b.mla.has_value());
  if (a.mla && b.mla) {
    SAME(mla->kv_lora_rank);
    SAME(mla->q_lora_rank);
    SAME(mla->qk_rope_head_dim);
    SAME(mla->qk_nope_head_dim);
    SAME(mla->v_head_dim);
  }
#undef SAME
  return d.str();
}

}  // namespace rooftop::test
