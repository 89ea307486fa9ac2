// from_hf_config: a Hugging Face config.json (llama, mistral, qwen2/3, mixtral, gemma3, gpt_oss, deepseek_v3) as a ModelSpec.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

#include "base/suggest.h"
#include "base/files.h"
#include "base/json.h"
#include "base/limits.h"
#include "analyzer/params.h"
#include "base/text.h"
#include "models/models.h"

namespace rooftop::models {
namespace {
using json = nlohmann::json;

// Typed access to one config object; errors name the file and the key.
struct Config {
  const json& j;
  const std::string& file;
  std::string model_type;

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw InputError(file + ": key '" + key + "' " + what + " (model_type " + model_type + ")");
  }
  bool has(const char* key) const { return j.contains(key) && !j.at(key).is_null(); }
  int64_t integer(const char* key) const {
    if (!has(key)) fail(key, "is missing");
    const json& v = j.at(key);
    if (!v.is_number_integer() || v.get<int64_t>() < 0) fail(key, "must be a whole number >= 0, got " + describe_json(v));
    return v.get<int64_t>();
  }
  int64_t integer(const char* key, int64_t fallback) const { return has(key) ? integer(key) : fallback; }
  // A whole number at most `max` (a dimension that is multiplied by another before any other check).
  int64_t bounded(const char* key, int64_t fallback, int64_t max) const { return has(key) ? bounded(key, max) : fallback; }
  int64_t bounded(const char* key, int64_t max) const {
    const int64_t v = integer(key);
    if (v > max) fail(key, "must be at most " + std::to_string(max) + ", got " + std::to_string(v));
    return v;
  }
  double number(const char* key, double fallback) const {
    if (!has(key)) return fallback;
    const json& v = j.at(key);
    if (!v.is_number()) fail(key, "must be a number, got " + describe_json(v));
    return v.get<double>();
  }
  bool boolean(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    const json& v = j.at(key);
    if (!v.is_boolean()) fail(key, "must be true or false, got " + describe_json(v));
    return v.get<bool>();
  }
  std::string text(const char* key) const {
    if (!has(key) || !j.at(key).is_string()) fail(key, "must be a string, got " + (has(key) ? describe_json(j.at(key)) : "nothing"));
    return j.at(key).get<std::string>();
  }
  // A list of whole numbers (mlp_only_layers, no_rope_layers); empty when absent.
  std::vector<int64_t> integers(const char* key) const {
    std::vector<int64_t> out;
    if (!has(key)) return out;
    const json& v = j.at(key);
    if (!v.is_array()) fail(key, "must be a list of whole numbers");
    for (const auto& e : v) {
      if (!e.is_number_integer() || e.get<int64_t>() < 0) fail(key, "must be a list of whole numbers >= 0, got " + describe_json(e));
      out.push_back(e.get<int64_t>());
    }
    return out;
  }
  // How many entries of the string list `key` equal `value`; -1 when the list is absent.
  int64_t count_in_list(const char* key, const std::string& value) const {
    if (!has(key)) return -1;
    const json& v = j.at(key);
    if (!v.is_array()) fail(key, "must be a list");
    int64_t n = 0;
    for (const auto& e : v) {
      if (!e.is_string()) fail(key, "must be a list of strings");
      n += e.get<std::string>() == value;
    }
    return n;
  }
};

// The model types read, each as transformers defines it (configuration_<type>.py defaults, modeling_<type>.py
// weights). Multimodal configs (gemma3, mistral3, llama4) are read through their text_config.
const std::vector<std::string> kSupported = {
    "llama",     "mistral", "mistral3", "qwen2",     "qwen3",   "qwen3_moe",  "qwen2_moe", "qwen3_next", "qwen3_5",
    "qwen3_5_moe", "qwen3_5_text", "qwen3_5_moe_text", "mixtral",
    "gemma",     "gemma2",  "gemma3",   "gemma3_text", "phi3",  "phimoe",     "olmo2",     "granite",    "cohere",
    "gpt_oss",   "minimax_m2", "deepseek_v2", "deepseek_v32", "glm_moe_dsa", "deepseek_v3", "kimi_k2", "kimi_k25", "glm4_moe", "llama4", "llama4_text", "nemotron_h", "jamba",
    "falcon_h1"};

std::string join_supported() {
  std::string s;
  for (const auto& t : kSupported) s += (s.empty() ? "" : ", ") + t;
  return s;
}

// Layers given by a per-layer rule: how many of `layers` satisfy it.
template <class Pred>
int64_t count_layers(int64_t layers, Pred pred) {
  int64_t n = 0;
  for (int64_t i = 0; i < layers; ++i) n += pred(i) ? 1 : 0;
  return n;
}

// Qwen-style MoE placement (qwen2_moe, qwen3_moe, qwen3_next): a layer has experts unless it is listed in
// mlp_only_layers or (i + 1) is not a multiple of decoder_sparse_step; the others get a dense FFN.
int64_t qwen_dense_layers(const Config& c, int64_t layers) {
  const int64_t step = c.integer("decoder_sparse_step", 1);
  if (step == 0) c.fail("decoder_sparse_step", "must be >= 1");
  std::vector<bool> only(static_cast<size_t>(layers), false);
  for (int64_t i : c.integers("mlp_only_layers")) {
    if (i >= layers) c.fail("mlp_only_layers", "lists layer " + std::to_string(i) + "; layers are 0 to " + std::to_string(layers - 1));
    only[static_cast<size_t>(i)] = true;
  }
  return count_layers(layers, [&](int64_t i) { return only[static_cast<size_t>(i)] || (i + 1) % step != 0; });
}

// Routed experts as most configs state them: `experts_key` experts, num_experts_per_tok of them active per token,
// each an FFN of `ffn_key` width.
MoeSpec routed_experts(const Config& c, const char* experts_key, const char* ffn_key) {
  MoeSpec e;
  e.experts = c.integer(experts_key);
  e.active_experts = c.integer("num_experts_per_tok");
  e.expert_ffn = c.integer(ffn_key);
  return e;
}

// DeepSeek-style MLA and MoE (deepseek_v2, deepseek_v3, kimi_k2) and GLM-4.5's MoE: the first
// first_k_dense_replace layers are dense (transformers ignores moe_layer_freq).
MoeSpec deepseek_moe(const Config& c) {
  MoeSpec e = routed_experts(c, "n_routed_experts", "moe_intermediate_size");
  e.shared_experts = c.integer("n_shared_experts", 0);
  e.shared_expert_ffn = e.expert_ffn;
  e.dense_layers = c.integer("first_k_dense_replace", 0);
  return e;
}

// Python's json module writes Infinity, -Infinity and NaN (Nemotron-H's "time_step_limit": [0.0, Infinity]),
// which JSON does not allow. Outside strings they become the strings "Infinity", "-Infinity", "NaN": keys
// never read stay harmless, and a key that is read is refused by name (not a number).
std::string python_literals_to_strings(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (in_string) {
      out += ch;
      if (ch == '\\' && i + 1 < text.size()) out += text[++i];
      else if (ch == '"') in_string = false;
      continue;
    }
    if (ch == '"') in_string = true;
    bool replaced = false;
    for (std::string_view lit : {"-Infinity", "Infinity", "NaN"})
      if (text.substr(i, lit.size()) == lit) {
        out += "\"" + std::string(lit) + "\"";
        i += lit.size() - 1;
        replaced = true;
        break;
      }
    if (!replaced) out += ch;
  }
  return out;
}

ModelSpec from_config(const Config& c) {
  const std::string& t = c.model_type;
  ModelSpec m;
  m.family = t;
  m.vocab = c.integer("vocab_size");
  m.hidden = c.integer("hidden_size");
  // Nemotron-H may give its layers only as a pattern (num_hidden_layers is deprecated there).
  m.layers = t == "nemotron_h" && !c.has("num_hidden_layers") ? 0 : c.integer("num_hidden_layers");
  if (m.layers > limits::kLayers)  // before any loop over layers
    c.fail("num_hidden_layers", "must be at most " + std::to_string(limits::kLayers) + ", got " + std::to_string(m.layers));
  m.heads = c.integer("num_attention_heads");
  m.kv_heads = c.integer("num_key_value_heads", m.heads);
  if (m.heads == 0) c.fail("num_attention_heads", "must be > 0");
  if (!c.has("head_dim") && t != "gemma" && t != "gemma2" && m.hidden % m.heads != 0)
    c.fail("hidden_size", "(" + std::to_string(m.hidden) + ") must divide by num_attention_heads (" + std::to_string(m.heads) +
                              ") when head_dim is not given");
  m.head_dim = c.integer("head_dim", (t == "gemma" || t == "gemma2") ? 256 : m.hidden / m.heads);
  m.ffn = c.integer("intermediate_size", 0);
  // Absent keys take their configuration class's default: Gemma and Cohere tie the LM head to the embeddings.
  m.tied_embeddings = c.boolean("tie_word_embeddings", t == "gemma" || t == "gemma2" || t == "gemma3_text" || t == "cohere");
  m.attention_bias = c.boolean("attention_bias", t == "qwen2" || t == "qwen2_moe");
  m.ffn_bias = c.boolean("mlp_bias", false);
  m.max_context = c.integer("max_position_embeddings", 0);
  m.rope_theta = c.number("rope_theta", 10000.0);
  if (!c.has("rope_theta") && c.has("rope_parameters") && c.j.at("rope_parameters").is_object())  // newer configs
    m.rope_theta = Config{c.j.at("rope_parameters"), c.file, c.model_type}.number("rope_theta", 10000.0);
  if (t == "qwen2" || t == "qwen2_moe") m.attention_bias = true;  // Qwen2 always has q/k/v biases; the key is absent

  // Sliding windows: `layer_types` when given, else the family's rule.
  const int64_t window = c.integer("sliding_window", t == "gemma2" ? 4096 : 0);
  const int64_t sliding = c.count_in_list("layer_types", "sliding_attention");
  if (sliding >= 0) {
    m.sliding_window = sliding > 0 ? window : 0;
    m.sliding_window_layers = sliding > 0 ? sliding : 0;
  } else if (t == "mistral" || t == "mixtral") {
    m.sliding_window = window;
    m.sliding_window_layers = window > 0 ? m.layers : 0;
  } else if ((t == "qwen2" || t == "qwen3" || t == "qwen3_moe" || t == "qwen2_moe") && c.boolean("use_sliding_window", false)) {
    m.sliding_window = window;  // layers from max_window_layers on use the window
    m.sliding_window_layers = window > 0 ? m.layers - std::min(m.layers, c.integer("max_window_layers", 28)) : 0;
  } else if (t == "gemma3_text") {
    const int64_t pattern = c.integer("sliding_window_pattern", 6);  // every pattern-th layer is global
    m.sliding_window = window;
    m.sliding_window_layers = pattern > 0 ? m.layers - m.layers / pattern : 0;
  }

  const bool gated_deltanet = t == "qwen3_next" || t == "qwen3_5_text" || t == "qwen3_5_moe_text";
  if (t == "qwen3" || t == "qwen3_moe" || t == "gemma3_text" || gated_deltanet) m.qk_norm = true;
  if (t == "gemma3_text" || t == "gemma2") m.norms_per_layer = 4;  // input, post-attention, pre-FFN, post-FFN
  if (t == "gemma" || t == "gemma2" || t == "gemma3_text") m.ffn_kind = FfnKind::swiglu;  // gated GELU: 3 matrices
  if (t == "gemma2") {  // even layers slide, odd ones are global (Gemma2Config's layer_types rule)
    m.sliding_window = sliding >= 0 ? m.sliding_window : window;
    if (sliding < 0) m.sliding_window_layers = window > 0 ? (m.layers + 1) / 2 : 0;
  }
  if (t == "phi3" || t == "phimoe") {  // a given window applies to every layer, as mistral's
    if (sliding < 0 && window > 0) m.sliding_window = window, m.sliding_window_layers = m.layers;
  }
  if (t == "olmo2") {
    // q_norm and k_norm span the whole projection (heads x head_dim), not one head: counted per head here,
    // 2 x head_dim instead of (heads + kv_heads) x head_dim per layer (0.003% of OLMo-2-7B).
    m.qk_norm = true;
    m.norms_per_layer = 2;  // post-attention and post-FFN (no pre-norms)
  }
  if (t == "cohere") {  // one LayerNorm (weight only) feeding attention and the FFN in parallel
    m.norms_per_layer = 1;
    m.qk_norm = c.boolean("use_qk_norm", false);
  }
  if (t == "phimoe") {
    m.layernorm_bias = true;  // LayerNorm with weight and bias; q, k, v and o biases when attention_bias
    m.attention_bias = c.boolean("attention_bias", false);  // PhimoeConfig's default (Phi-3.5-MoE sets true)
    m.attention_out_bias = m.attention_bias;
  }

  if (t == "qwen3_moe" || t == "qwen2_moe" || t == "qwen3_next" || t == "qwen3_5_moe_text") {
    MoeSpec e = routed_experts(c, "num_experts", "moe_intermediate_size");
    e.dense_layers = qwen_dense_layers(c, m.layers);
    if (t != "qwen3_moe") {  // one shared expert with its own sigmoid gate
      e.shared_expert_ffn = c.integer("shared_expert_intermediate_size");
      e.shared_experts = e.shared_expert_ffn > 0 ? 1 : 0;
      e.shared_expert_gate = e.shared_experts > 0;
    }
    m.moe = e;
  } else if (t == "minimax_m2") {
    // MiniMax-M2: experts on every layer with a routing (score-correction) bias, q/k RMSNorm over the whole
    // projection (counted per head here, 2 x head_dim instead of (heads + kv_heads) x head_dim per layer).
    // The multi-token-prediction modules are not decoder layers and are left out.
    MoeSpec e = routed_experts(c, "num_local_experts", "intermediate_size");
    e.shared_expert_ffn = c.integer("shared_intermediate_size", 0);
    e.shared_experts = e.shared_expert_ffn > 0 ? 1 : 0;
    e.router_bias = c.boolean("use_routing_bias", false);
    m.moe = e;
    m.qk_norm = c.boolean("use_qk_norm", false);
  } else if (t == "mixtral" || t == "phimoe") {
    m.moe = routed_experts(c, "num_local_experts", "intermediate_size");
  } else if (t == "gpt_oss") {
    MoeSpec e;
    e.experts = c.integer("num_local_experts");
    e.active_experts = c.has("num_experts_per_tok") ? c.integer("num_experts_per_tok") : c.integer("experts_per_token");
    e.expert_ffn = c.integer("intermediate_size");
    e.router_bias = true;
    m.moe = e;
    m.attention_bias = c.boolean("attention_bias", true);
    m.attention_out_bias = m.attention_bias;
    m.ffn_bias = true;  // gate_up_proj_bias and down_proj_bias on every expert
    m.attention_sinks = true;
  } else if (t == "deepseek_v2" || t == "deepseek_v3" || t == "kimi_k2" || t == "deepseek_v32" || t == "glm_moe_dsa") {
    // kimi_k25: its text_config is kimi_k2. deepseek_v32 and glm_moe_dsa add DeepSeek Sparse Attention.
    MoeSpec e = deepseek_moe(c);
    e.router_bias = c.has("topk_method") && c.j.at("topk_method") == "noaux_tc";  // e_score_correction_bias
    m.moe = e;
    MlaSpec a;
    a.kv_lora_rank = c.integer("kv_lora_rank");
    a.q_lora_rank = c.integer("q_lora_rank", 0);  // null in DeepSeek-V2-Lite: queries projected directly
    a.qk_rope_head_dim = c.integer("qk_rope_head_dim");
    a.qk_nope_head_dim = c.integer("qk_nope_head_dim");
    a.v_head_dim = c.integer("v_head_dim");
    m.mla = a;
    if (a.qk_nope_head_dim > limits::kHidden || a.qk_rope_head_dim > limits::kHidden)  // before their sum can wrap
      c.fail("qk_nope_head_dim", "and qk_rope_head_dim must be at most " + std::to_string(limits::kHidden));
    m.head_dim = a.qk_nope_head_dim + a.qk_rope_head_dim;
    if (t == "deepseek_v32" || t == "glm_moe_dsa") {
      SparseAttentionSpec x;
      x.index_heads = c.integer("index_n_heads");
      x.index_head_dim = c.integer("index_head_dim");
      x.topk = c.integer("index_topk");
      m.sparse = x;
    }
  } else if (t == "glm4_moe") {
    // GLM-4.5: q, k, v biases, optional per-head q/k norms, a router with a correction bias. The checkpoint's
    // next-token-prediction layer (num_nextn_predict_layers) is not a decoder layer and is left out, as
    // transformers leaves it out when loading.
    MoeSpec e = deepseek_moe(c);
    e.dense_layers = c.integer("first_k_dense_replace", 1);  // Glm4MoeConfig's defaults
    e.shared_experts = c.integer("n_shared_experts", 1);
    e.router_bias = true;
    m.moe = e;
    m.attention_bias = c.boolean("attention_bias", false);
    m.qk_norm = c.boolean("use_qk_norm", false);
  } else if (t == "llama4_text") {
    // Llama 4: experts every interleave_moe_layer_step-th layer (plus one shared expert), dense FFNs of
    // intermediate_size_mlp elsewhere; RoPE layers use chunked attention, every 4th (NoPE) layer is global.
    MoeSpec e = routed_experts(c, "num_local_experts", "intermediate_size");
    e.shared_experts = 1;
    const int64_t step = c.integer("interleave_moe_layer_step", 1);
    if (step == 0) c.fail("interleave_moe_layer_step", "must be >= 1");
    std::vector<bool> is_moe(static_cast<size_t>(m.layers), false);
    if (c.has("moe_layers")) {
      for (int64_t i : c.integers("moe_layers")) {
        if (i >= m.layers) c.fail("moe_layers", "lists layer " + std::to_string(i) + "; layers are 0 to " + std::to_string(m.layers - 1));
        is_moe[static_cast<size_t>(i)] = true;
      }
    } else {
      for (int64_t i = 0; i < m.layers; ++i) is_moe[static_cast<size_t>(i)] = i % step == step - 1;
    }
    e.dense_layers = m.layers - static_cast<int64_t>(std::count(is_moe.begin(), is_moe.end(), true));
    m.ffn = c.integer("intermediate_size_mlp", 16384);  // Llama4TextConfig's default
    m.moe = e;
    const int64_t chunk = c.integer("attention_chunk_size", 8192);
    std::vector<int64_t> rope = c.integers("no_rope_layers");  // 1: RoPE with chunked attention; 0: NoPE, global
    if (c.has("no_rope_layers")) {
      if (static_cast<int64_t>(rope.size()) != m.layers)
        c.fail("no_rope_layers", "has " + std::to_string(rope.size()) + " entries; expected one per layer (" + std::to_string(m.layers) + ")");
      for (int64_t& r : rope) r = r != 0;  // any non-zero: RoPE
    } else {
      const int64_t interval = c.integer("no_rope_layer_interval", 4);
      if (interval == 0) c.fail("no_rope_layer_interval", "must be >= 1");
      for (int64_t i = 0; i < m.layers; ++i) rope.push_back((i + 1) % interval != 0);
    }
    if (chunk > 0) {
      m.sliding_window = chunk;
      m.chunked_window = true;
      m.sliding_window_layers = std::count(rope.begin(), rope.end(), 1);
    }
  }
  if (gated_deltanet) {
    // Qwen3-Next and Qwen3.5: Gated DeltaNet on most layers, gated attention (q_proj doubled for the output
    // gate) every full_attention_interval-th layer, unless layer_types lists them.
    const int64_t listed = c.count_in_list("layer_types", "linear_attention");
    if (listed >= 0 && static_cast<int64_t>(c.j.at("layer_types").size()) != m.layers)
      c.fail("layer_types", "has " + std::to_string(c.j.at("layer_types").size()) + " entries; expected one per layer (" +
                                std::to_string(m.layers) + ")");
    const int64_t interval = c.integer("full_attention_interval", 4);
    if (interval == 0) c.fail("full_attention_interval", "must be >= 1");
    StateSpec st;
    st.kind = StateKind::gated_deltanet;
    st.layers = listed >= 0 ? listed : count_layers(m.layers, [&](int64_t i) { return (i + 1) % interval != 0; });
    st.heads = c.bounded("linear_num_value_heads", limits::kHeads);
    st.head_dim = c.bounded("linear_value_head_dim", limits::kHidden);
    st.key_heads = c.bounded("linear_num_key_heads", limits::kHeads);
    st.key_head_dim = c.bounded("linear_key_head_dim", limits::kHidden);
    st.conv_kernel = c.integer("linear_conv_kernel_dim", 4);
    st.inner = st.heads * st.head_dim;
    st.conv_bias = false;
    st.ssm_state_fp32 = c.has("mamba_ssm_dtype") && c.text("mamba_ssm_dtype") == "float32";  // Qwen3.5 states it
    m.state = st;
    m.attention_output_gate = c.boolean("attn_output_gate", true);
  } else if (t == "nemotron_h") {
    // One block per layer, named by hybrid_override_pattern: M Mamba-2, * attention, - MLP, E experts
    // (Nemotron 3). Each block has one norm; MLPs and experts are squared ReLU, up and down only.
    std::string pattern;
    const char* list_key = c.has("layers_block_type") ? "layers_block_type" : "layer_types";
    if (c.has("hybrid_override_pattern") || !c.has(list_key)) {
      pattern = c.text("hybrid_override_pattern");
    } else {  // newer configs: one name per layer (current transformers: linear_attention / full_attention)
      const json& kinds = c.j.at(list_key);
      if (!kinds.is_array()) c.fail(list_key, "must be a list of layer kinds");
      for (const auto& k : kinds) {
        const std::string name = k.is_string() ? k.get<std::string>() : "";
        const char ch = name == "mamba" || name == "linear_attention" ? 'M'
                        : name == "attention" || name == "full_attention" ? '*'
                        : name == "mlp" ? '-' : name == "moe" ? 'E' : '?';
        if (ch == '?')
          c.fail(list_key, "has the layer kind " + describe_json(k) + "; expected mamba (linear_attention), attention (full_attention), mlp or moe");
        pattern += ch;
        if (pattern.size() > static_cast<size_t>(limits::kLayers)) break;
      }
    }
    if (pattern.size() > static_cast<size_t>(limits::kLayers))
      c.fail("hybrid_override_pattern", "has more than " + std::to_string(limits::kLayers) + " layers");
    if (c.integer("moe_latent_size", 0) > 0)
      c.fail("moe_latent_size", "is set: latent MoE (experts in a narrower latent space, Nemotron 3 Super/Ultra) is not "
                                "supported yet; supported are experts on the hidden width");
    for (char ch : pattern)
      if (ch != 'M' && ch != '*' && ch != '-' && ch != 'E')
        c.fail("hybrid_override_pattern", std::string("has the layer kind '") + ch +
                                              "'; expected M (Mamba-2), * (attention), - (MLP) or E (experts)");
    const auto n_of = [&](char ch) { return static_cast<int64_t>(std::count(pattern.begin(), pattern.end(), ch)); };
    m.layers = static_cast<int64_t>(pattern.size());
    if (c.has("num_hidden_layers") && c.integer("num_hidden_layers") != m.layers)
      c.fail("num_hidden_layers", "(" + std::to_string(c.integer("num_hidden_layers")) + ") differs from the " +
                                      std::to_string(m.layers) + " layers of hybrid_override_pattern");
    if (n_of('M') == 0) c.fail("hybrid_override_pattern", "has no Mamba layer (M); a nemotron_h model needs at least one");
    StateSpec st;
    st.kind = StateKind::mamba2;
    st.layers = n_of('M');
    st.heads = c.bounded("mamba_num_heads", limits::kHeads);
    st.head_dim = c.bounded("mamba_head_dim", limits::kHidden);
    st.inner = st.heads * st.head_dim;
    st.state_dim = c.integer("ssm_state_size");
    st.groups = c.integer("n_groups", 8);  // NemotronHConfig's defaults
    st.conv_kernel = c.integer("conv_kernel", 4);
    st.conv_bias = c.boolean("use_conv_bias", true);
    st.proj_bias = c.boolean("use_bias", false);
    st.ssm_state_fp32 = !c.has("mamba_ssm_cache_dtype") || c.text("mamba_ssm_cache_dtype") == "float32";  // vLLM's default
    m.state = st;
    m.mixer_free_layers = n_of('-') + n_of('E');
    m.ffn_free_layers = n_of('M') + n_of('*');
    if (n_of('E') > 0) {  // a router with a score-correction bias, routed experts and always one shared expert
      MoeSpec e = deepseek_moe(c);
      e.dense_layers = n_of('-');
      e.shared_experts = 1;  // NemotronHMoE builds one, whatever n_shared_experts says
      e.shared_expert_ffn = c.integer("moe_shared_expert_intermediate_size", 7688);
      e.router_bias = true;
      m.moe = e;
    }
    m.ffn_kind = FfnKind::gelu;  // two matrices
    m.norms_per_layer = 1;
    m.head_dim = c.has("attention_head_dim") ? c.integer("attention_head_dim") : c.integer("head_dim", 128);
    m.kv_heads = c.integer("num_key_value_heads", 8);
    m.attention_bias = m.attention_out_bias = c.boolean("attention_bias", false);
  } else if (t == "jamba") {
    // Mamba-1 layers except every attn_layer_period-th (from attn_layer_offset); experts every
    // expert_layer_period-th layer (from expert_layer_offset), dense FFNs elsewhere.
    const int64_t ap = c.integer("attn_layer_period", 8), ao = c.integer("attn_layer_offset", 4);
    const int64_t ep = c.integer("expert_layer_period", 2), eo = c.integer("expert_layer_offset", 1);
    if (ap == 0) c.fail("attn_layer_period", "must be >= 1");
    if (ep == 0) c.fail("expert_layer_period", "must be >= 1");
    if (ao >= ap) c.fail("attn_layer_offset", "must be below attn_layer_period (" + std::to_string(ap) + ")");
    if (eo >= ep) c.fail("expert_layer_offset", "must be below expert_layer_period (" + std::to_string(ep) + ")");
    StateSpec st;
    st.kind = StateKind::mamba;
    st.layers = count_layers(m.layers, [&](int64_t i) { return i % ap != ao; });
    st.inner = c.bounded("mamba_expand", 2, 64) * m.hidden;
    st.state_dim = c.integer("mamba_d_state", 16);
    st.conv_kernel = c.integer("mamba_d_conv", 4);
    st.dt_rank = c.has("mamba_dt_rank") && c.j.at("mamba_dt_rank").is_string() && c.j.at("mamba_dt_rank") == "auto"
                     ? (m.hidden + 15) / 16
                     : c.integer("mamba_dt_rank", (m.hidden + 15) / 16);
    st.conv_bias = c.boolean("mamba_conv_bias", true);
    st.proj_bias = c.boolean("mamba_proj_bias", false);
    st.gated_norm = true;  // dt_layernorm, b_layernorm, c_layernorm
    m.state = st;
    MoeSpec e;
    e.experts = c.integer("num_experts", 16);
    e.active_experts = std::min(e.experts, c.integer("num_experts_per_tok", 2));
    e.expert_ffn = c.integer("intermediate_size");
    e.dense_layers = count_layers(m.layers, [&](int64_t i) { return i % ep != eo; });
    if (e.experts > 1) m.moe = e;  // num_experts 1: every layer a dense MLP
  } else if (t == "falcon_h1") {
    // Mamba-2 beside attention in every layer, then a SwiGLU FFN. The muP multipliers are buffers, not weights.
    StateSpec st;
    st.kind = StateKind::mamba2;
    st.layers = m.layers;
    st.parallel = true;
    st.heads = c.bounded("mamba_n_heads", limits::kHeads);
    st.head_dim = c.bounded("mamba_d_head", limits::kHidden);
    st.inner = c.has("mamba_d_ssm") ? c.integer("mamba_d_ssm") : c.bounded("mamba_expand", 2, 64) * m.hidden;
    st.state_dim = c.integer("mamba_d_state");
    st.groups = c.integer("mamba_n_groups", 1);
    st.conv_kernel = c.integer("mamba_d_conv", 4);
    st.conv_bias = c.boolean("mamba_conv_bias", true);
    st.proj_bias = c.boolean("mamba_proj_bias", false);
    st.gated_norm = c.boolean("mamba_rms_norm", false);
    m.state = st;
  }
  if (!m.moe || (m.moe->dense_layers > 0)) {  // required for dense FFNs
    if (t == "llama4_text") c.integer("intermediate_size_mlp");
    else m.ffn = c.integer("intermediate_size");
  }
  return m;
}
}  // namespace

ModelSpec from_hf_config(const std::string& path) {
  return from_hf_config_text(read_text_file(path, "HF config"), path);
}

ModelSpec from_hf_config_text(std::string_view text, const std::string& path) {
  json root = parse_json(python_literals_to_strings(text), path);
  if (!root.is_object()) throw InputError(path + ": expected a JSON object (a Hugging Face config.json)");
  if (!root.contains("model_type") || !root["model_type"].is_string())
    throw InputError(path + ": key 'model_type' is missing; expected one of " + join_supported());
  std::string type = root["model_type"].get<std::string>();
  const json* obj = &root;
  // Multimodal configs (Gemma 3, Mistral 3, Llama 4): the language model's own config; the vision tower
  // is not sized (the assumptions say so).
  bool vision_excluded = false;
  const std::vector<std::string> nested = {"gemma3", "mistral3", "llama4", "qwen3_5", "qwen3_5_moe", "kimi_k25"};
  const bool is_nested = std::find(nested.begin(), nested.end(), type) != nested.end();
  json text_config;  // the text config, with the top level's tie_word_embeddings where it alone states it
  if (is_nested && root.contains("text_config") && root["text_config"].is_object()) {
    text_config = root["text_config"];
    if (!text_config.contains("tie_word_embeddings") && root.contains("tie_word_embeddings"))
      text_config["tie_word_embeddings"] = root["tie_word_embeddings"];
    const json& tt = text_config["model_type"];
    type = tt.is_string() ? tt.get<std::string>()
                          : (type == "gemma3" ? "gemma3_text" : type == "llama4" ? "llama4_text" : type == "kimi_k25" ? "kimi_k2"
                             : type == "mistral3" ? "mistral" : type + "_text");
    obj = &text_config;
    vision_excluded = root.contains("vision_config");
  }
  if (is_nested && obj == &root)
    throw InputError(path + ": key 'text_config' is missing; a " + type + " config holds its language model there");
  if (std::find(kSupported.begin(), kSupported.end(), type) == kSupported.end())
    throw InputError(path + ": " + unknown_id_message("model_type", type, kSupported) + " (supported: " + join_supported() + ")");

  // Gemma 3's published configs are sparse (google/gemma-3-4b-it states no head counts, none states vocab_size):
  // transformers fills them from Gemma3TextConfig's defaults (transformers 008f5c8,
  // src/transformers/models/gemma3/configuration_gemma3.py), and so does rooftop, key by key.
  json filled = *obj;
  if (type == "gemma3_text") {
    const std::pair<const char*, json> defaults[] = {
        {"vocab_size", 262208}, {"hidden_size", 2304}, {"intermediate_size", 9216}, {"num_hidden_layers", 26},
        {"num_attention_heads", 8}, {"num_key_value_heads", 4}, {"head_dim", 256}, {"max_position_embeddings", 131072},
        {"rope_theta", 1000000.0}, {"sliding_window", 4096}, {"sliding_window_pattern", 6}, {"tie_word_embeddings", true}};
    for (const auto& [key, value] : defaults)
      if (!filled.contains(key)) filled[key] = value;
  }
  ModelSpec m = from_config(Config{filled, path, type});
  // The id and name come from the folder holding config.json (e.g. .../Llama-3.1-8B/config.json).
  namespace fs = std::filesystem;
  std::string name = fs::absolute(fs::path(path)).parent_path().filename().string();
  if (name.empty()) name = fs::path(path).stem().string();
  m.name = name;
  m.id = ascii_lower(name);
  m.source = path;
  if (vision_excluded) m.name += " (text model; vision tower not sized)";
  try {
    validate_model(m);
  } catch (const InputError& e) {
    throw InputError(path + ": " + e.what());
  }
  return m;
}

}  // namespace rooftop::models
