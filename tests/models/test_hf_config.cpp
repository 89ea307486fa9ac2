// HF config.json import: committed sample configs give the same architecture as the cards; bad configs name file and key.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "base/suggest.h"
#include "formats/formats.h"
#include "analyzer/memory.h"
#include "analyzer/params.h"
#include "models/models.h"
#include "tests/models/spec_compare.h"

using namespace rooftop;
using Catch::Matchers::Contains;

namespace {
std::string data(const std::string& rel) { return std::string(ROOFTOP_SOURCE_DIR) + "/tests/models/data/" + rel; }

std::string write_temp(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "rooftop-test-hf" / name;
  std::filesystem::create_directories(dir);
  const auto p = dir / "config.json";
  std::ofstream(p) << text;
  return p.string();
}

// The parameters of m's tensor groups whose names start with `prefix` (e.g. "blk.*.ssm": the state layers').
double group_params(const ModelSpec& m, const std::string& prefix) {
  double sum = 0;
  for (const auto& g : tensor_groups(m))
    if (g.name.rfind(prefix, 0) == 0) sum += g.params();
  return sum;
}
}  // namespace

TEST_CASE("each committed config.json imports to its card's architecture", "[models][hf]") {
  const auto db = models::load();
  for (const char* id : {"smollm2-135m", "qwen2.5-0.5b", "mistral-7b", "mixtral-8x7b", "gpt-oss-120b", "deepseek-v3",
                         "qwen3-30b-a3b", "gemma-3-270m", "gemma-2-9b", "phi-4", "qwen2-57b-a14b", "kimi-k2-instruct",
                         "deepseek-r1", "qwen3-next-80b-a3b", "nemotron-h-56b", "llama-4-scout", "llama-4-maverick",
                         "qwen3.5-397b-a17b", "qwen3.5-122b-a10b", "qwen3.5-35b-a3b", "qwen3.5-27b",
                         "nemotron-3-nano-30b-a3b", "kimi-k2.5", "qwen3-235b-a22b", "deepseek-v3.2", "glm-5",
                         "minimax-m2.5", "gemma-3-4b", "gemma-3-27b", "mistral-small-3.1-24b"}) {
    INFO(id);
    const ModelSpec imported = models::from_hf_config(data(std::string(id) + "/config.json"));
    const ModelSpec* card = db.find(id);
    REQUIRE(card != nullptr);
    CHECK(imported.id == id);  // the folder name
    CHECK(test::architecture_diff(imported, *card) == "");
    CHECK(count_params(imported).total == count_params(*card).total);
  }
}

TEST_CASE("bad config.json files give one line naming the file and the key", "[models][hf]") {
  const std::string broken = write_temp("broken", "{\"model_type\": \"llama\", ");
  CHECK_THROWS_WITH(models::from_hf_config(broken), Contains(broken + ": invalid JSON"));

  const std::string missing = write_temp("missing", R"({"model_type": "llama", "vocab_size": 10, "hidden_size": 8,
      "num_attention_heads": 2, "intermediate_size": 16})");
  CHECK_THROWS_WITH(models::from_hf_config(missing), Contains(missing + ": key 'num_hidden_layers' is missing"));

  const std::string typed = write_temp("typed", R"({"model_type": "llama", "vocab_size": "many", "hidden_size": 8,
      "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 16})");
  CHECK_THROWS_WITH(models::from_hf_config(typed), Contains("key 'vocab_size' must be a whole number"));

  const std::string moe = write_temp("moe", R"({"model_type": "mixtral", "vocab_size": 10, "hidden_size": 8,
      "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 16, "num_experts_per_tok": 2})");
  CHECK_THROWS_WITH(models::from_hf_config(moe), Contains("key 'num_local_experts' is missing"));

  const std::string unknown = write_temp("unknown", R"({"model_type": "lama"})");
  CHECK_THROWS_WITH(models::from_hf_config(unknown), Contains("unknown model_type 'lama'; closest: llama"));

  CHECK_THROWS_AS(models::from_hf_config("/no/such/dir/config.json"), InputError);
  std::filesystem::remove_all(std::filesystem::temp_directory_path() / "rooftop-test-hf");
}

TEST_CASE("published totals of the new model types, from their own config.json", "[models][hf][params]") {
  // Where tests/models/data/SOURCES.md found each config, and each published figure as printed.
  struct Case {
    const char* dir;
    double published;  // as printed
    double unit;       // the printed figure's last digit: exact counts 1, "56B" 1e9
  };
  const Case cases[] = {
      {"gemma-2-9b", 9241705984.0, 1},        // safetensors index: 18,483,411,968 bytes of bf16
      {"phi-4", 14659507200.0, 1},            // HF safetensors count (llmfit's copy of the HF API)
      {"qwen2-57b-a14b", 57e9, 1e9},          // Qwen2 technical report: "57B-A14B"
      {"kimi-k2-instruct", 1e12, 1e11},       // model card: "1 trillion total parameters"
      {"deepseek-r1", 671e9, 1e9},            // NVIDIA NIM model card: "Total Parameters: 671 billion"
      {"qwen3-next-80b-a3b", 80e9, 1e9},      // model card: "80B in total"
      {"nemotron-h-56b", 56e9, 1e9},          // model card: "This model has 56B model parameters"
      {"qwen3.5-397b-a17b", 397e9, 1e9},      // model card: "397B in total and 17B activated"
      {"qwen3.5-122b-a10b", 122e9, 1e9},      // model card: "122B in total and 10B activated"
      {"qwen3.5-35b-a3b", 35e9, 1e9},         // model card: "35B in total and 3B activated"
      {"nemotron-3-nano-30b-a3b", 31.6e9, 1e8},  // technical report: "totals 31.6B parameters"
      {"kimi-k2.5", 1e12, 1e11},              // README: "Total Parameters 1T" (vision encoder "400M" not sized)
      {"glm-5", 744e9, 1e9},                  // README: "744B parameters (40B active)"
  };
  for (const auto& c : cases) {
    INFO(c.dir);
    const double derived = count_params(models::from_hf_config(data(std::string(c.dir) + "/config.json"))).total;
    // Exact counts to the weight; a rounded figure within 0.5%, or, where its unit is coarser than 0.5%,
    // equal to the derived total rounded to that unit.
    if (c.unit == 1) CHECK(derived == c.published);
    else CHECK((std::abs(derived - c.published) / c.published <= 0.005 || std::abs(derived - c.published) <= 0.5 * c.unit));
    CHECK(std::abs(derived - c.published) / c.published <= 0.03);
  }
  // Gemma 3's sparse configs, completed with Gemma3TextConfig's defaults (vocab 262,208): keras-hub's text-only
  // preset counts ("gemma3_instruct_4b_text": 3,880,099,328; "..._27b_text": 27,009,002,240) embed 262,144 rows,
  // so each is exactly 64 x hidden below the HF checkpoint's count derived here.
  CHECK(count_params(models::from_hf_config(data("gemma-3-4b/config.json"))).total == 3880099328.0 + 64.0 * 2560);
  CHECK(count_params(models::from_hf_config(data("gemma-3-27b/config.json"))).total == 27009002240.0 + 64.0 * 5376);
  // KV per token in bf16, every layer's full K and V: 2 x 34 x 4 x 256 x 2 B and 2 x 62 x 16 x 128 x 2 B.
  CHECK(kv_bytes_per_token(models::from_hf_config(data("gemma-3-4b/config.json")), find_format("bf16")) == 139264.0);
  CHECK(kv_bytes_per_token(models::from_hf_config(data("gemma-3-27b/config.json")), find_format("bf16")) == 507904.0);
  // Mistral Small 3.1: "With 24 billion parameters" (model card, rounded) for the text model (vision tower not sized).
  CHECK(std::abs(count_params(models::from_hf_config(data("mistral-small-3.1-24b/config.json"))).total - 24e9) <= 0.5e9);
  // Non-embedding totals where the card prints them: Qwen3-Next "(Non-Embedding): 79B".
  const ModelSpec qn = models::from_hf_config(data("qwen3-next-80b-a3b/config.json"));
  const auto p = count_params(qn);
  CHECK(std::abs(p.total - p.of(ParamClass::embeddings) - p.of(ParamClass::lm_head) - 79e9) <= 0.5e9);
  // Active: Qwen2-57B-A14B "A14B", Kimi K2 "32 billion activated".
  CHECK(std::abs(count_params(models::from_hf_config(data("qwen2-57b-a14b/config.json"))).active - 14e9) <= 0.5e9);
  CHECK(std::abs(count_params(models::from_hf_config(data("kimi-k2-instruct/config.json"))).active - 32e9) <= 1e9);
  // Qwen3.5 "17B activated", "10B activated", "3B activated"; Nemotron 3 Nano "3.6B including embeddings".
  CHECK(std::abs(count_params(models::from_hf_config(data("qwen3.5-397b-a17b/config.json"))).active - 17e9) <= 0.5e9);
  CHECK(std::abs(count_params(models::from_hf_config(data("qwen3.5-122b-a10b/config.json"))).active - 10e9) <= 0.5e9);
  CHECK(std::abs(count_params(models::from_hf_config(data("qwen3.5-35b-a3b/config.json"))).active - 3e9) <= 0.5e9);
  CHECK(std::abs(count_params(models::from_hf_config(data("nemotron-3-nano-30b-a3b/config.json"))).active - 3.6e9) <= 0.05e9);
}

TEST_CASE("hybrid configs: layer kinds from the pattern, KV and state bytes worked by hand", "[models][hf][hybrid]") {
  const ModelSpec nh = models::from_hf_config(data("nemotron-h-56b/config.json"));  // holds "Infinity"
  REQUIRE(nh.state.has_value());
  CHECK(nh.layers == 118);
  CHECK(nh.state->layers == 54);   // 'M'
  CHECK(attention_layers(nh) == 10);  // '*': "just ten Attention layers" (model card)
  CHECK(ffn_layers(nh) == 54);     // '-'
  // KV: 10 layers x 2 x 8 KV heads x 128 x 2 bytes.
  CHECK(kv_bytes_per_token(nh, find_format("bf16")) == 40960.0);
  // State: 54 x (256 heads x 64 x 256 state x 4 bytes (fp32) + 3 x (16384 + 2 x 8 x 256) x 2 bytes).
  CHECK(state_bytes_per_sequence(nh) == 54.0 * (16777216.0 + 122880.0));
  // One Mamba-2 layer: in_proj 8192 x (2 x 16384 + 2 x 8 x 256 + 256), conv 20480 x (4 + 1 bias),
  // dt_bias + A_log + D 3 x 256, norm 16384, out_proj 16384 x 8192 = 438,424,320.
  const double mamba = group_params(nh, "blk.*.ssm");
  CHECK(mamba == 54.0 * 438424320.0);

  const ModelSpec qn = models::from_hf_config(data("qwen3-next-80b-a3b/config.json"));
  REQUIRE(qn.state.has_value());
  CHECK(qn.state->kind == StateKind::gated_deltanet);
  CHECK(qn.state->layers == 36);   // full_attention_interval 4: layers 3, 7, ..., 47 attend
  CHECK(attention_layers(qn) == 12);
  CHECK(kv_bytes_per_token(qn, find_format("bf16")) == 12.0 * 2 * 2 * 256 * 2);  // 24,576
  // 36 x (32 value heads x 128 x 128 x 2 bytes + 3 x (2 x 16 x 128 + 32 x 128) x 2 bytes).
  CHECK(state_bytes_per_sequence(qn) == 36.0 * (1048576.0 + 49152.0));
  // One Gated DeltaNet layer: qkvz 2048 x 12288, ba 2048 x 64, conv 8192 x 4, dt_bias + A_log 64, norm 128,
  // out 4096 x 2048 = 33,718,464. One gated attention layer: q 2048 x 8192 (doubled), k and v 2048 x 512
  // each, o 4096 x 2048, q/k norms 512 = 27,263,488.
  const double gdn = group_params(qn, "blk.*.ssm"), attn = group_params(qn, "blk.*.attn");
  CHECK(gdn == 36.0 * 33718464.0);
  CHECK(attn == 12.0 * 27263488.0);
}

TEST_CASE("jamba and falcon_h1 configs size their Mamba layers as transformers builds them", "[models][hf][hybrid]") {
  // JambaConfig's defaults, which its documentation gives as Jamba-v0.1's ("12B active parameters and an
  // overall of 52B parameters across all experts").
  const std::string jamba = write_temp("jamba", R"({"model_type": "jamba", "vocab_size": 65536, "hidden_size": 4096,
      "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
      "num_experts": 16, "num_experts_per_tok": 2, "expert_layer_period": 2, "expert_layer_offset": 1,
      "attn_layer_period": 8, "attn_layer_offset": 4, "mamba_d_state": 16, "mamba_d_conv": 4, "mamba_expand": 2,
      "mamba_dt_rank": "auto", "mamba_conv_bias": true, "mamba_proj_bias": false, "tie_word_embeddings": false})");
  const ModelSpec j = models::from_hf_config(jamba);
  CHECK(attention_layers(j) == 4);  // layers 4, 12, 20, 28
  CHECK(moe_layers(j) == 16);       // the odd layers
  const auto jp = count_params(j);
  // One Mamba layer: in_proj 2 x 8192 x 4096, conv 8192 x 5, x_proj 288 x 8192, dt_proj 8192 x 256 + 8192,
  // A_log 8192 x 16, D 8192, out_proj 4096 x 8192, dt/B/C norms 256 + 32 = 105,308,448.
  const double mamba = group_params(j, "blk.*.ssm");
  CHECK(mamba == 28.0 * 105308448.0);
  CHECK(std::abs(jp.total - 52e9) <= 0.5e9);
  CHECK(std::abs(jp.active - 12e9) <= 0.5e9);
  // KV 4 layers x 2 x 8 x 128 x 2 bytes; state 28 x (8192 x 16 + 3 x 8192) x 2 bytes.
  CHECK(kv_bytes_per_token(j, find_format("bf16")) == 16384.0);
  CHECK(state_bytes_per_sequence(j) == 28.0 * (131072.0 + 24576.0) * 2.0);

  // Falcon-H1-7B's shapes (transformers docs table: 44 layers, 3072 wide, 12 heads / 2 KV of 128, 24 Mamba
  // heads of 128, state 256): attention and Mamba-2 side by side in every layer.
  const std::string falcon = write_temp("falcon", R"({"model_type": "falcon_h1", "vocab_size": 130048,
      "hidden_size": 3072, "intermediate_size": 12288, "num_hidden_layers": 44, "num_attention_heads": 12,
      "num_key_value_heads": 2, "head_dim": 128, "mamba_d_ssm": 3072, "mamba_n_heads": 24, "mamba_d_head": 128,
      "mamba_d_state": 256, "mamba_n_groups": 1, "mamba_d_conv": 4, "mamba_rms_norm": true,
      "ssm_multipliers": [1.0, 1.0, 1.0, 1.0, 1.0], "tie_word_embeddings": false})");
  const ModelSpec f = models::from_hf_config(falcon);
  CHECK(attention_layers(f) == 44);
  CHECK(f.state->layers == 44);
  const double fm = group_params(f, "blk.*.ssm"), fa = group_params(f, "blk.*.attn");
  // Mamba-2: in_proj 3072 x (6144 + 512 + 24), conv 3584 x 5, 3 x 24, norm 3072, out_proj 3072 x 3072 = 29,979,208.
  CHECK(fm == 44.0 * 29979208.0);
  // Attention: q 3072 x 1536, k and v 3072 x 256 each, o 1536 x 3072 = 11,010,048.
  CHECK(fa == 44.0 * 11010048.0);
  CHECK(kv_bytes_per_token(f, find_format("bf16")) == 44.0 * 2 * 2 * 128 * 2);
  std::filesystem::remove_all(std::filesystem::temp_directory_path() / "rooftop-test-hf");
}

TEST_CASE("bad hybrid and nested configs give one line naming the key", "[models][hf][hybrid]") {
  const std::string e = write_temp("moe-pattern", R"({"model_type": "nemotron_h", "vocab_size": 10, "hidden_size": 8,
      "num_hidden_layers": 3, "num_attention_heads": 2, "intermediate_size": 16, "hybrid_override_pattern": "M*X",
      "mamba_num_heads": 2, "mamba_head_dim": 4, "ssm_state_size": 4})");
  CHECK_THROWS_WITH(models::from_hf_config(e), Contains("key 'hybrid_override_pattern' has the layer kind 'X'; expected M (Mamba-2), * (attention), - (MLP) or E"));
  const std::string moe = write_temp("moe-keys", R"({"model_type": "nemotron_h", "vocab_size": 10, "hidden_size": 8,
      "num_hidden_layers": 3, "num_attention_heads": 2, "intermediate_size": 16, "hybrid_override_pattern": "M*E",
      "mamba_num_heads": 2, "mamba_head_dim": 4, "ssm_state_size": 4})");
  CHECK_THROWS_WITH(models::from_hf_config(moe), Contains("key 'n_routed_experts' is missing"));
  const std::string n = write_temp("count", R"({"model_type": "nemotron_h", "vocab_size": 10, "hidden_size": 8,
      "num_hidden_layers": 4, "num_attention_heads": 2, "intermediate_size": 16, "hybrid_override_pattern": "M*-",
      "mamba_num_heads": 2, "mamba_head_dim": 4, "ssm_state_size": 4})");
  CHECK_THROWS_WITH(models::from_hf_config(n), Contains("key 'num_hidden_layers' (4) differs from the 3 layers"));
  const std::string only_state = write_temp("no-attention", R"({"model_type": "nemotron_h", "vocab_size": 10,
      "hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 16,
      "hybrid_override_pattern": "M-", "mamba_num_heads": 2, "mamba_head_dim": 4, "ssm_state_size": 4})");
  CHECK_THROWS_WITH(models::from_hf_config(only_state), Contains("a model without attention is not supported"));
  const std::string nested = write_temp("nested", R"({"model_type": "llama4", "vision_config": {}})");
  CHECK_THROWS_WITH(models::from_hf_config(nested), Contains("key 'text_config' is missing"));
  const std::string rank = write_temp("rank", R"({"model_type": "jamba", "vocab_size": 10, "hidden_size": 8,
      "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 16, "mamba_dt_rank": "fast"})");
  CHECK_THROWS_WITH(models::from_hf_config(rank), Contains("key 'mamba_dt_rank' must be a whole number"));
  const std::string huge = write_temp("huge", R"({"model_type": "jamba", "vocab_size": 10, "hidden_size": 8,
      "num_hidden_layers": 9000000000000, "num_attention_heads": 2, "intermediate_size": 16})");
  CHECK_THROWS_WITH(models::from_hf_config(huge), Contains("key 'num_hidden_layers' must be at most"));
  const std::string gdn = write_temp("gdn", R"({"model_type": "qwen3_next", "vocab_size": 10, "hidden_size": 8,
      "num_hidden_layers": 4, "num_attention_heads": 2, "num_experts": 4, "num_experts_per_tok": 1,
      "moe_intermediate_size": 8, "shared_expert_intermediate_size": 8, "linear_num_value_heads": 2,
      "linear_value_head_dim": 4, "linear_num_key_heads": 2})");
  CHECK_THROWS_WITH(models::from_hf_config(gdn), Contains("key 'linear_key_head_dim' is missing"));
  const std::string type = write_temp("type", R"({"model_type": "mamba2"})");
  CHECK_THROWS_WITH(models::from_hf_config(type), Contains("supported: llama, mistral"));
  std::filesystem::remove_all(std::filesystem::temp_directory_path() / "rooftop-test-hf");
}

TEST_CASE("sparse attention (DeepSeek-V3.2, GLM-5): indexer weights and keys worked by hand", "[models][hf][sparse]") {
  const ModelSpec v = models::from_hf_config(data("deepseek-v3.2/config.json"));
  REQUIRE(v.sparse.has_value());
  CHECK(v.sparse->topk == 2048);
  // One indexer: q from the 1536-wide q latent to 64 heads x 128, a 7168 -> 128 key, a LayerNorm (2 x 128),
  // 7168 -> 64 head weights = 13,959,424; V3.2 is V3's shapes plus 61 of them.
  const ModelSpec v3 = models::from_hf_config(data("deepseek-v3/config.json"));
  CHECK(count_params(v).total - count_params(v3).total == 61.0 * 13959424.0);
  // KV per token: 61 layers x (576 latent values x 2 bytes + 128 fp8 index key bytes + a 4-byte scale).
  CHECK(kv_bytes_per_token(v, find_format("bf16")) == 61.0 * (576 * 2 + 132));
  const ModelSpec g = models::from_hf_config(data("glm-5/config.json"));
  CHECK(kv_bytes_per_token(g, find_format("bf16")) == 78.0 * (576 * 2 + 132));
  // "40B active", counted as GLM counts (GLM-4.5 report, Table 1: "not word embeddings and the output
  // layer"): 41.78B less the two 154,880 x 6144 tables.
  const auto gp = count_params(g);
  CHECK(std::abs(gp.active - gp.of(ParamClass::embeddings) - gp.of(ParamClass::lm_head) - 40e9) <= 0.5e9);
  // MiniMax-M2.5: 62 layers x 2 x 8 KV heads x 128 x 2 bytes = 253,952 ("about 248 KiB per token").
  CHECK(kv_bytes_per_token(models::from_hf_config(data("minimax-m2.5/config.json")), find_format("bf16")) == 253952.0);
}

TEST_CASE("hostile lists and values in the new model types are refused by key (review of the hybrid change)",
          "[models][hf][hybrid]") {
  auto fails = [](const std::string& name, const std::string& text, const std::string& expected) {
    INFO(name);
    CHECK_THROWS_WITH(models::from_hf_config(write_temp(name, text)), Contains(expected));
  };
  const std::string llama4 = R"("model_type": "llama4_text", "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 4,
      "num_attention_heads": 2, "intermediate_size": 8, "num_local_experts": 2, "num_experts_per_tok": 1)";
  fails("rope0", "{" + llama4 + R"(, "no_rope_layer_interval": 0})", "key 'no_rope_layer_interval' must be >= 1");
  fails("rope-len", "{" + llama4 + R"(, "no_rope_layers": [1, 1, 0]})", "key 'no_rope_layers' has 3 entries; expected one per layer (4)");
  fails("moe-layers", "{" + llama4 + R"(, "moe_layers": [1, 9]})", "key 'moe_layers' lists layer 9");
  fails("mlp-only", R"({"model_type": "qwen3_moe", "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 2,
      "num_attention_heads": 2, "intermediate_size": 8, "num_experts": 2, "num_experts_per_tok": 1,
      "moe_intermediate_size": 8, "mlp_only_layers": [0, 7]})", "key 'mlp_only_layers' lists layer 7");
  fails("expand", R"({"model_type": "jamba", "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 2,
      "num_attention_heads": 2, "intermediate_size": 8, "mamba_expand": 4611686018427387904})", "key 'mamba_expand' must be at most 64");
  fails("offset", R"({"model_type": "jamba", "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 2,
      "num_attention_heads": 2, "intermediate_size": 8, "attn_layer_period": 2, "attn_layer_offset": 2})",
        "key 'attn_layer_offset' must be below attn_layer_period (2)");
  fails("heads", R"({"model_type": "nemotron_h", "vocab_size": 10, "hidden_size": 8, "num_attention_heads": 2,
      "intermediate_size": 8, "hybrid_override_pattern": "M*", "mamba_num_heads": 8589934592, "mamba_head_dim": 8589934592,
      "ssm_state_size": 4})", "key 'mamba_num_heads' must be at most");
  fails("nan", R"({"model_type": "llama", "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 1,
      "num_attention_heads": 2, "intermediate_size": 8, "rope_theta": NaN})", "key 'rope_theta' must be a number");
  fails("gdn-len", R"({"model_type": "qwen3_next", "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 2,
      "num_attention_heads": 2, "num_experts": 2, "num_experts_per_tok": 1, "moe_intermediate_size": 8,
      "shared_expert_intermediate_size": 8, "layer_types": ["linear_attention", "full_attention", "full_attention"]})",
        "key 'layer_types' has 3 entries; expected one per layer (2)");

  // Current transformers writes Nemotron-H's kinds as layers_block_type / layer_types with new names, and
  // always builds one shared expert (n_shared_experts unused).
  const ModelSpec nh = models::from_hf_config(write_temp("nh-names", R"({"model_type": "nemotron_h", "vocab_size": 10,
      "hidden_size": 8, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4, "intermediate_size": 8,
      "layer_types": ["linear_attention", "moe", "full_attention", "mlp"], "mamba_num_heads": 2, "mamba_head_dim": 4,
      "ssm_state_size": 4, "n_groups": 1, "n_routed_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 8,
      "moe_shared_expert_intermediate_size": 16})"));
  CHECK(nh.layers == 4);
  CHECK(nh.state->layers == 1);
  CHECK(attention_layers(nh) == 1);
  CHECK(moe_layers(nh) == 1);
  CHECK(dense_ffn_layers(nh) == 1);
  REQUIRE(nh.moe.has_value());
  CHECK(nh.moe->shared_experts == 1);
  CHECK(nh.moe->shared_expert_ffn == 16);
  std::filesystem::remove_all(std::filesystem::temp_directory_path() / "rooftop-test-hf");
}
