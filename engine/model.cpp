// Loading a llama-family GGUF: hyperparameters from metadata, weight views with shape and format checks.
#include "engine/model.h"

#include <cmath>

#include "base/limits.h"

#include "base/errors.h"
#include "formats/ggml_types.h"

namespace rooftop::engine {
namespace {

using kernels::WeightFormat;
using kernels::WeightView;

int64_t require_int(const GgufFile& g, const std::string& key) {
  auto v = g.get_int(key);
  if (!v || *v <= 0 || *v > (int64_t(1) << 31))
    throw InputError(g.path + ": metadata '" + key + "' is missing or not a positive integer");
  return *v;
}

const GgufTensorInfo& require_tensor(const GgufFile& g, const std::string& name) {
  const GgufTensorInfo* t = g.find_tensor(name);
  if (!t) throw InputError(g.path + ": tensor '" + name + "' is missing (not a llama-architecture file?)");
  return *t;
}

std::string shape_str(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

// A matrix of `rows` rows of `cols` values: GGUF dims [cols, rows].
WeightView matrix(const GgufFile& g, const std::string& name, int64_t rows, int64_t cols) {
  const GgufTensorInfo& t = require_tensor(g, name);
  if (t.dims.size() != 2 || t.dims[0] != cols || t.dims[1] != rows)
    throw InputError(g.path + ": tensor '" + name + "' has shape " + shape_str(t.dims) + "; expected [" +
                     std::to_string(cols) + ", " + std::to_string(rows) + "]");
  const auto format = kernels::weight_format(t.type);
  if (!format)
    throw InputError(g.path + ": tensor '" + name + "' is " + formats::ggml_type_info(t.type)->name +
                     ", which the kernels do not read (supported: " + kernels::weight_format_names() + ")");
  WeightView w;
  w.format = *format;
  w.data = g.tensor_data(t);
  w.m = rows;
  w.k = cols;
  return w;
}

std::span<const float> vector_f32(const GgufFile& g, const std::string& name, int64_t n) {
  const GgufTensorInfo& t = require_tensor(g, name);
  if (t.elements() != n || t.type != 0)
    throw InputError(g.path + ": tensor '" + name + "' should be " + std::to_string(n) + " f32 values; it is " +
                     shape_str(t.dims) + " " + formats::ggml_type_info(t.type)->name);
  if (reinterpret_cast<uintptr_t>(g.tensor_data(t)) % alignof(float) != 0)
    throw InputError(g.path + ": tensor '" + name + "' is not 4-byte aligned");
  return {reinterpret_cast<const float*>(g.tensor_data(t)), size_t(n)};
}

}  // namespace

int64_t LlamaModel::weights_bytes_per_step() const {
  int64_t b = kernels::row_bytes(token_embd.format, token_embd.k);  // one embedding row
  for (const auto& l : layers)
    b += l.wq.bytes() + l.wk.bytes() + l.wv.bytes() + l.wo.bytes() + l.gate.bytes() + l.up.bytes() + l.down.bytes() +
         int64_t(4 * (l.attn_norm.size() + l.ffn_norm.size() + l.q_norm.size() + l.k_norm.size() +
                      l.post_attn_norm.size() + l.post_ffn_norm.size() + l.q_bias.size() + l.k_bias.size() +
                      l.v_bias.size()));
  return b + int64_t(4 * output_norm.size()) + output.bytes();
}

LlamaModel load_llama(const std::string& path) { return load_llama(open_gguf(path, true)); }

LlamaModel load_llama(GgufFile file) {
  LlamaModel m;
  m.file = std::move(file);
  const GgufFile& g = m.file;
  const std::string& path = g.path;
  const std::string arch = g.get_string("general.architecture").value_or("");
  if (arch != "llama" && arch != "qwen2" && arch != "gemma3")
    throw InputError(path + ": architecture '" + arch + "' is not supported by the engine; supported: llama, qwen2, gemma3");
  const bool gemma = arch == "gemma3", qwen2 = arch == "qwen2";
  const std::string a = arch + ".";
  LlamaConfig& c = m.cfg;
  c.layers = require_int(g, a + "block_count");
  c.dim = require_int(g, a + "embedding_length");
  c.heads = require_int(g, a + "attention.head_count");
  c.kv_heads = g.get_int(a + "attention.head_count_kv").value_or(c.heads);
  c.ffn_dim = require_int(g, a + "feed_forward_length");
  c.context = g.get_int(a + "context_length").value_or(2048);
  if (c.context <= 0 || c.context > limits::kContext)
    throw InputError(path + ": " + a + "context_length " + std::to_string(c.context) + " is out of range; expected 1 to " +
                     std::to_string(limits::kContext));
  c.rms_eps = float(g.get_float(a + "attention.layer_norm_rms_epsilon").value_or(1e-5));
  c.rope_base = float(g.get_float(a + "rope.freq_base").value_or(10000.0));
  const bool key_length = g.get_int(a + "attention.key_length").has_value();
  if ((c.dim % c.heads != 0 && !key_length) || c.kv_heads <= 0 || c.heads % c.kv_heads != 0 || c.layers > 1024)
    throw InputError(path + ": inconsistent attention shape: " + std::to_string(c.dim) + " wide, " +
                     std::to_string(c.heads) + " heads, " + std::to_string(c.kv_heads) + " KV heads");
  // Head dim: attention.key_length when given (Qwen3: 128 with width 1024 and 16 heads; Gemma 3: 256), else
  // width / heads.
  c.head_dim = c.dim / c.heads;
  if (auto kl = g.get_int(a + "attention.key_length")) {
    if (*kl <= 0 || *kl > limits::kHidden || g.get_int(a + "attention.value_length").value_or(*kl) != *kl)
      throw InputError(path + ": " + a + "attention.key_length " + std::to_string(*kl) +
                       " is out of range or differs from value_length; expected equal key and value head dims");
    c.head_dim = *kl;
  }
  if (c.head_dim % 2 != 0) throw InputError(path + ": head dimension " + std::to_string(c.head_dim) + " is odd");
  if (auto rd = g.get_int(a + "rope.dimension_count"); rd && *rd != c.head_dim)
    throw InputError(path + ": partial RoPE (" + std::to_string(*rd) + " of " + std::to_string(c.head_dim) +
                     " dims) is not supported");
  if (gemma) {
    // What llama.cpp's gemma3 graph does beyond the metadata (llama-model.cpp, LLM_ARCH_GEMMA3): embeddings
    // times sqrt(D); NeoX RoPE; GeGLU; sliding window on layers with (l + 1) % 6 != 0 at RoPE base 10,000
    // (global layers: rope.freq_base, scaled by 1/rope.scaling.factor when linear scaling is given); query
    // scale 1/sqrt(d), except the 27B (62 layers): 1/sqrt(D / H). The converter already added Gemma's
    // "1 + w" to every norm weight, so the norms are plain RMSNorm.
    c.embed_scale = std::sqrt(float(c.dim));
    c.rope_style = kernels::RopeStyle::halves;
    c.gelu = true;
    c.sliding_window = g.get_int(a + "attention.sliding_window").value_or(0);
    if (c.sliding_window < 0) throw InputError(path + ": " + a + "attention.sliding_window is negative");
    c.sliding_period = 6;
    c.rope_base_local = 10000.f;
    if (g.get_string(a + "rope.scaling.type").value_or("none") == "linear") {
      const double f = g.get_float(a + "rope.scaling.factor").value_or(1.0);
      if (!(f >= 1.0 && f <= 1024.0))
        throw InputError(path + ": " + a + "rope.scaling.factor " + std::to_string(f) + " is out of range; expected 1 to 1024");
      c.rope_freq_scale = float(1.0 / f);
    }
    if (c.layers == 62) c.query_scale = 1.f / std::sqrt(float(c.dim) / float(c.heads));
  }
  // Qwen2 (llama.cpp's LLM_ARCH_QWEN2): a llama layer with biases on the q, k and v projections and NeoX RoPE.
  if (qwen2) c.rope_style = kernels::RopeStyle::halves;
  const GgufTensorInfo& emb = require_tensor(g, "token_embd.weight");
  if (emb.dims.size() != 2) throw InputError(path + ": token_embd.weight is not a matrix");
  c.vocab = emb.dims[1];
  m.token_embd = matrix(g, "token_embd.weight", c.vocab, c.dim);
  const int64_t qd = c.heads * c.head_dim, kvd = c.kv_heads * c.head_dim;
  for (int64_t i = 0; i < c.layers; ++i) {
    std::string p = "blk." + std::to_string(i) + ".";
    LayerWeights l;
    l.attn_norm = vector_f32(g, p + "attn_norm.weight", c.dim);
    l.wq = matrix(g, p + "attn_q.weight", qd, c.dim);
    l.wk = matrix(g, p + "attn_k.weight", kvd, c.dim);
    l.wv = matrix(g, p + "attn_v.weight", kvd, c.dim);
    l.wo = matrix(g, p + "attn_output.weight", c.dim, qd);
    l.ffn_norm = vector_f32(g, p + "ffn_norm.weight", c.dim);
    l.gate = matrix(g, p + "ffn_gate.weight", c.ffn_dim, c.dim);
    l.up = matrix(g, p + "ffn_up.weight", c.ffn_dim, c.dim);
    l.down = matrix(g, p + "ffn_down.weight", c.dim, c.ffn_dim);
    if (qwen2) {
      l.q_bias = vector_f32(g, p + "attn_q.bias", qd);
      l.k_bias = vector_f32(g, p + "attn_k.bias", kvd);
      l.v_bias = vector_f32(g, p + "attn_v.bias", kvd);
    }
    if (gemma) {
      l.q_norm = vector_f32(g, p + "attn_q_norm.weight", c.head_dim);
      l.k_norm = vector_f32(g, p + "attn_k_norm.weight", c.head_dim);
      l.post_attn_norm = vector_f32(g, p + "post_attention_norm.weight", c.dim);
      l.post_ffn_norm = vector_f32(g, p + "post_ffw_norm.weight", c.dim);
    }
    m.layers.push_back(l);
  }
  // Llama 3.1+ files carry their long-context RoPE scaling as per-pair frequency factors (llama.cpp's
  // LLM_TENSOR_ROPE_FREQS, used by every layer's RoPE).
  if (g.find_tensor("rope_freqs.weight") && arch != "llama")  // llama.cpp's qwen2 and gemma3 graphs take no factors
    throw InputError(path + ": tensor 'rope_freqs.weight' in a " + arch + " file; only llama files carry RoPE factors");
  if (g.find_tensor("rope_freqs.weight")) {
    m.rope_freqs = vector_f32(g, "rope_freqs.weight", c.head_dim / 2);
    for (float f : m.rope_freqs)
      if (!(f > 0) || !std::isfinite(f))
        throw InputError(path + ": rope_freqs.weight holds " + std::to_string(f) + "; expected positive frequency factors");
  }
  m.output_norm = vector_f32(g, "output_norm.weight", c.dim);
  if (g.find_tensor("output.weight")) {
    m.output = matrix(g, "output.weight", c.vocab, c.dim);
  } else {
    m.output = m.token_embd;
    m.tied_embeddings = true;
  }
  return m;
}

}  // namespace rooftop::engine
