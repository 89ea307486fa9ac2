// GGUF import: a synthetic GGUF written here and the set-up's SmolLM2 file map to the expected ModelSpec.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "base/suggest.h"
#include "formats/formats.h"
#include "analyzer/memory.h"
#include "analyzer/params.h"
#include "engine/model_path.h"
#include "models/models.h"
#include "tests/models/spec_compare.h"

using namespace rooftop;
using Catch::Matchers::Contains;

namespace {
// name in the folder rooftop-test-gguf under the temp directory (created).
std::string temp_path(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "rooftop-test-gguf";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

// A minimal GGUF v3 writer: metadata (u32, f32, string, string array) and F32 tensor infos. The data
// section is left as a sparse hole (resize_file), since only the header is read.
struct GgufWriter {
  std::string kv;
  uint64_t n_kv = 0;
  std::vector<std::pair<std::string, std::vector<uint64_t>>> tensors;

  template <class T> static void put(std::string& s, T v) { s.append(reinterpret_cast<const char*>(&v), sizeof v); }
  static void put_str(std::string& s, const std::string& v) { put<uint64_t>(s, v.size()); s += v; }
  void u32(const std::string& key, uint32_t v) { put_str(kv, key); put<uint32_t>(kv, 4); put(kv, v); ++n_kv; }
  void f32(const std::string& key, float v) { put_str(kv, key); put<uint32_t>(kv, 6); put(kv, v); ++n_kv; }
  void str(const std::string& key, const std::string& v) { put_str(kv, key); put<uint32_t>(kv, 8); put_str(kv, v); ++n_kv; }
  void strs(const std::string& key, const std::vector<std::string>& v) {
    put_str(kv, key); put<uint32_t>(kv, 9); put<uint32_t>(kv, 8); put<uint64_t>(kv, v.size());
    for (const auto& s : v) put_str(kv, s);
    ++n_kv;
  }
  void u32s(const std::string& key, const std::vector<uint32_t>& v) {
    put_str(kv, key); put<uint32_t>(kv, 9); put<uint32_t>(kv, 4); put<uint64_t>(kv, v.size());
    for (uint32_t x : v) put(kv, x);
    ++n_kv;
  }
  // general.architecture = `arch`, then each u32 hyperparameter under its key "<arch>.<key>".
  void arch(const std::string& arch, std::initializer_list<std::pair<const char*, uint32_t>> keys) {
    str("general.architecture", arch);
    for (const auto& [key, v] : keys) u32(arch + "." + key, v);
  }
  void tensor(const std::string& name, std::vector<uint64_t> dims) { tensors.emplace_back(name, std::move(dims)); }

  void write(const std::string& path) const {
    std::string h = "GGUF";
    put<uint32_t>(h, 3);
    put<uint64_t>(h, tensors.size());
    put<uint64_t>(h, n_kv);
    h += kv;
    uint64_t offset = 0;
    for (const auto& [name, dims] : tensors) {
      put_str(h, name);
      put<uint32_t>(h, static_cast<uint32_t>(dims.size()));
      uint64_t n = 1;
      for (uint64_t d : dims) { put<uint64_t>(h, d); n *= d; }
      put<uint32_t>(h, 0);  // F32
      put<uint64_t>(h, offset);
      offset += (n * 4 + 31) / 32 * 32;
    }
    const uint64_t data_start = (h.size() + 31) / 32 * 32;
    std::ofstream(path, std::ios::binary).write(h.data(), static_cast<std::streamsize>(h.size()));
    std::filesystem::resize_file(path, data_start + offset);
  }
  // Writes the file as temp_path(name); returns that path.
  std::string write_temp(const std::string& name) const {
    const std::string path = temp_path(name);
    write(path);
    return path;
  }
};

// Checks that m is a hybrid whose `layers` state layers of `kind` run in sequence with its attention.
void check_sequential_state(const ModelSpec& m, StateKind kind, int64_t layers) {
  REQUIRE(m.state.has_value());
  CHECK(m.state->kind == kind);
  CHECK(m.state->layers == layers);
  CHECK_FALSE(m.state->parallel);
}

// Removes the folder temp_path writes into.
void remove_temp_files() { std::filesystem::remove_all(std::filesystem::temp_directory_path() / "rooftop-test-gguf"); }
}  // namespace

TEST_CASE("a synthetic dense GGUF maps its metadata and tensor names to a ModelSpec", "[models][gguf]") {
  // vocab 7, hidden 64, 3 layers, 8 query heads sharing 2 KV heads of width 16, FFN 96, separate LM
  // head, q/k/v biases, gated FFN.
  GgufWriter w;
  w.arch("qwen2", {{"block_count", 3}, {"embedding_length", 64}, {"feed_forward_length", 96},
                   {"attention.head_count", 8}, {"attention.head_count_kv", 2}, {"context_length", 2048}});
  w.str("general.name", "Tiny Qwen");
  w.f32("qwen2.rope.freq_base", 1e6f);
  w.strs("tokenizer.ggml.tokens", {"a", "b", "c", "d", "e", "f", "g"});
  w.tensor("token_embd.weight", {64, 7});
  w.tensor("output.weight", {64, 7});
  for (int i = 0; i < 3; ++i) {
    const std::string b = "blk." + std::to_string(i) + ".";
    w.tensor(b + "attn_q.weight", {64, 128});
    w.tensor(b + "attn_q.bias", {128});
    w.tensor(b + "ffn_gate.weight", {64, 96});
  }
  const std::string path = w.write_temp("tiny-qwen.gguf");

  const ModelSpec m = models::from_gguf(path);
  CHECK(m.id == "tiny-qwen");
  CHECK(m.name == "Tiny Qwen");
  CHECK(m.family == "qwen2");
  CHECK(m.vocab == 7);
  CHECK(m.hidden == 64);
  CHECK(m.layers == 3);
  CHECK(m.heads == 8);
  CHECK(m.kv_heads == 2);
  CHECK(m.head_dim == 8);  // no key_length: hidden / heads
  CHECK(m.ffn == 96);
  CHECK(m.max_context == 2048);
  CHECK(m.rope_theta == 1e6);
  CHECK_FALSE(m.tied_embeddings);
  CHECK(m.attention_bias);
  CHECK(m.ffn_kind == FfnKind::swiglu);
  CHECK_FALSE(m.moe.has_value());
}

TEST_CASE("a padded vocabulary is the embedding's row count, not the tokenizer's list", "[models][gguf]") {
  GgufWriter w;
  w.arch("llama", {{"block_count", 1}, {"embedding_length", 64}, {"feed_forward_length", 96},
                   {"attention.head_count", 4}});
  w.strs("tokenizer.ggml.tokens", {"a", "b", "c", "d", "e", "f", "g"});  // 7 tokens ...
  w.tensor("token_embd.weight", {64, 16});                               // ... in 16 rows (padded)
  const std::string path = w.write_temp("padded-vocab.gguf");
  CHECK(models::from_gguf(path).vocab == 16);  // the rows the weights and the LM head hold
}

TEST_CASE("a synthetic MoE GGUF with sliding windows and sinks (gpt-oss layout)", "[models][gguf]") {
  GgufWriter w;
  w.arch("gpt-oss", {{"block_count", 4}, {"embedding_length", 32}, {"feed_forward_length", 32},
                     {"expert_feed_forward_length", 32}, {"attention.head_count", 4}, {"attention.head_count_kv", 2},
                     {"attention.key_length", 16}, {"attention.sliding_window", 128}, {"expert_count", 8},
                     {"expert_used_count", 2}});
  w.strs("tokenizer.ggml.tokens", {"x", "y", "z"});
  w.tensor("token_embd.weight", {32, 3});
  w.tensor("output.weight", {32, 3});
  w.tensor("blk.0.attn_sinks.weight", {4});
  w.tensor("blk.0.attn_output.bias", {32});
  w.tensor("blk.0.attn_q.bias", {64});
  w.tensor("blk.0.ffn_gate_exps.weight", {32, 32, 8});
  w.tensor("blk.0.ffn_up_exps.bias", {32, 8});
  w.tensor("blk.0.ffn_gate_inp.bias", {8});
  const std::string path = w.write_temp("mini-oss.gguf");

  const ModelSpec m = models::from_gguf(path);
  REQUIRE(m.moe.has_value());
  CHECK(m.moe->experts == 8);
  CHECK(m.moe->active_experts == 2);
  CHECK(m.moe->expert_ffn == 32);
  CHECK(m.moe->router_bias);
  CHECK(m.head_dim == 16);
  CHECK(m.attention_sinks);
  CHECK(m.attention_out_bias);
  CHECK(m.ffn_bias);
  CHECK(m.sliding_window == 128);
  CHECK(m.sliding_window_layers == 2);  // alternating
}

TEST_CASE("GGUF files missing a key or not GGUF at all give InputError naming the file", "[models][gguf]") {
  GgufWriter w;
  w.arch("llama", {{"embedding_length", 64}, {"attention.head_count", 8}});
  w.strs("tokenizer.ggml.tokens", {"a"});
  const std::string path = w.write_temp("no-blocks.gguf");
  CHECK_THROWS_WITH(models::from_gguf(path), Contains(path + ": GGUF key 'llama.block_count' is missing"));

  const std::string junk = temp_path("junk.gguf");
  std::ofstream(junk) << "this is not a gguf file at all, just text";
  CHECK_THROWS_AS(models::from_gguf(junk), InputError);
  remove_temp_files();
}

TEST_CASE("the set-up's SmolLM2-135M GGUF has the smollm2-135m card's architecture", "[models][gguf]") {
  const std::string path = engine::default_model_path();
  if (!std::filesystem::exists(path)) {
    WARN("skipped: " << path << " is absent (scripts/setup.sh fetches it)");
    return;
  }
  const ModelSpec m = models::from_gguf(path);
  const auto db = models::load();
  const ModelSpec& card = *db.find("smollm2-135m");
  CHECK(test::architecture_diff(m, card) == "");
  CHECK(count_params(m).total == count_params(card).total);
  CHECK(count_params(m).total == 134515008.0);
}

// Gemma 3 270M: the card (from google/gemma-3-270m's config.json) and the file's header give the same architecture
// and the same KV per token: 2 x 18 layers x 1 KV head x 256 x 2 bytes (fp16) = 18,432 B while every layer grows;
// past the 512-token window only the 3 global layers grow (3,072 B per token).
TEST_CASE("the set-up's Gemma 3 270M GGUF has the gemma-3-270m card's architecture and KV", "[models][gguf]") {
  const std::string path = engine::gemma_model_path();
  if (!std::filesystem::exists(path)) FAIL(path << " is absent: run scripts/setup.sh to fetch it");
  const ModelSpec m = models::from_gguf(path);
  const auto db = models::load();
  const ModelSpec& card = *db.find("gemma-3-270m");
  CHECK(test::architecture_diff(m, card) == "");
  const NumberFormat& f16 = find_format("fp16");
  CHECK(kv_bytes_per_token(m, f16) == 18432.0);
  CHECK(kv_bytes_per_token(card, f16) == 18432.0);
  for (int64_t ctx : {100, 512, 513, 4096, 32768}) {
    INFO("context " << ctx);
    CHECK(kv_bytes(m, f16, ctx, 1) == kv_bytes(card, f16, ctx, 1));
  }
  CHECK(kv_bytes(m, f16, 512, 1) == 18432.0 * 512);
  CHECK(kv_bytes(m, f16, 4096, 1) - kv_bytes(m, f16, 2048, 1) == 3072.0 * 2048);
}

TEST_CASE("a hybrid GGUF (nemotron_h layout): layer kinds from each block's tensors, per-layer lists read",
          "[models][gguf][hybrid]") {
  // 4 blocks: Mamba-2, attention, MLP, Mamba-2 (llama.cpp writes 0 KV heads and 0 FFN width for blocks
  // without them). Mamba-2: inner 64 = 4 heads of 16, state 8, 2 groups, conv kernel 4.
  GgufWriter w;
  w.arch("nemotron_h", {{"block_count", 4}, {"embedding_length", 32}, {"attention.key_length", 8},
                        {"ssm.conv_kernel", 4}, {"ssm.inner_size", 64}, {"ssm.state_size", 8}, {"ssm.group_count", 2},
                        {"ssm.time_step_rank", 4}});
  w.u32s("nemotron_h.feed_forward_length", {0, 0, 96, 0});
  w.u32s("nemotron_h.attention.head_count", {4, 4, 4, 4});
  w.u32s("nemotron_h.attention.head_count_kv", {0, 2, 0, 0});
  w.strs("tokenizer.ggml.tokens", {"x", "y", "z"});
  w.tensor("token_embd.weight", {32, 3});
  w.tensor("output.weight", {32, 3});
  for (int i : {0, 3}) {
    const std::string b = "blk." + std::to_string(i) + ".";
    w.tensor(b + "ssm_in.weight", {32, 164});  // 2 x 64 + 2 x 2 x 8 + 4
    w.tensor(b + "ssm_conv1d.weight", {4, 96});
    w.tensor(b + "ssm_conv1d.bias", {96});
    w.tensor(b + "ssm_norm.weight", {64});
    w.tensor(b + "ssm_out.weight", {64, 32});
  }
  w.tensor("blk.1.attn_q.weight", {32, 32});
  w.tensor("blk.1.attn_k.weight", {32, 16});
  w.tensor("blk.2.ffn_up.weight", {32, 96});
  w.tensor("blk.2.ffn_down.weight", {96, 32});
  const std::string path = w.write_temp("tiny-nemotron-h.gguf");

  const ModelSpec m = models::from_gguf(path);
  check_sequential_state(m, StateKind::mamba2, 2);
  CHECK(m.state->heads == 4);
  CHECK(m.state->head_dim == 16);
  CHECK(m.state->groups == 2);
  CHECK(attention_layers(m) == 1);
  CHECK(m.mixer_free_layers == 1);
  CHECK(ffn_layers(m) == 1);
  CHECK(m.kv_heads == 2);
  CHECK(m.ffn == 96);
  // KV: 1 layer x 2 x 2 heads x 8 x 2 bytes; state: 2 x (4 x 16 x 8 x 4 bytes (f32, as llama.cpp) +
  // 3 x (64 + 2 x 2 x 8) x 2 bytes).
  CHECK(kv_bytes_per_token(m, find_format("bf16")) == 64.0);
  CHECK(state_bytes_per_sequence(m) == 2.0 * (2048.0 + 576.0));
  // The state layers' tensors count as weights (token mixers), exactly as stored.
  const PrecisionPlan p = models::gguf_precision_plan(path);
  const double f32 = 4.0;
  const double ssm = 2.0 * (32 * 164 + 4 * 96 + 96 + 64 + 64 * 32) * f32;
  const double attn = (32 * 32 + 32 * 16) * f32;
  CHECK(p.stored_bytes.at(ParamClass::attention) == ssm - 2.0 * 64 * f32 + attn);  // ssm_norm counts as a norm
  CHECK(p.stored_bytes.at(ParamClass::norms) == 2.0 * 64 * f32);

  // A per-layer list of the wrong length names the key.
  GgufWriter bad;
  bad.arch("nemotron_h", {{"block_count", 4}, {"embedding_length", 32}, {"attention.head_count", 4}});
  bad.u32s("nemotron_h.attention.head_count_kv", {0, 2});
  bad.strs("tokenizer.ggml.tokens", {"x", "y", "z"});
  const std::string bad_path = bad.write_temp("bad-list.gguf");
  CHECK_THROWS_WITH(models::from_gguf(bad_path), Contains("head_count_kv' has 2 entries; expected one per layer (4)"));
  remove_temp_files();
}

TEST_CASE("a Qwen3.5-layout GGUF: Gated DeltaNet blocks hold attn_qkv but keep no KV", "[models][gguf][hybrid]") {
  // 4 blocks, every 4th full attention (block 3). The DeltaNet blocks store their fused q/k/v input as
  // attn_qkv and their output gate as attn_gate (llama.cpp's qwen35 layout).
  GgufWriter w;
  // ssm: inner_size is value heads x value dim (2 x 16), state_size the key head dim, group_count the key
  // heads, time_step_rank the value heads.
  w.arch("qwen35", {{"block_count", 4}, {"embedding_length", 32}, {"feed_forward_length", 64},
                    {"attention.head_count", 2}, {"attention.head_count_kv", 1}, {"attention.key_length", 16},
                    {"ssm.conv_kernel", 4}, {"ssm.inner_size", 32}, {"ssm.state_size", 16}, {"ssm.group_count", 1},
                    {"ssm.time_step_rank", 2}});
  w.strs("tokenizer.ggml.tokens", {"x", "y", "z"});
  w.tensor("token_embd.weight", {32, 3});
  for (int i = 0; i < 4; ++i) {
    const std::string b = "blk." + std::to_string(i) + ".";
    if (i == 3) {
      w.tensor(b + "attn_q.weight", {32, 64});  // queries and the output gate: 2 x 2 heads x 16
      w.tensor(b + "attn_k.weight", {32, 16});
      w.tensor(b + "attn_v.weight", {32, 16});
    } else {
      w.tensor(b + "attn_qkv.weight", {32, 64});
      w.tensor(b + "attn_gate.weight", {32, 32});
      w.tensor(b + "ssm_conv1d.weight", {4, 64});
      w.tensor(b + "ssm_beta.weight", {32, 2});
      w.tensor(b + "ssm_out.weight", {32, 32});
    }
    w.tensor(b + "ffn_up.weight", {32, 64});
  }
  const std::string path = w.write_temp("tiny-qwen35.gguf");
  const ModelSpec m = models::from_gguf(path);
  check_sequential_state(m, StateKind::gated_deltanet, 3);
  CHECK(attention_layers(m) == 1);
  CHECK(m.attention_output_gate);
  // KV: 1 layer x 2 x 1 head x 16 x 2 bytes; state: 3 x (2 heads x 16 x 16 x 4 bytes + 3 x (2 x 16 + 32) x 2 bytes).
  CHECK(kv_bytes_per_token(m, find_format("bf16")) == 64.0);
  CHECK(state_bytes_per_sequence(m) == 3.0 * (2048.0 + 384.0));
  remove_temp_files();
}

TEST_CASE("an unknown architecture: the weights from the tensor table, and KV per token said to be unknown", "[models][gguf]") {
  GgufWriter w;
  w.arch("brand-new", {{"block_count", 2}, {"embedding_length", 64}});
  w.strs("tokenizer.ggml.tokens", {"a", "b"});
  w.tensor("token_embd.weight", {64, 2});       // 128 f32 values: 512 bytes
  w.tensor("blk.0.mixer.weight", {64, 64});     // 16,384 bytes
  const std::string path = w.write_temp("brand-new.gguf");
  CHECK_THROWS_WITH(models::from_gguf(path), Contains("tensors hold 16896 bytes (0.00 GB) of weights, but KV per token is unknown"));
  CHECK_THROWS_WITH(models::from_gguf(path), Contains("no 'brand-new.attention.head_count'"));
  // The weights alone are still sized exactly: every tensor with a class (here the embedding table).
  CHECK(models::gguf_precision_plan(path).stored_bytes.at(ParamClass::embeddings) == 512.0);
  remove_temp_files();
}
