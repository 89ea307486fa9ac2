// A GGUF file's own formats: exact bytes per class from its tensor table, the largest format of each class.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "analyzer/memory.h"
#include "analyzer/params.h"
#include "analyzer/work.h"
#include "base/suggest.h"
#include "gguf/gguf.h"
#include "models/models.h"
#include "tests/engine/gguf_writer.h"

using namespace rooftop;

namespace {

// ggml type ids and bytes per row of 256 / 512 values (ggml type_traits): q4_k 144 B / 256, q5_k 176 B / 256,
// q6_k 210 B / 256, q5_0 22 B / 32, q8_0 34 B / 32, f32 4 B.
constexpr uint32_t kF32 = 0, kQ5_0 = 6, kQ8_0 = 8, kQ4K = 12, kQ5K = 13, kQ6K = 14;

std::string mixed_file() {
  test::GgufWriter w(3);
  w.kv_string("general.architecture", "llama");
  w.kv<uint32_t>("llama.block_count", 4, 2);
  w.kv<uint32_t>("llama.embedding_length", 4, 256);
  w.kv<uint32_t>("llama.attention.head_count", 4, 4);
  w.kv<uint32_t>("llama.attention.head_count_kv", 4, 2);
  w.kv<uint32_t>("llama.feed_forward_length", 4, 512);
  w.kv<uint32_t>("llama.context_length", 4, 2048);
  auto t = [&](const std::string& name, uint32_t type, uint64_t cols, uint64_t rows, uint64_t bytes) {
    w.tensor(name, type, rows == 0 ? std::vector<uint64_t>{cols} : std::vector<uint64_t>{cols, rows},
             std::vector<uint8_t>(bytes, 0));
  };
  t("token_embd.weight", kQ8_0, 256, 320, 320 * 8 * 34);  // 87040 B
  t("rope_freqs.weight", kF32, 32, 0, 128);               // no class: left out
  for (int l = 0; l < 2; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    t(p + "attn_norm.weight", kF32, 256, 0, 1024);
    t(p + "attn_q.weight", kQ5K, 256, 256, 256 * 176);   // 45056
    t(p + "attn_k.weight", kQ5K, 256, 128, 128 * 176);   // 22528
    t(p + "attn_v.weight", kQ6K, 256, 128, 128 * 210);   // 26880
    t(p + "attn_output.weight", kQ5K, 256, 256, 256 * 176);
    t(p + "ffn_norm.weight", kF32, 256, 0, 1024);
    t(p + "ffn_gate.weight", kQ4K, 256, 512, 512 * 144);  // 73728
    t(p + "ffn_up.weight", kQ4K, 256, 512, 512 * 144);
    t(p + "ffn_down.weight", kQ5_0, 512, 256, 256 * 16 * 22);  // 90112 (q5_0, as a Q4_K_M file stores rows it cannot block by 256)
  }
  t("output_norm.weight", kF32, 256, 0, 1024);
  t("output.weight", kQ6K, 256, 320, 320 * 210);  // 67200
  const auto dir = std::filesystem::temp_directory_path() / "rooftop-test-gguf-plan";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "mixed-q5_k_m.gguf").string();
  const auto bytes = w.bytes();
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  return path;
}

}  // namespace

TEST_CASE("a GGUF is sized from its own tensor table", "[models][gguf]") {
  const std::string path = mixed_file();
  const PrecisionPlan p = models::gguf_precision_plan(path, "fp16");
  // attention per layer: 45056 x 2 (q, o) + 22528 (k) + 26880 (v) = 139520; two layers 279040
  CHECK(p.stored_bytes.at(ParamClass::attention) == 279040.0);
  // FFN per layer: 73728 x 2 + 90112 = 237568; two layers 475136
  CHECK(p.stored_bytes.at(ParamClass::dense_ffn) == 475136.0);
  CHECK(p.stored_bytes.at(ParamClass::embeddings) == 87040.0);
  CHECK(p.stored_bytes.at(ParamClass::lm_head) == 67200.0);
  CHECK(p.stored_bytes.at(ParamClass::norms) == 5.0 * 1024);
  // the largest format of each class sets its rates: q5_k attention (112640 B of 139520 per layer), q4_k FFN
  // (147456 of 237568), q6_k output, q8_0 embedding; the most bytes overall are q4_k's
  CHECK(p.per_class.at(ParamClass::attention) == "q5_k");
  CHECK(p.per_class.at(ParamClass::dense_ffn) == "q4_k");
  CHECK(p.per_class.at(ParamClass::lm_head) == "q6_k");
  CHECK(p.per_class.at(ParamClass::embeddings) == "q8_0");
  CHECK(p.weights == "q4_k");
  CHECK(p.kv == "fp16");
  // the FFN's matrices by (format, width), as its mixed formats are priced: gate and up q4_k at k = 256
  // (2 x 512 x 256 weights per layer), down q5_0 at k = 512 (256 x 512 per layer); two layers
  const auto& ffn = p.stored_matrices.at(ParamClass::dense_ffn);
  REQUIRE(ffn.size() == 2);
  CHECK((ffn[0].format == "q4_k" && ffn[0].width == 256 && ffn[0].values == 2 * 2.0 * 512 * 256 && ffn[0].bytes == 4 * 73728.0));
  CHECK((ffn[1].format == "q5_0" && ffn[1].width == 512 && ffn[1].values == 2 * 256.0 * 512 && ffn[1].bytes == 2 * 90112.0));
  // attention: q5_k q, k, o and the q6_k v, all at k = 256
  const auto& attn = p.stored_matrices.at(ParamClass::attention);
  REQUIRE(attn.size() == 2);
  CHECK((attn[0].format == "q5_k" && attn[0].values == 2 * (256.0 + 128 + 256) * 256));
  CHECK((attn[1].format == "q6_k" && attn[1].values == 2 * 128.0 * 256 && attn[1].bytes == 2 * 26880.0));
  // every format named with its bytes, largest first: q4_k 294912, q5_k 225280, q5_0 180224, q6_k 120960,
  // q8_0 87040, f32 5248
  INFO(p.describe());
  CHECK(p.describe().rfind("file formats (Q4_K 0.3 MB, Q5_K 0.2 MB, Q5_0 0.2 MB, Q6_K 0.1 MB, Q8_0 0.1 MB, F32 0.0 MB", 0) == 0);
  // the analyzer's weights are the file's classified tensors, byte for byte (rope_freqs left out)
  const ModelSpec m = models::from_gguf(path);
  const WeightBytes w = weight_bytes(m, p);
  CHECK(w.total == 279040.0 + 475136.0 + 87040.0 + 67200.0 + 5120.0);
  // a decode step reads the matrices once and one embedding row (87040 / 320 = 272 B)
  const PassWork work = pass_work(m, p, PassShape{1, 1, 0, false});
  CHECK(work.weight_bytes == Approx(279040.0 + 475136.0 + 67200.0 + 5120.0 + 272.0));
}

TEST_CASE("a GGUF with no known weight names is refused", "[models][gguf]") {
  test::GgufWriter w(3);
  w.kv_string("general.architecture", "llama");
  w.tensor("vision.patch.weight", 0, {4, 4}, std::vector<uint8_t>(64, 0));
  const auto b = w.bytes();
  const engine::GgufFile f = engine::parse_gguf(reinterpret_cast<const std::byte*>(b.data()), b.size(), "v.gguf");
  CHECK_THROWS_AS(models::gguf_precision_plan(f), InputError);
}
