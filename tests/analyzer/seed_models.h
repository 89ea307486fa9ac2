// ModelSpecs built by hand from public config.json files, so analyzer tests need no loader; and made-up chips.
#pragma once
#include <map>
#include <string>
#include <utility>

#include "analyzer/chip_spec.h"
#include "analyzer/model_spec.h"

namespace rooftop::test {

// A dense llama-shaped spec of the given shape (toy models in tests; the model cards below start from it).
inline ModelSpec dense_spec(const char* id, int64_t vocab, int64_t hidden, int64_t layers, int64_t heads, int64_t kv_heads,
                            int64_t head_dim, int64_t ffn) {
  ModelSpec m;
  m.id = id;
  m.vocab = vocab; m.hidden = hidden; m.layers = layers; m.heads = heads; m.kv_heads = kv_heads; m.head_dim = head_dim; m.ffn = ffn;
  return m;
}

// A chip of the given kind, memory, bandwidth and datasheet peaks per format (made-up chips in tests).
inline ChipSpec chip_spec(const char* id, const char* kind, double memory_bytes, double bandwidth_bytes_per_s,
                          std::map<std::string, double> peak_flops = {}) {
  ChipSpec c;
  c.id = id;
  c.kind = kind;
  c.memory_bytes = memory_bytes;
  c.memory_bandwidth_bytes_per_s = bandwidth_bytes_per_s;
  c.peak_flops = std::move(peak_flops);
  return c;
}

// SmolLM2-135M (huggingface.co/HuggingFaceTB/SmolLM2-135M/blob/main/config.json).
inline ModelSpec smollm2_135m() {
  ModelSpec m = dense_spec("smollm2-135m", 49152, 576, 30, 9, 3, 64, 1536);
  m.tied_embeddings = true; m.max_context = 8192;
  return m;
}

// Llama-3.1-70B (meta-llama/Llama-3.1-70B config.json).
inline ModelSpec llama31_70b() {
  ModelSpec m = dense_spec("llama-3.1-70b", 128256, 8192, 80, 64, 8, 128, 28672);
  m.max_context = 131072;
  return m;
}

// Llama-3.1-8B.
inline ModelSpec llama31_8b() {
  ModelSpec m = dense_spec("llama-3.1-8b", 128256, 4096, 32, 32, 8, 128, 14336);
  m.max_context = 131072;
  return m;
}

// gpt-oss-120b (openai/gpt-oss-120b config.json): 36 layers, 128 experts, 4 active, sliding window 128 on half.
inline ModelSpec gpt_oss_120b() {
  ModelSpec m = dense_spec("gpt-oss-120b", 201088, 2880, 36, 64, 8, 64, 0);
  m.attention_bias = true; m.attention_out_bias = true; m.ffn_bias = true;
  MoeSpec e; e.experts = 128; e.active_experts = 4; e.expert_ffn = 2880; e.router_bias = true;
  m.moe = e;
  m.sliding_window = 128; m.sliding_window_layers = 18; m.max_context = 131072;
  return m;
}

// DeepSeek-V3 (deepseek-ai/DeepSeek-V3 config.json): MLA, 256 experts + 1 shared, 8 active, 3 dense layers.
inline ModelSpec deepseek_v3() {
  ModelSpec m = dense_spec("deepseek-v3", 129280, 7168, 61, 128, 128, 192, 18432);
  MoeSpec e; e.experts = 256; e.active_experts = 8; e.shared_experts = 1; e.expert_ffn = 2048; e.dense_layers = 3;
  m.moe = e;
  MlaSpec a; a.kv_lora_rank = 512; a.q_lora_rank = 1536; a.qk_rope_head_dim = 64; a.qk_nope_head_dim = 128; a.v_head_dim = 128;
  m.mla = a;
  m.max_context = 163840;
  return m;
}

}  // namespace rooftop::test
