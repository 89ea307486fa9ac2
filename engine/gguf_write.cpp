// GGUF v3 writing: header, metadata key/values, tensor infos (32-byte aligned offsets), tensor data.
#include "engine/gguf_write.h"

#include <cstring>

#include "base/files.h"

namespace rooftop::engine {
namespace {

template <class T>
void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
void put_string(std::string& out, const std::string& s) {
  put<uint64_t>(out, s.size());
  out += s;
}

// A scalar of type t from the value's fields (integers from i, unsigned from u, floats from f).
void put_scalar(std::string& out, GgufType t, int64_t i, uint64_t u, double f, const std::string& s) {
  switch (t) {
    case GgufType::uint8: put<uint8_t>(out, uint8_t(u ? u : uint64_t(i))); return;
    case GgufType::int8: put<int8_t>(out, int8_t(i)); return;
    case GgufType::uint16: put<uint16_t>(out, uint16_t(u ? u : uint64_t(i))); return;
    case GgufType::int16: put<int16_t>(out, int16_t(i)); return;
    case GgufType::uint32: put<uint32_t>(out, uint32_t(u ? u : uint64_t(i))); return;
    case GgufType::int32: put<int32_t>(out, int32_t(i)); return;
    case GgufType::uint64: put<uint64_t>(out, u ? u : uint64_t(i)); return;
    case GgufType::int64: put<int64_t>(out, i); return;
    case GgufType::float32: put<float>(out, float(f)); return;
    case GgufType::float64: put<double>(out, f); return;
    case GgufType::boolean: put<uint8_t>(out, uint8_t(i != 0)); return;
    case GgufType::string: put_string(out, s); return;
    case GgufType::array: throw InternalError("GGUF writer: an array passed as a scalar");
  }
}

void append_array_body(std::string& out, const GgufValue& v) {
  put<uint32_t>(out, uint32_t(v.elem_type));
  put<uint64_t>(out, v.array_size());
  switch (v.elem_type) {
    case GgufType::string:
      for (const auto& s : v.strings) put_string(out, s);
      return;
    case GgufType::float32: case GgufType::float64:
      for (double x : v.floats) put_scalar(out, v.elem_type, 0, 0, x, "");
      return;
    case GgufType::array:
      for (const auto& item : v.items) append_array_body(out, item);
      return;
    default:
      for (int64_t x : v.ints) put_scalar(out, v.elem_type, x, 0, 0, "");
  }
}

GgufValue u32(int64_t v) {
  GgufValue g;
  g.type = GgufType::uint32;
  g.i = v;
  g.u = uint64_t(v);
  return g;
}
GgufValue f32(double v) {
  GgufValue g;
  g.type = GgufType::float32;
  g.f = v;
  return g;
}
GgufValue str(const std::string& v) {
  GgufValue g;
  g.type = GgufType::string;
  g.s = v;
  return g;
}

}  // namespace

void append_gguf_value(std::string& out, const GgufValue& v) {
  put<uint32_t>(out, uint32_t(v.type));
  if (v.type == GgufType::array) append_array_body(out, v);
  else put_scalar(out, v.type, v.i, v.u, v.f, v.s);
}

std::map<std::string, GgufValue> tokenizer_metadata(const GgufFile& f) {
  std::map<std::string, GgufValue> out;
  for (const auto& [key, value] : f.metadata)
    if (key.rfind("tokenizer.", 0) == 0) out[key] = value;
  return out;
}

void write_llama_gguf(const std::string& path, const LlamaModel& m, const std::map<std::string, GgufValue>& extra) {
  const LlamaConfig& c = m.cfg;
  std::map<std::string, GgufValue> kv = extra;
  kv["general.architecture"] = str("llama");
  kv["general.name"] = str(m.file.path.empty() ? "rooftop synthetic llama" : m.file.path);
  kv["general.alignment"] = u32(32);
  kv["llama.block_count"] = u32(c.layers);
  kv["llama.embedding_length"] = u32(c.dim);
  kv["llama.attention.head_count"] = u32(c.heads);
  kv["llama.attention.head_count_kv"] = u32(c.kv_heads);
  kv["llama.feed_forward_length"] = u32(c.ffn_dim);
  kv["llama.context_length"] = u32(c.context);
  kv["llama.rope.dimension_count"] = u32(c.head_dim);
  kv["llama.attention.key_length"] = u32(c.head_dim);  // heads x head dim may differ from the width (Qwen3)
  kv["llama.attention.value_length"] = u32(c.head_dim);
  kv["llama.attention.layer_norm_rms_epsilon"] = f32(c.rms_eps);
  kv["llama.rope.freq_base"] = f32(c.rope_base);
  kv["llama.vocab_size"] = u32(c.vocab);

  struct Tensor {
    std::string name;
    uint32_t type;
    std::vector<uint64_t> ne;  // ne[0] = row length first
    const std::byte* data;
    uint64_t bytes;
  };
  std::vector<Tensor> tensors;
  auto matrix = [&](const std::string& name, const kernels::WeightView& w) {
    tensors.push_back({name, uint32_t(w.format), {uint64_t(w.k), uint64_t(w.m)}, w.data, uint64_t(w.bytes())});
  };
  auto vector = [&](const std::string& name, std::span<const float> v) {
    tensors.push_back({name, 0, {uint64_t(v.size())}, reinterpret_cast<const std::byte*>(v.data()), uint64_t(4 * v.size())});
  };
  matrix("token_embd.weight", m.token_embd);
  for (size_t l = 0; l < m.layers.size(); ++l) {
    const LayerWeights& w = m.layers[l];
    const std::string p = "blk." + std::to_string(l) + ".";
    vector(p + "attn_norm.weight", w.attn_norm);
    matrix(p + "attn_q.weight", w.wq);
    matrix(p + "attn_k.weight", w.wk);
    matrix(p + "attn_v.weight", w.wv);
    matrix(p + "attn_output.weight", w.wo);
    vector(p + "ffn_norm.weight", w.ffn_norm);
    matrix(p + "ffn_gate.weight", w.gate);
    matrix(p + "ffn_up.weight", w.up);
    matrix(p + "ffn_down.weight", w.down);
  }
  vector("output_norm.weight", m.output_norm);
  if (!m.tied_embeddings) matrix("output.weight", m.output);
  if (!m.rope_freqs.empty()) vector("rope_freqs.weight", m.rope_freqs);  // Llama 3.1+: kept through a rewrite

  std::string out = "GGUF";
  put<uint32_t>(out, 3);
  put<uint64_t>(out, tensors.size());
  put<uint64_t>(out, kv.size());
  for (const auto& [key, value] : kv) {
    put_string(out, key);
    append_gguf_value(out, value);
  }
  constexpr uint64_t kAlign = 32;
  uint64_t offset = 0;
  for (const auto& t : tensors) {
    put_string(out, t.name);
    put<uint32_t>(out, uint32_t(t.ne.size()));
    for (uint64_t d : t.ne) put<uint64_t>(out, d);
    put<uint32_t>(out, t.type);
    put<uint64_t>(out, offset);
    offset = (offset + t.bytes + kAlign - 1) / kAlign * kAlign;
  }
  out.resize((out.size() + kAlign - 1) / kAlign * kAlign, '\0');
  const size_t data_start = out.size();
  out.reserve(data_start + offset);
  for (const auto& t : tensors) {
    out.append(reinterpret_cast<const char*>(t.data), t.bytes);
    out.resize((out.size() - data_start + kAlign - 1) / kAlign * kAlign + data_start, '\0');
  }
  write_file_atomically(path, out);
}

}  // namespace rooftop::engine
