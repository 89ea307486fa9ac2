// Parameter counts derived from a ModelSpec: every weight tensor group, and totals by class.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/model_spec.h"

namespace rooftop {

// Classes of weights (a format can be chosen per class, e.g. experts in mxfp4, attention in bf16).
enum class ParamClass { embeddings, attention, dense_ffn, experts, shared_experts, router, norms, lm_head };
inline constexpr int kParamClassCount = 8;
const char* param_class_name(ParamClass c);  // "embeddings", "attention", ...

// `count` identical matrices of (rows, cols): rows = output features, cols = input features
// (cols is the dimension a quantization block runs along). Vectors (biases, norms) have rows = 1.
struct TensorGroup {
  std::string name;   // "blk.*.attn_q", "blk.*.ffn_gate_exps" ...
  ParamClass cls;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t count = 0;  // how many such matrices in the whole model (layers x experts ...)
  double params() const { return static_cast<double>(rows) * static_cast<double>(cols) * static_cast<double>(count); }
};

// Every weight tensor of the model, grouped. Throws InputError on an inconsistent spec.
std::vector<TensorGroup> tensor_groups(const ModelSpec& m);

struct ParamCounts {
  std::array<double, kParamClassCount> by_class{};  // indexed by ParamClass
  double total = 0;            // every stored weight
  double active = 0;           // weights used by one token: routed experts scaled by k / E
  double routed_per_expert = 0;// one routed expert's weights summed over all MoE layers
  // `active` less the untied input-embedding table, of which a token only looks up one row: the
  // weights that take part in a matrix product per token (OpenAI's "active" convention for gpt-oss).
  double active_matmul = 0;
  double of(ParamClass c) const { return by_class[static_cast<int>(c)]; }
};

ParamCounts count_params(const ModelSpec& m);

// Layer counts of hybrid models (every layer for a plain transformer); see ModelSpec's layer fields.
int64_t attention_layers(const ModelSpec& m);  // layers with attention, hence a KV cache
int64_t ffn_layers(const ModelSpec& m);        // layers with an FFN, dense or MoE
int64_t dense_ffn_layers(const ModelSpec& m);  // of those, dense
int64_t moe_layers(const ModelSpec& m);        // of those, experts

// Check a spec for impossible values (zero layers, heads not divisible by kv heads ...): InputError.
void validate_model(const ModelSpec& m);
// Every dimension within base/limits.h (InputError otherwise); validate_model calls it first. Importers
// call it before any loop over layers or products of dimensions.
void check_dimensions(const ModelSpec& m);

}  // namespace rooftop
