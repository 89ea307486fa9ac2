// from_gguf: a ModelSpec from a GGUF file's header (metadata keys and tensor names), never its tensor data.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "base/errors.h"
#include "base/limits.h"
#include "analyzer/params.h"
#include "formats/formats.h"
#include "base/text.h"
#include "formats/ggml_types.h"
#include "gguf/gguf.h"
#include "models/models.h"

namespace rooftop::models {
namespace {

struct Header {
  const engine::GgufFile& f;
  std::string arch;

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw InputError(f.path + ": GGUF key '" + key + "' " + what + " (architecture " + arch + ")");
  }
  std::optional<int64_t> opt(const std::string& suffix) const {
    const std::string key = arch + "." + suffix;
    const engine::GgufValue* v = f.find(key);
    if (!v) return std::nullopt;
    if (v->type == engine::GgufType::array) fail(key, "is a per-layer list; only uniform models are supported");
    auto i = f.get_int(key);
    if (!i || *i < 0) fail(key, "must be a whole number >= 0");
    return i;
  }
  // A per-layer value: an array of `layers` whole numbers, or one number for every layer; empty when absent.
  std::vector<int64_t> per_layer(const std::string& suffix, int64_t layers) const {
    const std::string key = arch + "." + suffix;
    const engine::GgufValue* v = f.find(key);
    if (!v) return {};
    if (v->type != engine::GgufType::array) return std::vector<int64_t>(static_cast<size_t>(layers), *opt(suffix));
    if (static_cast<int64_t>(v->ints.size()) != layers)
      fail(key, "has " + std::to_string(v->ints.size()) + " entries; expected one per layer (" + std::to_string(layers) + ")");
    for (int64_t x : v->ints)
      if (x < 0) fail(key, "must hold whole numbers >= 0");
    return v->ints;
  }
  int64_t need(const std::string& suffix) const {
    auto v = opt(suffix);
    if (!v) fail(arch + "." + suffix, "is missing");
    return *v;
  }
  bool tensor(const std::string& name) const { return f.find_tensor(name) != nullptr; }
  // True if some block has the tensor `blk.N.<suffix>`.
  bool any_block_has(const std::string& suffix, int64_t layers) const {
    for (int64_t i = 0; i < layers; ++i)
      if (tensor("blk." + std::to_string(i) + "." + suffix)) return true;
    return false;
  }
};

// Hybrid models, from the tensors each block holds: a recurrent-state mixer (blk.N.ssm_conv1d), attention
// (blk.N.attn_q / attn_qkv / attn_k / MLA's attn_kv_a_mqa) and an FFN (blk.N.ffn_up / ffn_down, dense or experts).
// The state's shapes come from llama.cpp's ssm.* keys: conv_kernel, inner_size, state_size, group_count
// (key heads for Gated DeltaNet) and time_step_rank (Mamba-2 / DeltaNet heads, Mamba's dt rank).
void read_hybrid_layers(const Header& h, ModelSpec& m) {
  auto block = [&](int64_t i, const char* suffix) { return h.tensor("blk." + std::to_string(i) + "." + suffix); };
  int64_t state = 0, both = 0, neither = 0, no_ffn = 0;
  for (int64_t i = 0; i < m.layers; ++i) {
    const bool ssm = block(i, "ssm_conv1d.weight");
    // Attention that keeps KV: its own key projection (a fused attn_qkv counts only outside state blocks:
    // Qwen3.5's Gated DeltaNet blocks store their q/k/v input as attn_qkv).
    const bool attn = block(i, "attn_k.weight") || block(i, "attn_kv_a_mqa.weight") ||
                      (!ssm && (block(i, "attn_q.weight") || block(i, "attn_qkv.weight")));
    const bool ffn = block(i, "ffn_up.weight") || block(i, "ffn_down.weight") || block(i, "ffn_up_exps.weight") ||
                     block(i, "ffn_down_exps.weight") || block(i, "ffn_gate_up_exps.weight");
    state += ssm;
    both += ssm && attn;
    neither += !ssm && !attn;
    no_ffn += !ffn;
  }
  if (state == 0) return;  // a plain transformer: every block attends (files without attention tensors included)
  StateSpec s;
  s.layers = state;
  s.parallel = both == state;
  if (both != 0 && both != state) h.fail(h.arch + ".block_count", "mixes parallel and alternating state layers (not supported)");
  s.conv_kernel = h.need("ssm.conv_kernel");
  s.inner = h.need("ssm.inner_size");
  s.state_dim = h.need("ssm.state_size");
  const int64_t rank = h.need("ssm.time_step_rank");
  s.groups = std::max<int64_t>(1, h.opt("ssm.group_count").value_or(1));
  s.ssm_state_fp32 = true;  // llama.cpp keeps its recurrent caches in f32 (its conv history too: here 16 bits)
  s.gated_norm = h.tensor("blk.0.ssm_norm.weight") || h.any_block_has("ssm_norm.weight", m.layers);
  s.conv_bias = h.any_block_has("ssm_conv1d.bias", m.layers);
  if (h.any_block_has("ssm_ba.weight", m.layers) || h.any_block_has("ssm_beta.weight", m.layers)) {
    s.kind = StateKind::gated_deltanet;
    s.heads = rank;
    s.key_heads = s.groups;
    s.key_head_dim = s.state_dim;
    s.state_dim = 0;
  } else if (h.any_block_has("ssm_x.weight", m.layers)) {
    s.kind = StateKind::mamba;
    s.dt_rank = rank;
  } else {
    s.kind = StateKind::mamba2;
    s.heads = rank;
  }
  if (s.kind != StateKind::mamba) {
    if (s.heads == 0 || s.inner % s.heads != 0)
      h.fail(h.arch + ".ssm.inner_size", "(" + std::to_string(s.inner) + ") must divide by ssm.time_step_rank (" + std::to_string(s.heads) + ")");
    s.head_dim = s.inner / s.heads;
  }
  m.state = s;
  m.mixer_free_layers = neither;
  m.ffn_free_layers = no_ffn;
  // Gated attention (Qwen3-Next, Qwen3.5): attn_q gives queries and a gate, twice heads x head_dim rows.
  for (int64_t i = 0; i < m.layers; ++i)
    if (const auto* q = h.f.find_tensor("blk." + std::to_string(i) + ".attn_q.weight"); q && q->dims.size() == 2) {
      m.attention_output_gate = q->dims[1] == 2 * m.heads * m.head_dim;
      break;
    }
}

}  // namespace

ModelSpec from_gguf(const std::string& path) { return from_gguf(engine::open_gguf(path, /*map_data=*/false)); }

ModelSpec from_gguf(const engine::GgufFile& f) {
  const std::string& path = f.path;
  auto arch = f.get_string("general.architecture");
  if (!arch) throw InputError(path + ": GGUF key 'general.architecture' is missing");
  Header h{f, *arch};

  ModelSpec m;
  m.family = h.arch;
  m.layers = h.need("block_count");
  m.hidden = h.need("embedding_length");
  if (m.layers > limits::kLayers)  // before the per-layer lists
    h.fail(h.arch + ".block_count", "must be at most " + std::to_string(limits::kLayers));
  // Head counts and FFN widths may be per-layer lists (hybrids write 0 for layers without attention or
  // FFN): the model's value is the widest layer's.
  auto widest = [](const std::vector<int64_t>& v) { return v.empty() ? int64_t{0} : *std::max_element(v.begin(), v.end()); };
  const std::vector<int64_t> heads = h.per_layer("attention.head_count", m.layers);
  if (heads.empty()) {  // the weights are still exact from the tensor table; KV per token is not, so say so
    char gb[64];
    std::snprintf(gb, sizeof gb, "%llu bytes (%.2f GB)", static_cast<unsigned long long>(f.tensor_bytes_total()),
                  static_cast<double>(f.tensor_bytes_total()) / 1e9);
    throw InputError(path + ": the file's tensors hold " + gb + " of weights, but KV per token is unknown: the metadata has no '" +
                     h.arch + ".attention.head_count' (architecture " + h.arch + " not recognised); give a config.json or a card with --model");
  }
  m.heads = widest(heads);
  if (m.heads == 0) h.fail(h.arch + ".attention.head_count", "must be > 0");
  const std::vector<int64_t> kv_heads = h.per_layer("attention.head_count_kv", m.layers);
  m.kv_heads = kv_heads.empty() ? m.heads : widest(kv_heads);
  if (!h.opt("attention.key_length") && m.hidden % m.heads != 0)
    h.fail(h.arch + ".embedding_length", "(" + std::to_string(m.hidden) + ") must divide by the head count (" +
                                             std::to_string(m.heads) + ") when attention.key_length is not given");
  m.head_dim = h.opt("attention.key_length").value_or(m.hidden / m.heads);
  m.ffn = widest(h.per_layer("feed_forward_length", m.layers));
  m.max_context = h.opt("context_length").value_or(0);
  m.rope_theta = f.get_float(h.arch + ".rope.freq_base").value_or(10000.0);

  // Vocabulary: the embedding matrix's row count (what the weights and the LM head hold, padding included), else
  // the tokenizer's token list.
  if (const auto* embd = f.find_tensor("token_embd.weight"); embd && embd->dims.size() == 2 && embd->dims[1] > 0) {
    m.vocab = embd->dims[1];
  } else if (const auto* tokens = f.find("tokenizer.ggml.tokens"); tokens && tokens->array_size() > 0) {
    m.vocab = static_cast<int64_t>(tokens->array_size());
  } else {
    throw InputError(path + ": no 'tokenizer.ggml.tokens' list and no 'token_embd.weight' tensor to size the vocabulary");
  }

  try {
    check_dimensions(m);  // bounds before the loops over layers below
  } catch (const InputError& e) {
    throw InputError(path + ": " + e.what());
  }

  // Features from tensor names: a separate LM head, biases, q/k norms, gated FFN, sinks.
  m.tied_embeddings = !h.tensor("output.weight");
  m.attention_bias = h.tensor("blk.0.attn_q.bias");
  m.attention_out_bias = h.tensor("blk.0.attn_output.bias");
  m.qk_norm = h.tensor("blk.0.attn_q_norm.weight");
  m.attention_sinks = h.tensor("blk.0.attn_sinks.weight") || h.tensor("blk.0.attn_sinks");
  const bool gated = h.any_block_has("ffn_gate.weight", m.layers) || h.any_block_has("ffn_gate_exps.weight", m.layers);
  m.ffn_kind = gated ? FfnKind::swiglu : FfnKind::gelu;
  m.ffn_bias = h.any_block_has("ffn_up.bias", m.layers) || h.any_block_has("ffn_up_exps.bias", m.layers);
  if (h.tensor("blk.0.post_attention_norm.weight") && h.tensor("blk.0.post_ffw_norm.weight")) m.norms_per_layer = 4;

  if (const auto experts = h.opt("expert_count"); experts && *experts > 0) {
    MoeSpec e;
    e.experts = *experts;
    e.active_experts = h.need("expert_used_count");
    e.expert_ffn = h.opt("expert_feed_forward_length").value_or(m.ffn);
    e.shared_experts = h.opt("expert_shared_count").value_or(0);
    e.shared_expert_ffn = h.opt("expert_shared_feed_forward_length").value_or(e.shared_experts > 0 ? e.expert_ffn : 0);
    e.dense_layers = h.opt("leading_dense_block_count").value_or(0);
    e.router_bias = h.any_block_has("ffn_gate_inp.bias", m.layers) || h.any_block_has("exp_probs_b.bias", m.layers);
    m.moe = e;
  }
  if (const auto kv_lora = h.opt("attention.kv_lora_rank"); kv_lora && *kv_lora > 0) {
    MlaSpec a;
    a.kv_lora_rank = *kv_lora;
    a.q_lora_rank = h.opt("attention.q_lora_rank").value_or(0);
    a.qk_rope_head_dim = h.need("rope.dimension_count");
    a.qk_nope_head_dim = m.head_dim - a.qk_rope_head_dim;
    a.v_head_dim = h.opt("attention.value_length").value_or(a.qk_nope_head_dim);
    m.mla = a;
  }

  read_hybrid_layers(h, m);

  // Sliding windows: Gemma 3 makes every 6th layer global, gpt-oss alternates; others slide on all layers.
  if (const auto window = h.opt("attention.sliding_window"); window && *window > 0) {
    m.sliding_window = *window;
    if (h.arch == "gemma3") m.sliding_window_layers = m.layers - m.layers / 6;
    else if (h.arch == "gpt-oss") m.sliding_window_layers = (m.layers + 1) / 2;
    else m.sliding_window_layers = attention_layers(m);
  }

  namespace fs = std::filesystem;
  m.name = f.get_string("general.name").value_or(fs::path(path).stem().string());
  m.id = ascii_lower(fs::path(path).stem().string());
  m.source = path;
  try {
    validate_model(m);
  } catch (const InputError& e) {
    throw InputError(path + ": " + e.what());
  }
  return m;
}

namespace {

bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// The analyzer's class of a GGUF tensor, by llama.cpp's tensor names; nullopt for tensors of no class
// (rope_freqs, a vision tower's).
std::optional<ParamClass> tensor_class(const std::string& name) {
  if (name.rfind("token_embd.", 0) == 0) return ParamClass::embeddings;
  if (name.rfind("output.", 0) == 0) return ParamClass::lm_head;
  if (has(name, "norm")) return ParamClass::norms;
  if (name.rfind("blk.", 0) != 0) return std::nullopt;
  if (has(name, "_shexp")) return ParamClass::shared_experts;
  if (has(name, "_exps")) return ParamClass::experts;
  if (has(name, ".ffn_gate_inp") || has(name, ".exp_probs_b")) return ParamClass::router;
  if (has(name, ".attn_") || has(name, ".ssm_")) return ParamClass::attention;  // token mixers: attention and state layers
  if (has(name, ".ffn_")) return ParamClass::dense_ffn;
  return std::nullopt;
}

// The analyzer's format for a ggml type: the one the format table ties to it, else the GGUF block format nearest
// in bits per weight (the i-quants and ternary types have no kernels rates of their own).
std::string analyzer_format(const formats::GgmlTypeInfo& t) {
  if (const NumberFormat* f = format_of_ggml_type(t.id)) return f->name;
  const double bits = 8.0 * static_cast<double>(t.block_bytes) / static_cast<double>(t.block_values);
  std::string best = "q4_k";
  double gap = 1e9;
  for (const char* c : {"q2_k", "q3_k", "q4_k", "q5_k", "q6_k", "q8_0", "fp16"})
    if (const double g = std::abs(find_format(c).bits_per_weight() - bits); g < gap) gap = g, best = c;
  return best;
}

std::string megabytes(double bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f MB", bytes / 1e6);
  return b;
}

}  // namespace

PrecisionPlan gguf_precision_plan(const engine::GgufFile& f, const std::string& kv) {
  PrecisionPlan p;
  p.kv = find_format(kv).name;
  std::map<ParamClass, std::map<std::string, double>> by_class;  // class -> analyzer format -> bytes
  std::map<std::string, double> by_type;                          // ggml type name -> bytes (every tensor)
  for (const auto& t : f.tensors) {
    const auto info = formats::ggml_type_info(t.type);
    if (!info) continue;  // the parser refuses unknown types; kept total for safety
    const double bytes = static_cast<double>(t.bytes);
    if (const auto cls = tensor_class(t.name)) {
      by_type[info->name] += bytes;  // the listed formats add up to the weights
      p.stored_bytes[*cls] += bytes;
      if (t.dims.size() >= 2) {  // matrices set the rates
        const std::string format = analyzer_format(*info);
        by_class[*cls][format] += bytes;
        double values = 1;
        for (const int64_t d : t.dims) values *= static_cast<double>(d);
        const double width = static_cast<double>(t.dims[0]);
        auto& parts = p.stored_matrices[*cls];
        auto same = std::find_if(parts.begin(), parts.end(), [&](const StoredMatrices& m) { return m.format == format && m.width == width; });
        if (same == parts.end()) parts.push_back({format, width, values, bytes});
        else same->values += values, same->bytes += bytes;
      }
    }
  }
  if (p.stored_bytes.empty()) throw InputError(f.path + ": no weight tensor with a known name (token_embd, blk.N.attn_*, blk.N.ffn_* ...)");
  std::map<std::string, double> overall;
  for (const auto& [cls, formats] : by_class) {
    const auto top = std::max_element(formats.begin(), formats.end(), [](auto& a, auto& b) { return a.second < b.second; });
    p.per_class[cls] = top->first;
    if (cls != ParamClass::embeddings) overall[top->first] += top->second;
  }
  if (!overall.empty())
    p.weights = std::max_element(overall.begin(), overall.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
  std::vector<std::pair<std::string, double>> types(by_type.begin(), by_type.end());
  std::sort(types.begin(), types.end(), [](auto& a, auto& b) { return a.second > b.second; });
  for (const auto& [name, bytes] : types) {
    p.stored += (p.stored.empty() ? "" : ", ") + ascii_upper(name) + " " + megabytes(bytes);
  }
  return p;
}

PrecisionPlan gguf_precision_plan(const std::string& path, const std::string& kv) {
  return gguf_precision_plan(engine::open_gguf(path, false), kv);
}

}  // namespace rooftop::models
