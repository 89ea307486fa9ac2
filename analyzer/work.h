// Work of one forward pass: FLOPs and bytes per operation, written once for prefill and decode alike.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/memory.h"

namespace rooftop {

// One operation of a pass. Bytes are split by what they are, so a reader can see where traffic goes.
struct OpCost {
  std::string name;          // "attn_qkv", "attention", "ffn", "experts", "lm_head" ...
  std::string kind;          // "matmul" (weights), "attention" (KV), "other"
  std::string weight_format; // format of the weights this op reads ("" for attention)
  double flops = 0;
  double weight_bytes = 0;   // weights read (once per pass)
  double act_bytes = 0;      // activations read and written
  double kv_read_bytes = 0;
  double kv_write_bytes = 0;
  double count = 1;          // how many times the op runs per pass (layers)
  double query_rows = 0;     // attention: (new token, query head) rows over all its layers, each with fixed work
  // matmul: each input width k of the op's matrices and its share of the op's weights (shares sum to 1),
  // so a kernel rate that depends on k (per-row overhead, partial SIMD groups) can be applied per width.
  std::vector<std::pair<double, double>> widths = {};
  // matmul over a file's mixed formats: its matrices by (format, width); empty when one format holds them all.
  std::vector<StoredMatrices> parts = {};
  double bytes() const { return weight_bytes + act_bytes + kv_read_bytes + kv_write_bytes; }
};

// A pass over `seqs` sequences, each adding `new_tokens` after `context_before` cached tokens.
// Prefill of P tokens: (1, P, 0). Decode step at batch B and context C: (B, 1, C).
struct PassShape {
  int64_t seqs = 1;
  int64_t new_tokens = 1;
  int64_t context_before = 0;
  bool logits_for_all = false;  // prefill computes logits only for the last token unless set
  double moe_expert_fraction = 1;  // routed tokens spread uniformly over this fraction of the experts (skew)
};

struct PassWork {
  std::vector<OpCost> ops;   // totals over layers (count folded in)
  double flops = 0, weight_bytes = 0, act_bytes = 0, kv_read_bytes = 0, kv_write_bytes = 0;
  double bytes() const { return weight_bytes + act_bytes + kv_read_bytes + kv_write_bytes; }
  double intensity() const { return flops / bytes(); }
  double experts_touched = 0;  // expected distinct routed experts per MoE layer (0 for dense)
  // Values the small per-token ops of one layer touch for ONE token: its RMSNorms and 2 residual adds
  // ((norms + 2) x hidden), RoPE on q and k ((heads + kv_heads) x head_dim; twice with per-head q/k norms), the
  // gated activation (FFN width; MoE: the active experts'). A CPU pays them once per token (calibrated per value,
  // at Llama-3.1-8B's shape: 2 norms).
  double elementwise_values = 0;
  double norm_values = 0;  // of elementwise_values: the attention and FFN input norms' (2 x d; the engine's "norms" stage)
  double tokens = 0;  // tokens in the pass (sequences x new tokens)
  double seqs = 0;    // sequences in the pass
};

// Faithful accounting: attention FLOPs grow with context (causal half in prefill), KV read for every
// sequence, KV written, activations, MoE expert coverage at batch > 1, embedding rows only.
PassWork pass_work(const ModelSpec& m, const PrecisionPlan& p, const PassShape& s, double act_bytes_per_value = 2.0);

// The pass's operations on the caches alone: attention over the KV cache (and sparse attention's indexer),
// the recurrent state's read, write and recurrence. Cheap (no weight inventory): a serving simulator prices
// each sequence's slice of a mixed step with it.
PassWork cache_work(const ModelSpec& m, const PrecisionPlan& p, const PassShape& s);

// The seeds' simplification: FLOPs = 2 x active params x tokens, bytes = all weights once.
PassWork pass_work_simple(const ModelSpec& m, const PrecisionPlan& p, const PassShape& s);

// Expected distinct experts (of E) that N tokens touch when each picks k uniformly:
// E x (1 - (1 - k/E)^N). Seed 002 reads only k per token; at batch > 1 more experts are read.
double expected_experts_touched(int64_t experts, int64_t k, double tokens);

}  // namespace rooftop
