// parse_card: one model card (YAML) into a ModelSpec, rejecting unknown, duplicate, mistyped or negative keys.
#include <yaml-cpp/yaml.h>

#include <functional>
#include <map>
#include <set>

#include "base/suggest.h"
#include "base/limits.h"
#include "analyzer/params.h"
#include "base/yaml.h"
#include "models/models.h"

namespace rooftop::models {
namespace {

// Errors name "file:model:key: what".
struct CardContext {
  const std::string& file;
  std::string model = "?";
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw InputError(file + ":" + model + ":" + key + ": " + what);
  }
};

std::string node_text(const YAML::Node& n) {
  return n.IsScalar() ? "'" + printable(n.Scalar()) + "'" : (n.IsMap() ? "a map" : (n.IsSequence() ? "a list" : "null"));
}

int64_t read_int(const CardContext& c, const std::string& key, const YAML::Node& n) {
  int64_t v = 0;
  if (!n.IsScalar() || !YAML::convert<int64_t>::decode(n, v))
    c.fail(key, "expected a whole number, got " + node_text(n));
  if (v < 0) c.fail(key, "must be >= 0, got " + std::to_string(v));
  return v;
}

double read_double(const CardContext& c, const std::string& key, const YAML::Node& n) {
  double v = 0;
  if (!n.IsScalar() || !YAML::convert<double>::decode(n, v) || !(v == v) || v > 1e300)
    c.fail(key, "expected a number, got " + node_text(n));
  if (v < 0) c.fail(key, "must be >= 0, got " + n.Scalar());
  return v;
}

bool read_bool(const CardContext& c, const std::string& key, const YAML::Node& n) {
  const std::string s = n.IsScalar() ? n.Scalar() : "";
  if (s == "true") return true;
  if (s == "false") return false;
  c.fail(key, "expected true or false, got " + node_text(n));
}

std::string read_string(const CardContext& c, const std::string& key, const YAML::Node& n) {
  if (!n.IsScalar() || n.Scalar().empty()) c.fail(key, "expected a non-empty string, got " + node_text(n));
  return n.Scalar();
}

FfnKind read_ffn_kind(const CardContext& c, const std::string& key, const YAML::Node& n) {
  const std::string s = n.IsScalar() ? n.Scalar() : "";
  if (s == "swiglu" || s == "geglu") return FfnKind::swiglu;  // gated: gate, up, down (3 matrices)
  if (s == "gelu") return FfnKind::gelu;                        // plain: up, down (2 matrices)
  c.fail(key, "expected swiglu, geglu or gelu, got " + node_text(n));
}

// Walks a YAML map, rejecting duplicate and unknown keys, and hands each value to its handler.
using Handler = std::function<void(const std::string& key, const YAML::Node& value)>;
void walk_map(const CardContext& c, const std::string& prefix, const YAML::Node& map,
              const std::map<std::string, Handler>& handlers) {
  if (!map.IsMap()) c.fail(prefix.empty() ? "(top level)" : prefix, "expected a map of keys, got " + node_text(map));
  std::vector<std::string> valid;
  for (const auto& [k, h] : handlers) valid.push_back(k);
  std::set<std::string> seen;
  for (const auto& kv : map) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "?";
    const std::string full = prefix.empty() ? key : prefix + "." + key;
    if (!seen.insert(key).second) c.fail(full, "duplicate key (yaml keeps only one of them; remove the other)");
    auto it = handlers.find(key);
    if (it == handlers.end()) {
      std::string msg = "unknown key";
      auto near = closest_matches(key, valid);
      if (!near.empty()) msg += "; did you mean " + near.front() + "?";
      c.fail(full, msg);
    }
    it->second(full, kv.second);
  }
}

}  // namespace

ModelSpec parse_card(std::string_view yaml_text, const std::string& file) {
  CardContext c{file};
  const YAML::Node root = parse_yaml(yaml_text, file);
  if (root.IsMap() && root["id"] && root["id"].IsScalar()) c.model = root["id"].Scalar();

  ModelSpec m;
  // Handlers store into a field through a pointer captured by value.
  auto I = [&c](int64_t& dst) { return [&c, p = &dst](const std::string& k, const YAML::Node& n) { *p = read_int(c, k, n); }; };
  auto B = [&c](bool& dst) { return [&c, p = &dst](const std::string& k, const YAML::Node& n) { *p = read_bool(c, k, n); }; };
  auto S = [&c](std::string& dst) {
    return [&c, p = &dst](const std::string& k, const YAML::Node& n) { *p = read_string(c, k, n); };
  };
  auto D = [&c](double& dst) { return [&c, p = &dst](const std::string& k, const YAML::Node& n) { *p = read_double(c, k, n); }; };
  auto OD = [&c](std::optional<double>& dst) {
    return [&c, p = &dst](const std::string& k, const YAML::Node& n) { *p = read_double(c, k, n); };
  };

  MoeSpec moe;
  MlaSpec mla;
  StateSpec state;
  SparseAttentionSpec sparse;
  const std::map<std::string, Handler> sparse_keys = {
      {"index_heads", I(sparse.index_heads)}, {"index_head_dim", I(sparse.index_head_dim)}, {"topk", I(sparse.topk)}};
  auto state_kind = [&c, &state](const std::string& k, const YAML::Node& n) {
    const std::string v = n.IsScalar() ? n.Scalar() : "";
    for (StateKind kind : {StateKind::mamba, StateKind::mamba2, StateKind::gated_deltanet})
      if (v == state_kind_name(kind)) return void(state.kind = kind);
    c.fail(k, "expected mamba, mamba2 or gated_deltanet, got " + node_text(n));
  };
  const std::map<std::string, Handler> state_keys = {
      {"kind", state_kind},
      {"layers", I(state.layers)},          {"parallel", B(state.parallel)},
      {"inner", I(state.inner)},            {"heads", I(state.heads)},
      {"head_dim", I(state.head_dim)},      {"key_heads", I(state.key_heads)},
      {"key_head_dim", I(state.key_head_dim)}, {"state_dim", I(state.state_dim)},
      {"groups", I(state.groups)},          {"conv_kernel", I(state.conv_kernel)},
      {"dt_rank", I(state.dt_rank)},        {"conv_bias", B(state.conv_bias)},
      {"proj_bias", B(state.proj_bias)},    {"gated_norm", B(state.gated_norm)},
      {"ssm_state_fp32", B(state.ssm_state_fp32)},
  };
  const std::map<std::string, Handler> moe_keys = {
      {"experts", I(moe.experts)},           {"active_experts", I(moe.active_experts)},
      {"shared_experts", I(moe.shared_experts)}, {"expert_ffn", I(moe.expert_ffn)},
      {"shared_expert_ffn", I(moe.shared_expert_ffn)}, {"dense_layers", I(moe.dense_layers)},
      {"router_bias", B(moe.router_bias)},   {"shared_expert_gate", B(moe.shared_expert_gate)},
  };
  const std::map<std::string, Handler> mla_keys = {
      {"kv_lora_rank", I(mla.kv_lora_rank)},         {"q_lora_rank", I(mla.q_lora_rank)},
      {"qk_rope_head_dim", I(mla.qk_rope_head_dim)}, {"qk_nope_head_dim", I(mla.qk_nope_head_dim)},
      {"v_head_dim", I(mla.v_head_dim)},
  };
  const std::map<std::string, Handler> keys = {
      {"id", S(m.id)},
      {"name", S(m.name)},
      {"family", S(m.family)},
      {"source", S(m.source)},
      {"vocab", I(m.vocab)},
      {"hidden", I(m.hidden)},
      {"layers", I(m.layers)},
      {"heads", I(m.heads)},
      {"kv_heads", I(m.kv_heads)},
      {"head_dim", I(m.head_dim)},
      {"ffn", I(m.ffn)},
      {"ffn_kind", [&](const std::string& k, const YAML::Node& n) { m.ffn_kind = read_ffn_kind(c, k, n); }},
      {"tied_embeddings", B(m.tied_embeddings)},
      {"attention_bias", B(m.attention_bias)},
      {"attention_out_bias", B(m.attention_out_bias)},
      {"ffn_bias", B(m.ffn_bias)},
      {"qk_norm", B(m.qk_norm)},
      {"attention_sinks", B(m.attention_sinks)},
      {"norms_per_layer", I(m.norms_per_layer)},
      {"layernorm_bias", B(m.layernorm_bias)},
      {"moe", [&](const std::string& k, const YAML::Node& n) { walk_map(c, k, n, moe_keys); m.moe = moe; }},
      {"mla", [&](const std::string& k, const YAML::Node& n) { walk_map(c, k, n, mla_keys); m.mla = mla; }},
      {"sparse_attention", [&](const std::string& k, const YAML::Node& n) { walk_map(c, k, n, sparse_keys); m.sparse = sparse; }},
      {"sliding_window", I(m.sliding_window)},
      {"sliding_window_layers", I(m.sliding_window_layers)},
      {"chunked_window", B(m.chunked_window)},
      {"attention_output_gate", B(m.attention_output_gate)},
      {"state", [&](const std::string& k, const YAML::Node& n) {
         walk_map(c, k, n, state_keys);
         if (!n["kind"]) c.fail(k + ".kind", "missing (mamba, mamba2 or gated_deltanet)");
         if (state.kind == StateKind::mamba2 && !n["inner"]) {
           if (state.heads > limits::kHeads || state.head_dim > limits::kHidden)  // before the product can wrap
             c.fail(k + ".heads", "and head_dim must be at most " + std::to_string(limits::kHeads) + " and " + std::to_string(limits::kHidden));
           state.inner = state.heads * state.head_dim;
         }
         m.state = state;
       }},
      {"mixer_free_layers", I(m.mixer_free_layers)},
      {"ffn_free_layers", I(m.ffn_free_layers)},
      {"max_context", I(m.max_context)},
      {"rope_theta", D(m.rope_theta)},
      {"published_params", OD(m.published_params)},
      {"published_active_params", OD(m.published_active_params)},
  };
  walk_map(c, "", root, keys);

  for (const char* required : {"id", "name", "family", "source", "vocab", "hidden", "layers", "heads"})
    if (!root[required]) c.fail(required, "missing (every card needs id, name, family, source, vocab, hidden, layers, heads)");
  if (!m.moe && !root["ffn"]) c.fail("ffn", "missing (a dense model needs its FFN width)");
  // Defaults that follow from the rest: full multi-head attention, head_dim = hidden / heads.
  if (!root["kv_heads"]) m.kv_heads = m.heads;
  if (!root["head_dim"] && m.heads > 0) {
    if (m.hidden % m.heads != 0) c.fail("head_dim", "missing and hidden is not a multiple of heads; give it");
    m.head_dim = m.hidden / m.heads;
  }
  if (m.sliding_window > 0 && !root["sliding_window_layers"]) m.sliding_window_layers = attention_layers(m);
  try {
    validate_model(m);
  } catch (const InputError& e) {
    throw InputError(file + ":" + c.model + ": " + e.what());
  }
  return m;
}

}  // namespace rooftop::models
