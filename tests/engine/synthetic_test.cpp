// The engine over a synthetic llama: batched decode against one sequence at a time, the model's layout.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <vector>

#include "base/errors.h"
#include "engine/forward.h"
#include "engine/gguf_write.h"
#include "engine/synthetic.h"

using namespace rooftop;
using namespace rooftop::engine;

namespace {

// hidden 64, 2 layers, 4 heads of 16, 2 KV heads, FFN 128, vocabulary 256.
LlamaConfig toy() {
  LlamaConfig c;
  c.layers = 2;
  c.dim = 64;
  c.heads = 4;
  c.kv_heads = 2;
  c.head_dim = 16;
  c.ffn_dim = 128;
  c.vocab = 256;
  c.context = 64;
  return c;
}

std::vector<int32_t> random_tokens(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> u(0, 255);
  std::vector<int32_t> t(n);
  for (auto& x : t) x = u(rng);
  return t;
}

}  // namespace

TEST_CASE("batched decode equals each sequence decoded alone", "[forward][synthetic]") {
  kernels::ThreadPool pool(2);
  for (auto f : {kernels::WeightFormat::f32, kernels::WeightFormat::q8_0, kernels::WeightFormat::q4_1}) {
    const LlamaModel m = synthetic_llama(toy(), f, false, 17);
    const std::vector<std::vector<int32_t>> prompts = {random_tokens(5, 1), random_tokens(9, 2), random_tokens(2, 3)};
    const std::vector<int32_t> next = {7, 200, 31};
    Forward batch(m, 32, pool, 3);
    for (int64_t s = 0; s < 3; ++s) batch.prefill(prompts[size_t(s)], false, s);
    batch.decode_batch(next);  // two steps: the second attends over a position the batch itself wrote
    const auto last = batch.decode_batch(next);
    const std::vector<float> got(last.begin(), last.end());
    for (int64_t s = 0; s < 3; ++s) {
      CHECK(batch.cache(s).length() == int64_t(prompts[size_t(s)].size()) + 2);
      Forward one(m, 32, pool);
      one.prefill(prompts[size_t(s)]);
      one.decode(next[size_t(s)]);
      const auto ref = one.decode(next[size_t(s)]);
      float scale = 0, diff = 0;
      for (size_t v = 0; v < ref.size(); ++v) {
        scale = std::max(scale, std::abs(ref[v]));
        diff = std::max(diff, std::abs(ref[v] - got[size_t(s) * 256 + v]));
        REQUIRE(std::isfinite(got[size_t(s) * 256 + v]));
      }
      INFO(kernels::format_name(f) << " sequence " << s << ": max |diff| " << diff << " of " << scale);
      CHECK(scale > 0);
      CHECK(diff <= 1e-4f * scale);  // the same int8 activations, summed in another order
    }
  }
}

TEST_CASE("a mixed step (a prefill chunk beside decodes) equals each sequence run alone", "[forward][synthetic]") {
  kernels::ThreadPool pool(2);
  for (auto f : {kernels::WeightFormat::f32, kernels::WeightFormat::q8_0, kernels::WeightFormat::q4_0}) {
    const LlamaModel m = synthetic_llama(toy(), f, false, 23);
    const std::vector<int32_t> a = random_tokens(6, 4), b = random_tokens(3, 5), chunk1 = random_tokens(7, 6),
                               chunk2 = random_tokens(5, 7);
    // Slots 2 and 0 hold a and b; slot 1 takes its prompt in two chunks, the second beside two decodes.
    Forward mixed(m, 32, pool, 3);
    mixed.prefill(a, false, 2);
    mixed.prefill(b, false, 0);
    mixed.prefill(chunk1, false, 1);
    const int32_t ta[1] = {11}, tb[1] = {250};
    const SeqTokens slices[3] = {{2, ta}, {1, chunk2}, {0, tb}};
    const auto step = mixed.step(slices);
    REQUIRE(step.size() == 3 * 256);
    const std::vector<float> got(step.begin(), step.end());
    CHECK(mixed.cache(1).length() == 12);
    CHECK(mixed.cache(2).length() == 7);
    // Then a batched decode over slots {1, 2} in that order.
    const int32_t next[2] = {3, 4};
    const int64_t seqs[2] = {1, 2};
    const auto dec = mixed.decode_batch(next, seqs);
    const std::vector<float> got_dec(dec.begin(), dec.end());
    auto alone = [&](const std::vector<std::vector<int32_t>>& passes) {
      Forward one(m, 32, pool);
      std::vector<float> out;
      for (const auto& p : passes) {
        const auto l = one.prefill(p);
        out.assign(l.begin(), l.end());
      }
      return out;
    };
    // f32: the same sums in another order. Quantized weights: a pass of 7 rows and a pass of 1 quantize their
    // activations on different kernel paths (measured here: up to 3.4% of the largest logit), while another
    // sequence's logits differ by far more (checked below, so a row read from the wrong cache fails).
    const float tol = f == kernels::WeightFormat::f32 ? 1e-4f : 5e-2f;
    auto max_diff = [](const std::vector<float>& ref, const float* row, float& scale) {
      float diff = 0;
      scale = 0;
      for (size_t v = 0; v < ref.size(); ++v) {
        scale = std::max(scale, std::abs(ref[v]));
        diff = std::max(diff, std::abs(ref[v] - row[v]));
      }
      return diff;
    };
    auto compare = [&](const std::vector<float>& ref, const float* row, const char* what) {
      for (size_t v = 0; v < ref.size(); ++v) REQUIRE(std::isfinite(row[v]));
      float scale = 0;
      const float diff = max_diff(ref, row, scale);
      INFO(kernels::format_name(f) << " " << what << ": max |diff| " << diff << " of " << scale);
      CHECK(scale > 0);
      CHECK(diff <= tol * scale);
    };
    compare(alone({a, {11}}), got.data(), "decode of slot 2 in the step");
    compare(alone({chunk1, chunk2}), got.data() + 256, "chunk of slot 1 in the step");
    compare(alone({b, {250}}), got.data() + 512, "decode of slot 0 in the step");
    compare(alone({chunk1, chunk2, {3}}), got_dec.data(), "batched decode of slot 1");
    compare(alone({a, {11}, {4}}), got_dec.data() + 256, "batched decode of slot 2");
    float scale = 0;
    CHECK(max_diff(alone({b, {250}}), got.data(), scale) > 0.2f * scale);  // slot 0's logits are not slot 2's
  }
  // One sequence twice in a step is the caller's bug.
  const LlamaModel m = synthetic_llama(toy(), kernels::WeightFormat::q8_0, false, 3);
  Forward f(m, 32, pool, 2);
  const int32_t t[1] = {1};
  const SeqTokens twice[2] = {{1, t}, {1, t}};
  CHECK_THROWS_AS(f.step(twice), InternalError);
  const int64_t same[2] = {0, 0};
  const int32_t two[2] = {1, 2};
  CHECK_THROWS_AS(f.decode_batch(two, same), InternalError);
}

TEST_CASE("seek sets every sequence's position; bad batches are the caller's bug", "[forward][synthetic]") {
  kernels::ThreadPool pool(1);
  const LlamaModel m = synthetic_llama(toy(), kernels::WeightFormat::q8_0, true, 5);
  Forward f(m, 16, pool, 2);
  f.seek(9);
  CHECK(f.cache(0).length() == 9);
  CHECK(f.cache(1).length() == 9);
  const int32_t two[2] = {1, 2};
  CHECK(f.decode_batch(two).size() == 2 * 256);
  CHECK(f.cache(1).length() == 10);
  f.seek(3);
  CHECK(f.cache(0).length() == 3);
  const int32_t three[3] = {1, 2, 3};
  CHECK_THROWS_AS(f.decode_batch(three), InternalError);
  const int32_t bad[2] = {1, 256};  // outside the vocabulary: bad input
  CHECK_THROWS_AS(f.decode_batch(bad), InputError);
}

TEST_CASE("synthetic model layout: own storage, tied or not, shapes the format can hold", "[synthetic]") {
  const LlamaModel tied = synthetic_llama(toy(), kernels::WeightFormat::f32, true, 1);
  CHECK(tied.output.data == tied.token_embd.data);
  CHECK(tied.owned_matrices.size() == 1 + 2 * 7);
  // One decode step reads: layers 2 x (64x64 + 2 x 32x64 + 64x64 + 3 x 128x64) x 4 B = 294912 B, norms
  // (2 x 2 + 1) x 64 x 4 B = 1280 B, the LM head 256 x 64 x 4 B = 65536 B and one embedding row 256 B.
  CHECK(tied.weights_bytes_per_step() == 294912 + 1280 + 65536 + 256);
  const LlamaModel untied = synthetic_llama(toy(), kernels::WeightFormat::q8_0, false, 1);
  CHECK(untied.output.data != untied.token_embd.data);
  for (float w : untied.layers[1].ffn_norm) REQUIRE((w >= 0.5f && w < 1.5f));
  CHECK(synthetic_shape_problem(toy(), kernels::WeightFormat::q4_k).find("256") != std::string::npos);
  LlamaConfig odd = toy();
  odd.kv_heads = 3;
  CHECK_FALSE(synthetic_shape_problem(odd, kernels::WeightFormat::f32).empty());
  CHECK_THROWS_AS(synthetic_llama(odd, kernels::WeightFormat::f32, true, 1), InputError);
}

TEST_CASE("a synthetic model written as GGUF reads back and runs bit for bit", "[synthetic][gguf]") {
  kernels::ThreadPool pool(2);
  LlamaConfig c = toy();
  c.dim = 256;  // a width q4_k blocks divide, so the Q4_K_M recipe keeps q4_k/q6_k where it can
  c.head_dim = 64;
  c.ffn_dim = 320;  // not a multiple of 256: ffn_down falls back to q5_0 / q8_0
  c.layers = 9;
  const LlamaModel m = synthetic_llama(c, q4_k_m_rule(c.layers, false), false, 3);
  // Q4_K_M: q6_k output; attn_v q6_k in layers 0 (first eighth), 7 and 8 (last eighth) and 3, 6 (every third
  // from layers / 8 = 1); q4_k elsewhere; ffn_down rows of 320 fall back to q8_0 / q5_0.
  CHECK(m.output.format == kernels::WeightFormat::q6_k);
  CHECK(m.layers[0].wv.format == kernels::WeightFormat::q6_k);
  CHECK(m.layers[3].wv.format == kernels::WeightFormat::q6_k);
  CHECK(m.layers[4].wv.format == kernels::WeightFormat::q4_k);
  CHECK(m.layers[8].wv.format == kernels::WeightFormat::q6_k);
  CHECK(m.layers[0].down.format == kernels::WeightFormat::q8_0);
  CHECK(m.layers[4].down.format == kernels::WeightFormat::q5_0);
  CHECK(m.layers[4].gate.format == kernels::WeightFormat::q4_k);
  GgufValue name;
  name.type = GgufType::string;
  name.s = "a test tokenizer key";
  const auto dir = std::filesystem::temp_directory_path() / "rooftop-test-synth";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "toy-q4_k_m.gguf").string();
  write_llama_gguf(path, m, {{"tokenizer.test", name}});
  const LlamaModel back = load_llama(path);
  CHECK(back.file.get_string("tokenizer.test") == "a test tokenizer key");
  CHECK(back.cfg.layers == 9);
  CHECK(back.cfg.ffn_dim == 320);
  CHECK_FALSE(back.tied_embeddings);
  CHECK(back.weights_bytes_per_step() == m.weights_bytes_per_step());
  CHECK(back.layers[4].down.format == kernels::WeightFormat::q5_0);
  const std::vector<int32_t> prompt = random_tokens(6, 9);
  Forward a(m, 16, pool), b(back, 16, pool);
  const auto la = a.prefill(prompt);
  const std::vector<float> first(la.begin(), la.end());
  const auto lb = b.prefill(prompt);
  REQUIRE(lb.size() == first.size());
  CHECK(std::memcmp(lb.data(), first.data(), first.size() * sizeof(float)) == 0);  // same bytes, same kernels
  std::filesystem::remove(path);
}

TEST_CASE("synthetic files keep a head dim that is not width / heads, and a tied Q4_K_M embedding is the output's q6_k",
          "[synthetic][gguf]") {
  kernels::ThreadPool pool(1);
  LlamaConfig c = toy();
  c.dim = 256;
  c.heads = 4;
  c.kv_heads = 2;
  c.head_dim = 128;  // 4 x 128 = 512 query width from a 256-wide model, as Qwen3-0.6B (16 x 128 from 1024)
  const LlamaModel m = synthetic_llama(c, q4_k_m_rule(c.layers, true), true, 5);
  CHECK(m.token_embd.format == kernels::WeightFormat::q6_k);  // tied: the embedding is the output
  CHECK(m.layers[0].wq.m == 512);
  const auto dir = std::filesystem::temp_directory_path() / "rooftop-test-synth";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "toy-wide-heads.gguf").string();
  write_llama_gguf(path, m, {});
  const LlamaModel back = load_llama(path);
  CHECK(back.cfg.head_dim == 128);
  CHECK(back.tied_embeddings);
  const std::vector<int32_t> prompt = random_tokens(4, 2);
  Forward a(m, 8, pool), b(back, 8, pool);
  const auto la = a.prefill(prompt);
  const std::vector<float> first(la.begin(), la.end());
  const auto lb = b.prefill(prompt);
  CHECK(std::memcmp(lb.data(), first.data(), first.size() * sizeof(float)) == 0);
  std::filesystem::remove(path);
}

TEST_CASE("the prefill's stage clock covers the pass and changes nothing it computes", "[forward][synthetic]") {
  kernels::ThreadPool pool(2);
  const LlamaModel m = synthetic_llama(toy(), kernels::WeightFormat::q8_0, false, 23);
  const auto prompt = random_tokens(12, 4);
  Forward plain(m, 32, pool), clocked(m, 32, pool);
  const auto ref = plain.prefill(prompt);
  const std::vector<float> expected(ref.begin(), ref.end());
  PassStages stages;
  clocked.set_stage_clock(&stages);
  const auto t0 = std::chrono::steady_clock::now();
  const auto got = clocked.prefill(prompt);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(std::vector<float>(got.begin(), got.end()) == expected);  // the same arithmetic, bit for bit
  // Every stage of a llama layer ran (the embedding lookup may round to 0 on a fast clock).
  for (double s : {stages.norms, stages.attn_proj, stages.attention, stages.ffn, stages.small_ops, stages.lm_head}) CHECK(s > 0);
  // The laps tile the pass: their sum is the pass less its checks and scratch sizing.
  CHECK(stages.total() <= wall);
  CHECK(stages.total() >= 0.5 * wall);
  // Without the clock nothing is added.
  const PassStages before = stages;
  clocked.set_stage_clock(nullptr);
  clocked.rewind(0);
  clocked.prefill(prompt);
  CHECK(stages.total() == before.total());
}

TEST_CASE("the decode step's stage clock covers the step and changes nothing it computes", "[forward][synthetic]") {
  kernels::ThreadPool pool(2);
  const LlamaModel m = synthetic_llama(toy(), kernels::WeightFormat::q4_1, false, 29);
  const auto prompt = random_tokens(9, 5);
  Forward plain(m, 32, pool), clocked(m, 32, pool);
  plain.prefill(prompt);
  PassStages prefill_stages, decode_stages;
  clocked.set_stage_clock(&prefill_stages, &decode_stages);
  clocked.prefill(prompt);
  const double prefill_total = prefill_stages.total();
  CHECK(decode_stages.total() == 0);  // a prefill adds to its own stages only
  double wall = 0;
  for (int32_t token : {17, 3, 41}) {
    const auto ref = plain.decode(token);
    const std::vector<float> expected(ref.begin(), ref.end());
    const auto t0 = std::chrono::steady_clock::now();
    const auto got = clocked.decode(token);
    wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(std::vector<float>(got.begin(), got.end()) == expected);  // bit for bit
  }
  CHECK(prefill_stages.total() == prefill_total);  // decode steps add to the decode stages only
  for (double s : {decode_stages.norms, decode_stages.attn_proj, decode_stages.attention, decode_stages.ffn,
                   decode_stages.small_ops, decode_stages.lm_head})
    CHECK(s > 0);
  CHECK(decode_stages.total() <= wall);
  CHECK(decode_stages.total() >= 0.5 * wall);
}

TEST_CASE("the KV cache starts zeroed, rings its local layers, and sits in huge-page-aligned memory from 4 MiB", "[kv]") {
  // 3 full layers x 4096 positions x 2 KV heads x 64 floats x 4 B = 6 MiB for K (and as much for V); layer 1 a ring of 5.
  KvCache big(4, 4096, 2, 64, {4096, 5, 4096, 4096});
  CHECK(big.allocated_bytes() == 2 * 4 * (3 * 4096 + 5) * 2 * 64);
  CHECK(reinterpret_cast<uintptr_t>(big.view(0).k) % kHugePageBytes == 0);
  CHECK(reinterpret_cast<uintptr_t>(big.view(0).v) % kHugePageBytes == 0);
  const float* k3 = static_cast<const float*>(big.view(3).k);
  CHECK(std::all_of(k3, k3 + 4096 * 128, [](float x) { return x == 0.0f; }));  // positions never written read 0
  // Position p of the ring layer lands in slot p mod 5; of a full layer, in slot p.
  big.k_row(1, 7)[3] = 2.5f;
  big.v_row(0, 7)[3] = -1.5f;
  CHECK(static_cast<const float*>(big.view(1).k)[2 * 128 + 3] == 2.5f);
  CHECK(static_cast<const float*>(big.view(0).v)[7 * 128 + 3] == -1.5f);
  // The layers do not overlap: layer 2 starts after layer 1's five slots.
  CHECK(static_cast<const float*>(big.view(2).k) - static_cast<const float*>(big.view(1).k) == 5 * 128);
}
