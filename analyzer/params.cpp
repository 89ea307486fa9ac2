// tensor_groups / count_params: the weight inventory of a transformer, derived from its architecture.
#include "analyzer/params.h"

#include <cmath>
#include <cstdio>

#include "base/limits.h"

#include "base/suggest.h"

namespace rooftop {

const char* param_class_name(ParamClass c) {
  switch (c) {
    case ParamClass::embeddings: return "embeddings";
    case ParamClass::attention: return "attention";
    case ParamClass::dense_ffn: return "dense_ffn";
    case ParamClass::experts: return "experts";
    case ParamClass::shared_experts: return "shared_experts";
    case ParamClass::router: return "router";
    case ParamClass::norms: return "norms";
    case ParamClass::lm_head: return "lm_head";
  }
  return "?";
}

const char* state_kind_name(StateKind k) {
  switch (k) {
    case StateKind::mamba: return "mamba";
    case StateKind::mamba2: return "mamba2";
    case StateKind::gated_deltanet: return "gated_deltanet";
  }
  return "?";
}

int64_t attention_layers(const ModelSpec& m) {
  return m.layers - m.mixer_free_layers - (m.state && !m.state->parallel ? m.state->layers : 0);
}
int64_t ffn_layers(const ModelSpec& m) { return m.layers - m.ffn_free_layers; }
int64_t dense_ffn_layers(const ModelSpec& m) { return m.moe ? m.moe->dense_layers : ffn_layers(m); }
int64_t moe_layers(const ModelSpec& m) { return m.moe ? ffn_layers(m) - m.moe->dense_layers : 0; }

namespace {
std::vector<TensorGroup> build_groups(const ModelSpec& m);
}

void check_dimensions(const ModelSpec& m) {
  using namespace limits;
  const std::string who = m.id.empty() ? "" : "model '" + m.id + "': ";
  auto in = [&](const char* what, int64_t v, int64_t hi) {
    if (v < 0 || v > hi) throw InputError(who + what + " is " + std::to_string(v) + "; expected 0 to " + std::to_string(hi));
  };
  in("layers", m.layers, kLayers);
  in("hidden", m.hidden, kHidden);
  in("ffn", m.ffn, kHidden);
  in("head_dim", m.head_dim, kHidden);
  in("heads", m.heads, kHeads);
  in("kv_heads", m.kv_heads, kHeads);
  in("vocab", m.vocab, kVocab);
  in("max_context", m.max_context, kContext);
  in("sliding_window", m.sliding_window, kContext);
  in("sliding_window_layers", m.sliding_window_layers, kLayers);
  in("norms_per_layer", m.norms_per_layer, 16);
  in("mixer_free_layers", m.mixer_free_layers, kLayers);
  in("ffn_free_layers", m.ffn_free_layers, kLayers);
  if (m.state) {
    const auto& s = *m.state;
    in("state.layers", s.layers, kLayers);
    in("state.inner", s.inner, kHidden);
    in("state.heads", s.heads, kHeads);
    in("state.head_dim", s.head_dim, kHidden);
    in("state.key_heads", s.key_heads, kHeads);
    in("state.key_head_dim", s.key_head_dim, kHidden);
    in("state.state_dim", s.state_dim, kHidden);
    in("state.groups", s.groups, kHeads);
    in("state.conv_kernel", s.conv_kernel, 64);
    in("state.dt_rank", s.dt_rank, kHidden);
  }
  if (m.moe) {
    in("moe.experts", m.moe->experts, kExperts);
    in("moe.active_experts", m.moe->active_experts, kExperts);
    in("moe.shared_experts", m.moe->shared_experts, kExperts);
    in("moe.expert_ffn", m.moe->expert_ffn, kHidden);
    in("moe.shared_expert_ffn", m.moe->shared_expert_ffn, kHidden);
    in("moe.dense_layers", m.moe->dense_layers, kLayers);
  }
  if (m.sparse) {
    in("sparse.index_heads", m.sparse->index_heads, kHeads);
    in("sparse.index_head_dim", m.sparse->index_head_dim, kHidden);
    in("sparse.topk", m.sparse->topk, kContext);
  }
  if (m.mla) {
    in("mla.kv_lora_rank", m.mla->kv_lora_rank, kHidden);
    in("mla.q_lora_rank", m.mla->q_lora_rank, kHidden);
    in("mla.qk_rope_head_dim", m.mla->qk_rope_head_dim, kHidden);
    in("mla.qk_nope_head_dim", m.mla->qk_nope_head_dim, kHidden);
    in("mla.v_head_dim", m.mla->v_head_dim, kHidden);
  }
  if (!(std::isfinite(m.rope_theta) && m.rope_theta >= 0))
    throw InputError(who + "rope_theta must be a finite number >= 0");
}

void validate_model(const ModelSpec& m) {
  auto bad = [&](const std::string& what) { throw InputError("model '" + m.id + "': " + what); };
  check_dimensions(m);
  if (m.vocab <= 0) bad("vocab must be > 0");
  if (m.hidden <= 0) bad("hidden must be > 0");
  if (m.layers <= 0) bad("layers must be > 0");
  if (m.heads <= 0) bad("heads must be > 0");
  if (m.mixer_free_layers + (m.state && !m.state->parallel ? m.state->layers : 0) >= m.layers)
    bad("no layer is left with attention (layers " + std::to_string(m.layers) + ", state layers and mixer-free layers " +
        std::to_string(m.layers - attention_layers(m)) + "); a model without attention is not supported");
  if (m.ffn_free_layers > m.layers) bad("ffn_free_layers must be in [0, layers]");
  if (m.sparse && (m.sparse->index_heads <= 0 || m.sparse->index_head_dim <= 0 || m.sparse->topk <= 0))
    bad("sparse attention needs index_heads, index_head_dim and topk > 0");
  if (m.state) {
    const auto& s = *m.state;
    if (s.layers <= 0 || s.layers > m.layers) bad("state.layers must be in [1, layers]");
    if (s.conv_kernel <= 0) bad("state.conv_kernel must be > 0");
    switch (s.kind) {
      case StateKind::mamba:
        if (s.inner <= 0 || s.state_dim <= 0 || s.dt_rank <= 0) bad("a mamba state needs inner, state_dim and dt_rank > 0");
        break;
      case StateKind::mamba2:
        if (s.heads <= 0 || s.head_dim <= 0 || s.state_dim <= 0 || s.groups <= 0)
          bad("a mamba2 state needs heads, head_dim, state_dim and groups > 0");
        if (s.inner != s.heads * s.head_dim)
          bad("state.inner (" + std::to_string(s.inner) + ") must equal state.heads x state.head_dim (" +
              std::to_string(s.heads * s.head_dim) + ")");
        break;
      case StateKind::gated_deltanet:
        if (s.heads <= 0 || s.head_dim <= 0 || s.key_heads <= 0 || s.key_head_dim <= 0)
          bad("a gated_deltanet state needs heads, head_dim, key_heads and key_head_dim > 0");
        break;
    }
  }
  if (!m.mla) {
    if (m.kv_heads <= 0) bad("kv_heads must be > 0");
    if (m.heads % m.kv_heads != 0) bad("heads (" + std::to_string(m.heads) + ") must be a multiple of kv_heads (" + std::to_string(m.kv_heads) + ")");
    if (m.head_dim <= 0) bad("head_dim must be > 0");
  }
  if (m.moe) {
    const auto& e = *m.moe;
    if (e.experts <= 0 || e.active_experts <= 0 || e.active_experts > e.experts)
      bad("moe needs 0 < active_experts <= experts");
    if (e.expert_ffn <= 0) bad("moe.expert_ffn must be > 0");
    if (e.dense_layers < 0 || e.dense_layers > ffn_layers(m)) bad("moe.dense_layers must be in [0, layers with an FFN]");
    if (e.dense_layers > 0 && m.ffn <= 0) bad("dense layers need ffn > 0");
  } else if (m.ffn <= 0) {
    bad("ffn must be > 0");
  }
  if (m.sliding_window < 0 || m.sliding_window_layers < 0 || m.sliding_window_layers > attention_layers(m))
    bad("sliding_window_layers must be in [0, attention layers (" + std::to_string(attention_layers(m)) + ")]");
  double params = 0;
  for (const auto& t : build_groups(m)) params += t.params();
  if (params > limits::kParams)
  {
    char n[32];
    std::snprintf(n, sizeof n, "%.3g", params);
    bad(std::string("its dimensions give ") + n + " parameters; expected at most 1e15");
  }
}

namespace {
// The weights of the recurrent-state layers. Matrices are (output, input); the depthwise convolution,
// the per-channel decay (A_log), skip (D) and time-step bias and the norm are vectors (rows 1), kept in
// fp32 like every real file keeps them.
void add_state_groups(std::vector<TensorGroup>& g, const StateSpec& s, int64_t d) {
  const int64_t n = s.layers;
  auto add = [&](std::string name, int64_t rows, int64_t cols) {
    if (rows > 0 && cols > 0 && n > 0) g.push_back({std::move(name), ParamClass::attention, rows, cols, n});
  };
  switch (s.kind) {
    case StateKind::mamba: {  // in_proj -> (x, z); conv over x; x_proj -> (dt, B, C); dt_proj; out_proj
      add("blk.*.ssm_in", 2 * s.inner, d);
      add("blk.*.ssm_conv1d", 1, s.inner * s.conv_kernel + (s.conv_bias ? s.inner : 0));
      add("blk.*.ssm_x", s.dt_rank + 2 * s.state_dim, s.inner);
      add("blk.*.ssm_dt", s.inner, s.dt_rank);
      add("blk.*.ssm_dt_bias_a_d", 1, s.inner + s.inner * s.state_dim + s.inner);  // dt bias, A_log (inner x N), D
      add("blk.*.ssm_out", d, s.inner);
      if (s.proj_bias) add("blk.*.ssm_proj_bias", 1, 2 * s.inner + d);
      if (s.gated_norm) add("blk.*.ssm_dt_b_c_norm", 1, s.dt_rank + 2 * s.state_dim);  // Jamba's RMSNorms on dt, B, C
      break;
    }
    case StateKind::mamba2: {  // in_proj -> (z, x, B, C, dt); conv over (x, B, C); gated norm; out_proj
      const int64_t conv = s.inner + 2 * s.groups * s.state_dim;
      add("blk.*.ssm_in", 2 * s.inner + 2 * s.groups * s.state_dim + s.heads, d);
      add("blk.*.ssm_conv1d", 1, conv * s.conv_kernel + (s.conv_bias ? conv : 0));
      add("blk.*.ssm_dt_bias_a_d", 1, 3 * s.heads);
      if (s.gated_norm) add("blk.*.ssm_norm", 1, s.inner);
      add("blk.*.ssm_out", d, s.inner);
      if (s.proj_bias) add("blk.*.ssm_proj_bias", 1, 2 * s.inner + 2 * s.groups * s.state_dim + s.heads + d);
      break;
    }
    case StateKind::gated_deltanet: {  // in_proj -> (q, k, v, z) and (beta, a); conv over (q, k, v); gated norm; out_proj
      const int64_t qk = s.key_heads * s.key_head_dim, v = s.heads * s.head_dim;
      add("blk.*.ssm_in_qkvz", 2 * qk + 2 * v, d);
      add("blk.*.ssm_in_ba", 2 * s.heads, d);
      add("blk.*.ssm_conv1d", 1, (2 * qk + v) * s.conv_kernel + (s.conv_bias ? 2 * qk + v : 0));
      add("blk.*.ssm_dt_bias_a", 1, 2 * s.heads);
      if (s.gated_norm) add("blk.*.ssm_norm", 1, s.head_dim);
      add("blk.*.ssm_out", d, v);
      break;
    }
  }
}

// The groups of a model whose dimensions are within base/limits.h (every row and column count then
// fits int64; their products are taken in double by TensorGroup::params).
std::vector<TensorGroup> build_groups(const ModelSpec& m) {
  std::vector<TensorGroup> g;
  const int64_t L = m.layers, A = attention_layers(m), d = m.hidden;
  auto add = [&](std::string name, ParamClass c, int64_t rows, int64_t cols, int64_t count) {
    if (rows > 0 && cols > 0 && count > 0) g.push_back({std::move(name), c, rows, cols, count});
  };
  add("token_embd", ParamClass::embeddings, m.vocab, d, 1);
  if (!m.tied_embeddings) add("output", ParamClass::lm_head, m.vocab, d, 1);
  add("output_norm", ParamClass::norms, 1, d * (m.layernorm_bias ? 2 : 1), 1);
  add("blk.*.norms", ParamClass::norms, 1, d * (m.layernorm_bias ? 2 : 1), L * m.norms_per_layer);

  // Attention. Q and K have head_dim per head; V and the output use v_head_dim (MLA) or head_dim.
  if (m.mla) {
    const auto& a = *m.mla;
    const int64_t qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
    if (a.q_lora_rank > 0) {
      add("blk.*.attn_q_a", ParamClass::attention, a.q_lora_rank, d, A);
      add("blk.*.attn_q_a_norm", ParamClass::norms, 1, a.q_lora_rank, A);
      add("blk.*.attn_q_b", ParamClass::attention, m.heads * qk, a.q_lora_rank, A);
    } else {
      add("blk.*.attn_q", ParamClass::attention, m.heads * qk, d, A);
    }
    add("blk.*.attn_kv_a_mqa", ParamClass::attention, a.kv_lora_rank + a.qk_rope_head_dim, d, A);
    add("blk.*.attn_kv_a_norm", ParamClass::norms, 1, a.kv_lora_rank, A);
    add("blk.*.attn_kv_b", ParamClass::attention, m.heads * (a.qk_nope_head_dim + a.v_head_dim), a.kv_lora_rank, A);
    add("blk.*.attn_output", ParamClass::attention, d, m.heads * a.v_head_dim, A);
  } else {
    const int64_t q = m.heads * m.head_dim, kv = m.kv_heads * m.head_dim;
    add("blk.*.attn_q", ParamClass::attention, q * (m.attention_output_gate ? 2 : 1), d, A);
    add("blk.*.attn_k", ParamClass::attention, kv, d, A);
    add("blk.*.attn_v", ParamClass::attention, kv, d, A);
    add("blk.*.attn_output", ParamClass::attention, d, q, A);
    if (m.attention_bias) add("blk.*.attn_qkv_bias", ParamClass::attention, 1, q + 2 * kv, A);
    if (m.attention_out_bias) add("blk.*.attn_output_bias", ParamClass::attention, 1, d, A);
    if (m.qk_norm) add("blk.*.attn_qk_norm", ParamClass::norms, 1, 2 * m.head_dim, A);
  }
  if (m.attention_sinks) add("blk.*.attn_sinks", ParamClass::attention, 1, m.heads, A);
  if (m.sparse) {  // the lightning indexer: queries from the q latent (or x), one key, a LayerNorm, head weights
    const auto& x = *m.sparse;
    const int64_t q_in = m.mla && m.mla->q_lora_rank > 0 ? m.mla->q_lora_rank : d;
    add("blk.*.indexer.attn_q_b", ParamClass::attention, x.index_heads * x.index_head_dim, q_in, A);
    add("blk.*.indexer.attn_k", ParamClass::attention, x.index_head_dim, d, A);
    add("blk.*.indexer.k_norm", ParamClass::norms, 1, 2 * x.index_head_dim, A);
    add("blk.*.indexer.proj", ParamClass::attention, x.index_heads, d, A);
  }

  if (m.state) add_state_groups(g, *m.state, d);

  // Feed-forward: dense layers, then MoE layers (router, routed experts, shared experts).
  const int64_t mats = m.ffn_kind == FfnKind::swiglu ? 3 : 2;
  auto ffn = [&](const std::string& prefix, ParamClass c, int64_t f, int64_t count) {
    add(prefix + "_up", c, f, d, count);
    if (mats == 3) add(prefix + "_gate", c, f, d, count);
    add(prefix + "_down", c, d, f, count);
    if (m.ffn_bias) add(prefix + "_bias", c, 1, f * (mats - 1) + d, count);
  };
  ffn("blk.*.ffn", ParamClass::dense_ffn, m.ffn, dense_ffn_layers(m));
  if (m.moe) {
    const auto& e = *m.moe;
    const int64_t moe = moe_layers(m);
    add("blk.*.ffn_gate_inp", ParamClass::router, e.experts, d, moe);
    if (e.router_bias) add("blk.*.ffn_gate_inp_bias", ParamClass::router, 1, e.experts, moe);
    ffn("blk.*.ffn_exps", ParamClass::experts, e.expert_ffn, moe * e.experts);
    if (e.shared_experts > 0)
      ffn("blk.*.ffn_shexp", ParamClass::shared_experts, e.shared_expert_ffn > 0 ? e.shared_expert_ffn : e.expert_ffn,
          moe * e.shared_experts);
    if (e.shared_expert_gate) add("blk.*.ffn_gate_inp_shexp", ParamClass::shared_experts, 1, d, moe);
  }
  return g;
}
}  // namespace

std::vector<TensorGroup> tensor_groups(const ModelSpec& m) {
  validate_model(m);
  return build_groups(m);
}

ParamCounts count_params(const ModelSpec& m) {
  ParamCounts p;
  for (const auto& t : tensor_groups(m)) p.by_class[static_cast<int>(t.cls)] += t.params();
  for (double v : p.by_class) p.total += v;
  p.active = p.total;
  if (m.moe) {
    const double routed = p.of(ParamClass::experts);
    p.routed_per_expert = routed / static_cast<double>(m.moe->experts);
    p.active = p.total - routed + p.routed_per_expert * static_cast<double>(m.moe->active_experts);
  }
  p.active_matmul = p.active - (m.tied_embeddings ? 0.0 : p.of(ParamClass::embeddings));
  return p;
}

}  // namespace rooftop
