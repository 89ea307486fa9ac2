// from_hf_config: a Hugging Face config.json (llama, mistral, qwen2/3, mixtral, gemma3, gpt_oss, deepseek_v3) as a ModelSpec.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

#include "analyzer/errors.h"
#include "base/files.h"
#include "base/json.h"
#include "base/limits.h"
#include "analyzer/params.h"
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

const std::vector<std::string> kSupported = {"llama", "mistral", "qwen2", "qwen3", "qwen3_moe", "mixtral",
                                             "gemma3_text", "gpt_oss", "deepseek_v3"};

ModelSpec from_config(const Config& c) {
  const std::string& t = c.model_type;
  ModelSpec m;
  m.family = t;
  m.vocab = c.integer("vocab_size");
  m.hidden = c.integer("hidden_size");
  m.layers = c.integer("num_hidden_layers");
  m.heads = c.integer("num_attention_heads");
  m.kv_heads = c.integer("num_key_value_heads", m.heads);
  if (m.heads == 0) c.fail("num_attention_heads", "must be > 0");
  if (!c.has("head_dim") && m.hidden % m.heads != 0)
    c.fail("hidden_size", "(" + std::to_string(m.hidden) + ") must divide by num_attention_heads (" + std::to_string(m.heads) +
                              ") when head_dim is not given");
  m.head_dim = c.integer("head_dim", m.hidden / m.heads);
  m.ffn = c.integer("intermediate_size", 0);
  m.tied_embeddings = c.boolean("tie_word_embeddings", t == "gemma3_text");
  m.attention_bias = c.boolean("attention_bias", t == "qwen2");
  m.ffn_bias = c.boolean("mlp_bias", false);
  m.max_context = c.integer("max_position_embeddings", 0);
  m.rope_theta = c.number("rope_theta", 10000.0);
  if (t == "qwen2") m.attention_bias = true;  // Qwen2 always has q/k/v biases; the key is absent

  // Sliding windows: `layer_types` when given, else the family's rule.
  const int64_t window = c.integer("sliding_window", 0);
  const int64_t sliding = c.count_in_list("layer_types", "sliding_attention");
  if (sliding >= 0) {
    m.sliding_window = sliding > 0 ? window : 0;
    m.sliding_window_layers = sliding > 0 ? sliding : 0;
  } else if (t == "mistral" || t == "mixtral") {
    m.sliding_window = window;
    m.sliding_window_layers = window > 0 ? m.layers : 0;
  } else if ((t == "qwen2" || t == "qwen3" || t == "qwen3_moe") && c.boolean("use_sliding_window", false)) {
    m.sliding_window = window;  // layers from max_window_layers on use the window
    m.sliding_window_layers = window > 0 ? m.layers - std::min(m.layers, c.integer("max_window_layers", 0)) : 0;
  } else if (t == "gemma3_text") {
    const int64_t pattern = c.integer("sliding_window_pattern", 6);  // every pattern-th layer is global
    m.sliding_window = window;
    m.sliding_window_layers = pattern > 0 ? m.layers - m.layers / pattern : 0;
  }

  if (t == "qwen3" || t == "qwen3_moe" || t == "gemma3_text") m.qk_norm = true;
  if (t == "gemma3_text") m.norms_per_layer = 4;  // input, post-attention, pre-FFN, post-FFN
  if (t == "qwen3_moe") {
    MoeSpec e;
    e.experts = c.integer("num_experts");
    e.active_experts = c.integer("num_experts_per_tok");
    e.expert_ffn = c.integer("moe_intermediate_size");
    // mlp_only_layers (dense layers) and decoder_sparse_step > 1 are not modelled: they would not be leading layers.
    if (c.integer("decoder_sparse_step", 1) != 1) c.fail("decoder_sparse_step", "other than 1 is not supported");
    if (c.has("mlp_only_layers") && !c.j.at("mlp_only_layers").empty()) c.fail("mlp_only_layers", "must be empty (not supported)");
    m.moe = e;
  } else if (t == "mixtral") {
    MoeSpec e;
    e.experts = c.integer("num_local_experts");
    e.active_experts = c.integer("num_experts_per_tok");
    e.expert_ffn = c.integer("intermediate_size");
    m.moe = e;
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
  } else if (t == "deepseek_v3") {
    MoeSpec e;
    e.experts = c.integer("n_routed_experts");
    e.active_experts = c.integer("num_experts_per_tok");
    e.shared_experts = c.integer("n_shared_experts", 0);
    e.expert_ffn = c.integer("moe_intermediate_size");
    e.shared_expert_ffn = e.expert_ffn;
    e.dense_layers = c.integer("first_k_dense_replace", 0);
    e.router_bias = c.has("topk_method") && c.j.at("topk_method") == "noaux_tc";  // e_score_correction_bias
    if (c.integer("moe_layer_freq", 1) != 1) c.fail("moe_layer_freq", "other than 1 is not supported");
    m.moe = e;
    MlaSpec a;
    a.kv_lora_rank = c.integer("kv_lora_rank");
    a.q_lora_rank = c.integer("q_lora_rank", 0);
    a.qk_rope_head_dim = c.integer("qk_rope_head_dim");
    a.qk_nope_head_dim = c.integer("qk_nope_head_dim");
    a.v_head_dim = c.integer("v_head_dim");
    m.mla = a;
    if (a.qk_nope_head_dim > limits::kHidden || a.qk_rope_head_dim > limits::kHidden)  // before their sum can wrap
      c.fail("qk_nope_head_dim", "and qk_rope_head_dim must be at most " + std::to_string(limits::kHidden));
    m.head_dim = a.qk_nope_head_dim + a.qk_rope_head_dim;
  }
  if (!m.moe || (m.moe->dense_layers > 0)) c.integer("intermediate_size");  // required for dense FFNs
  return m;
}
}  // namespace

ModelSpec from_hf_config(const std::string& path) {
  return from_hf_config_text(read_text_file(path, "HF config"), path);
}

ModelSpec from_hf_config_text(std::string_view text, const std::string& path) {
  json root = parse_json(text, path);
  if (!root.is_object()) throw InputError(path + ": expected a JSON object (a Hugging Face config.json)");
  if (!root.contains("model_type") || !root["model_type"].is_string())
    throw InputError(path + ": key 'model_type' is missing; expected one of llama, mistral, qwen2, qwen3, qwen3_moe, "
                            "mixtral, gemma3_text, gpt_oss, deepseek_v3");
  std::string type = root["model_type"].get<std::string>();
  const json* obj = &root;
  if (type == "gemma3" && root.contains("text_config") && root["text_config"].is_object()) {
    obj = &root["text_config"];  // multimodal Gemma 3: the language model's own config
    type = "gemma3_text";
  }
  if (std::find(kSupported.begin(), kSupported.end(), type) == kSupported.end())
    throw InputError(path + ": " + unknown_id_message("model_type", type, kSupported));

  ModelSpec m = from_config(Config{*obj, path, type});
  // The id and name come from the folder holding config.json (e.g. .../Llama-3.1-8B/config.json).
  namespace fs = std::filesystem;
  std::string name = fs::absolute(fs::path(path)).parent_path().filename().string();
  if (name.empty()) name = fs::path(path).stem().string();
  m.name = name;
  m.id = name;
  std::transform(m.id.begin(), m.id.end(), m.id.begin(), [](unsigned char ch) { return std::tolower(ch); });
  m.source = path;
  try {
    validate_model(m);
  } catch (const InputError& e) {
    throw InputError(path + ": " + e.what());
  }
  return m;
}

}  // namespace rooftop::models
