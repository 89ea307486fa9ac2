// pass_work: per-operation FLOPs and bytes of one forward pass (prefill or decode) of a transformer.
#include "analyzer/work.h"

#include <algorithm>
#include <cmath>

namespace rooftop {

double expected_experts_touched(int64_t experts, int64_t k, double tokens) {
  if (experts <= 0) return 0;
  const double e = static_cast<double>(experts);
  return e * (1.0 - std::pow(1.0 - static_cast<double>(k) / e, tokens));
}

namespace {

template <class Pred>
double group_params(const std::vector<TensorGroup>& groups, Pred pred) {
  double n = 0;
  for (const auto& t : groups)
    if (pred(t)) n += t.params();
  return n;
}

// (input width, share of the weights) of the matrices matching a predicate; biases and norms (rows 1) left out.
template <class Pred>
std::vector<std::pair<double, double>> group_widths(const std::vector<TensorGroup>& groups, Pred pred) {
  std::vector<std::pair<double, double>> widths;
  double total = 0;
  for (const auto& t : groups) {
    if (!pred(t) || t.rows <= 1) continue;
    total += t.params();
    auto it = std::find_if(widths.begin(), widths.end(), [&](const auto& w) { return w.first == static_cast<double>(t.cols); });
    if (it == widths.end()) widths.emplace_back(static_cast<double>(t.cols), t.params());
    else it->second += t.params();
  }
  for (auto& w : widths) w.second /= total;
  return widths;
}

// A class's stored matrices where they mix formats (else empty: the class's one format and widths serve).
std::vector<StoredMatrices> mixed_parts(const PrecisionPlan& p, ParamClass c) {
  const auto it = p.stored_matrices.find(c);
  if (it == p.stored_matrices.end() || it->second.empty()) return {};
  for (const auto& m : it->second)
    if (m.format != it->second.front().format) return it->second;
  return {};
}

void total_up(PassWork& w) {
  for (const auto& o : w.ops) {
    w.flops += o.flops;
    w.weight_bytes += o.weight_bytes;
    w.act_bytes += o.act_bytes;
    w.kv_read_bytes += o.kv_read_bytes;
    w.kv_write_bytes += o.kv_write_bytes;
  }
}

}  // namespace

PassWork cache_work(const ModelSpec& m, const PrecisionPlan& p, const PassShape& s) {
  PassWork w;
  const double T = static_cast<double>(s.seqs * s.new_tokens);
  const double A = static_cast<double>(attention_layers(m));
  // Attention over the cache: QK^T and AV, 2 FLOPs per multiply-add, per head, per (query, key) pair.
  {
    OpCost o{"attention", "attention", p.kv_format().name};
    const double qk_dim = m.mla ? static_cast<double>(m.mla->kv_lora_rank + m.mla->qk_rope_head_dim)
                                : static_cast<double>(m.head_dim);  // MLA absorbed: scores in latent space
    const double v_dim = m.mla ? static_cast<double>(m.mla->kv_lora_rank) : static_cast<double>(m.head_dim);
    const double heads = static_cast<double>(m.heads);
    const int64_t windowed = m.sliding_window > 0 ? m.sliding_window_layers : 0;
    const double kv_token_layer = kv_elements_per_token_layer(m) * p.kv_format().bytes_per_value();
    // Keys each new token attends to: context_before + i + 1 (causal), capped at the window; a chunked
    // window sees only its own chunk's earlier tokens.
    auto seen = [&](int64_t tokens, int64_t cap) {
      return cap <= 0 ? tokens : (m.chunked_window ? (tokens - 1) % cap + 1 : std::min(tokens, cap));
    };
    auto pairs = [&](int64_t cap) {
      double sum = 0;
      const int64_t n = s.new_tokens, c0 = s.context_before;
      if (cap <= 0) {  // closed form: sum_{i=1..n} (c0 + i)
        sum = static_cast<double>(n) * static_cast<double>(c0) + static_cast<double>(n) * static_cast<double>(n + 1) / 2.0;
      } else {
        for (int64_t i = 1; i <= n; ++i) sum += static_cast<double>(seen(c0 + i, cap));
      }
      return sum;
    };
    auto held = [&](int64_t cap) { return static_cast<double>(seen(s.context_before + s.new_tokens, cap)); };
    const double global_layers = A - static_cast<double>(windowed);
    const double w_layers = static_cast<double>(windowed);
    const double seqs = static_cast<double>(s.seqs);
    // Sparse attention reads only the top-k tokens the indexer picks: as a window for the arithmetic and the
    // reads (the cache still holds every token).
    const int64_t global_cap = m.sparse ? m.sparse->topk : 0;
    const double pair_sum = global_layers * pairs(global_cap) + w_layers * pairs(m.sliding_window);
    o.flops = seqs * pair_sum * heads * 2.0 * (qk_dim + v_dim);
    // Every sequence reads its own cache once per pass (FlashAttention keeps tiles on chip).
    o.kv_read_bytes = seqs * (global_layers * held(global_cap) + w_layers * held(m.sliding_window)) * kv_token_layer;
    o.kv_write_bytes = T * A * kv_token_layer;
    o.count = A;
    o.query_rows = T * heads * A;
    w.ops.push_back(o);
    if (m.sparse) {  // the indexer scores every cached token: index_heads dot products of index_head_dim each
      OpCost x{"indexer", "attention", "fp8"};
      const double key_bytes = index_key_bytes_per_token_layer(m);
      x.flops = seqs * global_layers * pairs(0) * 2.0 * static_cast<double>(m.sparse->index_heads * m.sparse->index_head_dim);
      x.kv_read_bytes = seqs * global_layers * held(0) * key_bytes;
      x.kv_write_bytes = T * A * key_bytes;
      x.count = A;
      w.ops.push_back(x);
    }
  }
  // Recurrent state layers (hybrid models): each sequence reads and writes its fixed state once per pass
  // (a prefill scans its tokens with the state on chip), and every token runs the recurrence.
  if (m.state) {
    OpCost o{"state", "attention", m.state->ssm_state_fp32 ? "fp32" : "bf16"};
    const double n = static_cast<double>(m.state->layers);
    o.flops = T * n * state_flops_per_token_layer(*m.state);
    o.kv_read_bytes = o.kv_write_bytes = static_cast<double>(s.seqs) * state_bytes_per_sequence(m);
    o.count = n;
    w.ops.push_back(o);
  }
  total_up(w);
  return w;
}

PassWork pass_work(const ModelSpec& m, const PrecisionPlan& p, const PassShape& s, double act_bytes_per_value) {
  const auto groups = tensor_groups(m);
  const double T = static_cast<double>(s.seqs * s.new_tokens);  // tokens in this pass
  const double L = static_cast<double>(m.layers);
  const double d = static_cast<double>(m.hidden);
  const double a = act_bytes_per_value;
  const WeightBytes stored = weight_bytes(groups, p);  // every class's bytes, as stored (formats or a file's table)
  PassWork w;
  auto cls_is = [](ParamClass c) { return [c](const TensorGroup& t) { return t.cls == c && t.rows > 1; }; };

  // Embedding lookup: one row per token, not the whole matrix.
  {
    OpCost o{"embed", "other", p.format_of(ParamClass::embeddings).name};
    o.weight_bytes = T * (p.stored_bytes.count(ParamClass::embeddings)
                              ? stored.of(ParamClass::embeddings) / static_cast<double>(m.vocab)
                              : p.format_of(ParamClass::embeddings).bytes_for(1, m.hidden));
    o.act_bytes = T * d * a;
    w.ops.push_back(o);
  }
  // Attention projections: 2 FLOPs per weight per token.
  {
    OpCost o{"attn_proj", "matmul", p.format_of(ParamClass::attention).name};
    const double params = group_params(groups, cls_is(ParamClass::attention));
    o.flops = 2.0 * params * T;
    o.weight_bytes = stored.of(ParamClass::attention);
    o.widths = group_widths(groups, cls_is(ParamClass::attention));
    o.parts = mixed_parts(p, ParamClass::attention);
    const double qdim = m.mla ? static_cast<double>(m.heads * (m.mla->qk_nope_head_dim + m.mla->qk_rope_head_dim))
                              : static_cast<double>(m.heads * m.head_dim);
    // Each projection reads its input and writes its output, as separate matmuls (rooftop's engine; a fused QKV
    // reads x once): in x three times and the attention output, out q, k, v and o. Counting x once and K/V not at
    // all priced SmolLM2's q/k/v/o GEMMs 20-35% fast on a calibrated CPU, where a GEMM pays its activations per
    // byte (docs/validate-files.md, stop 39). MLA's latent projections: the older approximation. State layers
    // (hybrid models) are counted with attention's shapes.
    const double kvdim = static_cast<double>(m.kv_heads * m.head_dim);
    o.act_bytes = L * T * (m.mla ? 2.0 * d + 2.0 * qdim : 4.0 * d + 2.0 * qdim + 2.0 * kvdim) * a;
    o.count = L;
    w.ops.push_back(o);
  }
  for (auto& o : cache_work(m, p, s).ops) w.ops.push_back(std::move(o));
  // Dense FFN layers.
  {
    const double params = group_params(groups, cls_is(ParamClass::dense_ffn));
    if (params > 0) {
      OpCost o{"ffn", "matmul", p.format_of(ParamClass::dense_ffn).name};
      o.flops = 2.0 * params * T;
      o.weight_bytes = stored.of(ParamClass::dense_ffn);
      o.widths = group_widths(groups, cls_is(ParamClass::dense_ffn));
      o.parts = mixed_parts(p, ParamClass::dense_ffn);
      const double dense_layers = static_cast<double>(dense_ffn_layers(m));
      // Gated (gate, up, down): in d, d, F; out F, F, d. Plain (up, down): in d, F; out F, d.
      const double mats = m.ffn_kind == FfnKind::gelu ? 2.0 : 3.0;
      o.act_bytes = dense_layers * T * mats * (d + static_cast<double>(m.ffn)) * a;
      o.count = dense_layers;
      w.ops.push_back(o);
    }
  }
  // MoE: router, shared experts, and the routed experts that this pass's tokens touch.
  if (m.moe) {
    const auto& e = *m.moe;
    const double moe_layers = static_cast<double>(rooftop::moe_layers(m));
    for (ParamClass c : {ParamClass::router, ParamClass::shared_experts}) {
      const double params = group_params(groups, cls_is(c));
      if (params <= 0) continue;
      OpCost o{param_class_name(c), "matmul", p.format_of(c).name};
      o.flops = 2.0 * params * T;
      o.weight_bytes = stored.of(c);
      o.widths = group_widths(groups, cls_is(c));
      o.parts = mixed_parts(p, c);
      o.count = moe_layers;
      w.ops.push_back(o);
    }
    OpCost o{"experts", "matmul", p.format_of(ParamClass::experts).name};
    const double all = group_params(groups, cls_is(ParamClass::experts));
    const double per_expert = all / static_cast<double>(e.experts);
    // Skewed routing: the batch's tokens land on a hot subset of the experts (at least the top-k).
    const int64_t hot = std::clamp<int64_t>(std::llround(static_cast<double>(e.experts) * s.moe_expert_fraction),
                                            e.active_experts, e.experts);
    const double touched = expected_experts_touched(hot, e.active_experts, T);
    w.experts_touched = touched;
    o.widths = group_widths(groups, cls_is(ParamClass::experts));
    o.parts = mixed_parts(p, ParamClass::experts);
    o.flops = 2.0 * per_expert * static_cast<double>(e.active_experts) * T;
    o.weight_bytes = stored.of(ParamClass::experts) *
                     touched / static_cast<double>(e.experts);
    o.act_bytes = moe_layers * T * static_cast<double>(e.active_experts) *
                  (3.0 * d + 3.0 * static_cast<double>(e.expert_ffn)) * a;  // as the dense FFN's gated matmuls
    o.count = moe_layers;
    w.ops.push_back(o);
  }
  // LM head: logits for the last token of each sequence (all tokens when asked).
  {
    const ParamClass c = m.tied_embeddings ? ParamClass::embeddings : ParamClass::lm_head;
    OpCost o{"lm_head", "matmul", p.format_of(c).name};
    const double rows = s.logits_for_all ? T : static_cast<double>(s.seqs);
    o.flops = 2.0 * static_cast<double>(m.vocab) * d * rows;
    o.weight_bytes = p.stored_bytes.count(c) ? stored.of(c) : p.format_of(c).bytes_for(m.vocab, m.hidden);
    o.widths = {{d, 1.0}};
    o.act_bytes = rows * (d * a + static_cast<double>(m.vocab) * 4.0);
    w.ops.push_back(o);
  }
  // Norms and residual adds: small, memory-side.
  {
    OpCost o{"norms", "other", "fp32"};
    o.weight_bytes = stored.of(ParamClass::norms);
    o.flops = T * d * 4.0 * static_cast<double>(m.norms_per_layer + 1) * L;
    o.act_bytes = T * d * a * 4.0 * L;
    o.count = L;
    w.ops.push_back(o);
  }
  {
    double ffn_width = static_cast<double>(m.ffn);
    if (m.moe) {
      const auto& e = *m.moe;
      const double shared_ffn = static_cast<double>(e.shared_expert_ffn > 0 ? e.shared_expert_ffn : e.expert_ffn);
      ffn_width = static_cast<double>(e.active_experts * e.expert_ffn) + static_cast<double>(e.shared_experts) * shared_ffn;
    }
    // Each norm and the two residual adds touch d values; Gemma 3's post-norms sit in its residuals. RoPE touches
    // q and k, and a per-head q/k norm touches them again. Gemma 3 270M: 8,448 values a token, not 5,888 (its
    // small ops measured 2x the per-value cost over the older count; docs/validate-files.md, stop 39).
    const double qk = static_cast<double>((m.heads + m.kv_heads) * m.head_dim) * (m.qk_norm ? 2.0 : 1.0);
    w.elementwise_values = static_cast<double>(m.norms_per_layer + 2) * d + qk + ffn_width;
    w.norm_values = static_cast<double>(std::min<int64_t>(m.norms_per_layer, 2)) * d;
    w.tokens = T;
    w.seqs = static_cast<double>(s.seqs);
  }
  total_up(w);
  return w;
}

PassWork pass_work_simple(const ModelSpec& m, const PrecisionPlan& p, const PassShape& s) {
  const ParamCounts pc = count_params(m);
  const double T = static_cast<double>(s.seqs * s.new_tokens);
  PassWork w;
  OpCost o{"weights", "matmul", p.weights};
  o.flops = 2.0 * pc.active * T;
  o.weight_bytes = weight_bytes(m, p).total;
  if (m.moe) o.weight_bytes *= pc.active / pc.total;  // seed 002: only the active experts' weights are read
  w.ops.push_back(o);
  total_up(w);
  return w;
}

}  // namespace rooftop
