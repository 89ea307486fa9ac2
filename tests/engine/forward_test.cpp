// The SmolLM2 forward pass end to end: greedy chat answer, seed 000's capital-of-France logits,
// prefill vs token-by-token decode, and perplexity on a committed English paragraph.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "engine/forward.h"
#include "engine/generate.h"
#include "engine/sampler.h"
#include "engine/tokenizer.h"
#include "kernels/cpu/dispatch.h"
#include "kernels/cpu/thread_pool.h"
#include "loaded_model.h"
#include "model_file.h"

using namespace rooftop::engine;

namespace {
// Prefill keeps activations in fp32 in the GEMM while the decode GEMV rounds them to 8 bits per block of 32
// (q8 dot products, as llama.cpp does), so the paths agree to that rounding, not bit for bit. Measured on this
// prompt: 0.93 of max |logit| 22.4 between the paths; decode with int8 vs fp32 activations alone differs by
// 0.68; with fp32 activations on both paths only the tiled prefill attention's summation order differs
// (1.7e-5 measured, exactly 0 before the attention was tiled). So the int8 rounding is the whole gap
// (SmolLM2's outlier channels set each block's scale, which coarsens the other 31 values). Bound: 8% of the
// largest logit, and no more than twice the int8-vs-fp32 difference (checked below).
constexpr double kPathTolerance = 0.08;
// With fp32 activations on both paths only summation order differs: 30 layers of k <= 1536 fp32 sums,
// relative error ~ 1e-6 per sum, amplified by the depth; 1e-4 of the largest logit is a generous bound.
constexpr double kFp32Tolerance = 1e-4;
// Measured perplexity: 6.21 over 126 tokens (SmolLM2-135M-Instruct q4_1 on tests/data/perplexity_paragraph.txt).
// A wrong RoPE, a transposed matrix or a bad dequantization gives hundreds to thousands.
constexpr double kPerplexityThreshold = 12.0;

using Smol = rooftop::test::LoadedModel;
Smol& smol() { return rooftop::test::loaded(rooftop::test::smollm2_path()); }
}  // namespace

TEST_CASE("SmolLM2 shape from the file", "[forward][model]") {
  const LlamaConfig& c = smol().model.cfg;
  CHECK(rooftop::test::llama_shape(c) == "30 layers, dim 576, 9 heads / 3 KV heads of 64, FFN 1536, vocabulary 49152");
  CHECK(c.rope_base == 100000.f);
  CHECK(smol().model.tied_embeddings);
  // Seed 000: "every token adds 46,080 bytes" (2 x 30 x 3 x 64 x 4).
  CHECK(smol().model.kv_bytes_per_token() == 46080);
}

namespace {
std::string greedy_chat(Smol& s, const std::string& system, int64_t n) {
  auto ids = s.tok.encode(Tokenizer::chatml_prompt("What is the capital of France?", system), true);
  Forward fwd(s.model, int64_t(ids.size()) + n, s.pool);
  GenerateOptions opt;
  opt.max_tokens = n;
  RunRecord r = generate(fwd, s.tok, ids, opt, {});
  CHECK(r.steps.back().kv_bytes == fwd.cache().bytes());
  CHECK(fwd.cache().bytes() == fwd.cache().length() * 46080);
  return r.text;
}
}  // namespace

// Cross-checked with llama.cpp (llama-simple, commit c392e50, greedy) on the same file and the same prompt
// token ids: a user-only ChatML turn and a generic system turn both give "The capital of France is Paris."
TEST_CASE("greedy chat answer names Paris", "[forward][model]") {
  Smol& s = smol();
  std::string user_only = greedy_chat(s, "", 12);
  INFO("answer (user turn only): " << user_only);
  CHECK(user_only.starts_with("The capital of France is Paris."));
  std::string generic = greedy_chat(s, "You are a helpful assistant.", 12);
  INFO("answer (generic system turn): " << generic);
  CHECK(generic.starts_with("The capital of France is Paris."));
}

// With the template's own default system turn ("You are a helpful AI assistant named SmolLM, trained by
// Hugging Face") THIS q4_1 file answers in French and never names Paris, and llama.cpp on the same file and
// the same 37 prompt ids does the same: "L'Étoile, la Cité, la Nation, ...". This is the file's 4-bit
// quantization, not an engine bug (the fp16 model answers Paris). The answer is a chain of near ties that the
// float summation order of the int8-activation GEMV can flip: measured with the AVX-512 16-block q4_1 kernel,
// the first token is 'L' 0.152 vs 'The' 0.144, and after "L'Étoile, la" ' Mar' 0.076 beats ' Cit' 0.061
// (giving "L'Étoile, la Marseillaise"; the AVX2 and earlier AVX-512 kernels, like llama.cpp, pick ' Cit').
// So the test pins the prefix every fp32-operand kernel and llama.cpp agree on; a real regression loses even that.
// With a bf16 prefill GEMM for q4_1 (both operands rounded to bf16) the 37-token prompt's K/V move enough to flip
// the first near tie the other way: the answer is then "The capital of France is Paris.", the fp16 model's answer.
// The AVX-512 tables' int8 prefill GEMM (activations rounded to int8 blocks, as llama.cpp's are) answers in French.
// With SiLU on the vector exp (relative error 1.8e-7, as std::exp's 1.6e-7 against double), the AVX2 table's
// answer flipped to Paris too (2026-12-03): the first tie moves with rounding alone. So the test holds the answer
// to one of the file's two answers, the one named for the table's GEMM where the tie is known to hold; a real
// regression (a wrong layer, a wrong activation, a broken tokenizer) gives neither.
TEST_CASE("default system turn: this q4_1 file answers like llama.cpp does", "[forward][model]") {
  Smol& s = smol();
  std::string text = greedy_chat(s, kSmolLM2SystemPrompt, 11);
  INFO("answer: " << text);
  const bool french = text.starts_with("L'\xc3\x89toile, la"), paris = text.starts_with("The capital of France is Paris.");
  CHECK((french || paris));
  const auto& t = rooftop::kernels::active_kernels();
  if (t.gemm_operand_rounding == 0 && !(t.gemm_uses_q8 && t.gemm_uses_q8(rooftop::kernels::WeightFormat::q4_1)))
    CHECK(french);  // fp32 operands everywhere (the scalar table), as llama.cpp's reference answer
}

// Seed 000 says " Paris" is NOT the likeliest first token on "The capital of France is"; its recorded run used
// another file/precision. THIS q4_1 file puts ' Paris' first at 0.775 (then ' the' 0.063, ' London' 0.012,
// ' Le' 0.0097, ' New' 0.0093), so the test asserts what this file does.
TEST_CASE("on 'The capital of France is' this q4_1 file ranks ' Paris' first (unlike seed 000's run)",
          "[forward][model]") {
  Smol& s = smol();
  auto ids = s.tok.encode("The capital of France is");
  Forward fwd(s.model, 16, s.pool);
  auto logits = fwd.prefill(ids);
  auto top = top_tokens(logits, 5);
  std::string summary;
  for (auto& t : top) summary += "'" + s.tok.piece(t.id) + "' " + std::to_string(t.prob) + "  ";
  INFO("top 5: " << summary);
  auto paris = s.tok.find_token("\xc4\xa0Paris");  // " Paris" in byte-mapped form
  REQUIRE(paris);
  CHECK(top[0].id == *paris);
  CHECK(top[0].prob == Approx(0.775).margin(0.03));
  CHECK(s.tok.piece(top[1].id) == " the");
}

TEST_CASE("prefill-then-decode matches token-by-token decode", "[forward][model]") {
  Smol& s = smol();
  auto ids = s.tok.encode("Grouped-query attention shares keys and values across heads, so the cache is small.");
  REQUIRE(ids.size() > 8);
  const int64_t V = s.model.cfg.vocab;
  // A: all but the last token in one batched prefill, then one decode step.
  Forward a(s.model, 64, s.pool);
  a.prefill(std::span<const int32_t>(ids).first(ids.size() - 1));
  auto la_span = a.decode(ids.back());
  std::vector<float> la(la_span.begin(), la_span.end());
  // B: every token through decode.
  Forward b(s.model, 64, s.pool);
  std::span<const float> lb;
  for (int32_t t : ids) lb = b.decode(t);
  double max_diff = 0, max_abs = 0;
  for (int64_t i = 0; i < V; ++i) {
    max_diff = std::max(max_diff, double(std::abs(la[size_t(i)] - lb[size_t(i)])));
    max_abs = std::max(max_abs, double(std::abs(lb[size_t(i)])));
  }
  WARN("prefill+decode vs decode only: max |logit difference| " << max_diff << " of max |logit| " << max_abs);
  CHECK(max_diff <= kPathTolerance * max_abs);
  CHECK(rooftop::kernels::argmax(la) == rooftop::kernels::argmax(lb));
  // The same two paths with fp32 activations in decode (GEMM on one row instead of the int8 GEMV): what is
  // left is fp32 rounding, so the int8 activation rounding accounts for the whole difference above.
  Forward a32(s.model, 64, s.pool), b32(s.model, 64, s.pool);
  a32.set_fp32_activations(true);
  b32.set_fp32_activations(true);
  a32.prefill(std::span<const int32_t>(ids).first(ids.size() - 1));
  auto la32_span = a32.decode(ids.back());
  std::vector<float> la32(la32_span.begin(), la32_span.end());
  std::span<const float> lb32;
  for (int32_t t : ids) lb32 = b32.decode(t);
  double diff32 = 0, q8_vs_fp32 = 0;
  for (int64_t i = 0; i < V; ++i) {
    diff32 = std::max(diff32, double(std::abs(la32[size_t(i)] - lb32[size_t(i)])));
    q8_vs_fp32 = std::max(q8_vs_fp32, double(std::abs(lb[size_t(i)] - lb32[size_t(i)])));
  }
  WARN("fp32 activations: prefill+decode vs decode only max |diff| " << diff32 << "; decode int8 vs fp32 activations "
       << q8_vs_fp32);
  // With bf16 GEMM operands (u = 2^-8) prefill rounds each product's operands: measured 0.053 of 22.5 (0.24%)
  // here, and 1.4% below for batched vs one-token prefills; bound 8u = 3.1% of the largest logit.
  // Where the tiled prefill GEMM multiplies int8 activations (the AVX2 and AVX-512 tables' q4_1), the fp32 path's
  // prefill still rounds them: bounded like the decode gap, by twice int8-vs-fp32 decode (AVX2: 0.40 against 0.66).
  const double u = rooftop::kernels::active_kernels().gemm_operand_rounding;
  const auto& t = rooftop::kernels::active_kernels();
  const bool int8_gemm = t.gemm_uses_q8 && t.gemm_uses_q8(rooftop::kernels::WeightFormat::q4_1);
  CHECK(diff32 <= (int8_gemm ? 2.0 * q8_vs_fp32 : 0.0) + (kFp32Tolerance + 8 * u) * max_abs);
  CHECK(max_diff <= 2.0 * q8_vs_fp32 + (kFp32Tolerance + 8 * u) * max_abs);  // the path gap is the rounding, no more
  // Batched prefill (tiled GEMM) vs one-token prefills (fp32 small-n path): equal to fp32 rounding, plus the tiled
  // GEMM's operand rounding where it uses bf16, or, where it multiplies int8 activations (AVX-512 tables: q4_1),
  // the activation rounding, bounded like the decode gap above by twice int8-vs-fp32 decode (measured 0.91 against
  // 0.60).
  Forward d(s.model, 64, s.pool), e(s.model, 64, s.pool);
  e.set_fp32_activations(true);  // one-token prefills otherwise run decode's int8-activation batched GEMV
  auto ld_span = d.prefill(ids);
  std::vector<float> ld(ld_span.begin(), ld_span.end());
  std::span<const float> le;
  for (int32_t t : ids) le = e.prefill(std::span<const int32_t>(&t, 1));
  double fp32_diff = 0;
  for (int64_t i = 0; i < V; ++i) fp32_diff = std::max(fp32_diff, double(std::abs(ld[size_t(i)] - le[size_t(i)])));
  WARN("batched prefill vs one-token prefills: max |logit difference| " << fp32_diff);
  CHECK(fp32_diff <= (int8_gemm ? 2.0 * q8_vs_fp32 : 0.0) + (1e-4 + 8 * u) * max_abs);
  // The same path twice is bit-identical (deterministic kernels).
  Forward c(s.model, 64, s.pool);
  std::span<const float> lc;
  for (int32_t t : ids) lc = c.decode(t);
  CHECK(std::equal(lb.begin(), lb.end(), lc.begin()));
}

TEST_CASE("rewind: a step after rewinding to n equals the step first taken at n", "[forward][model]") {
  // rooftop validate decodes many steps at one fixed context by rewinding the cache before each.
  Smol& s = smol();
  auto ids = s.tok.encode("Memory bandwidth bounds decode; arithmetic bounds prefill.");
  REQUIRE(ids.size() > 6);
  const size_t n = ids.size() - 3;
  Forward f(s.model, 64, s.pool);
  f.prefill(std::span<const int32_t>(ids).first(n));
  auto first_span = f.decode(ids[n]);
  const std::vector<float> first(first_span.begin(), first_span.end());
  f.decode(ids[n + 1]);  // positions n and n + 1 now written; both are forgotten below
  f.decode(ids[n + 2]);
  REQUIRE(f.cache().length() == int64_t(n) + 3);
  f.rewind(int64_t(n));
  CHECK(f.cache().length() == int64_t(n));
  auto again = f.decode(ids[n]);
  CHECK(std::equal(first.begin(), first.end(), again.begin()));  // same kernels, same inputs: bit for bit
  // A different token at position n gives different logits (the check above is not vacuous).
  f.rewind(int64_t(n));
  auto other = f.decode(ids[n + 1]);
  CHECK_FALSE(std::equal(first.begin(), first.end(), other.begin()));
  CHECK_THROWS_AS(f.rewind(int64_t(n) + 2), std::logic_error);  // beyond what was written
  CHECK_THROWS_AS(f.rewind(-1), std::logic_error);
}

TEST_CASE("perplexity on a fixed English paragraph", "[forward][model]") {
  Smol& s = smol();
  auto ids = s.tok.encode(rooftop::test::perplexity_paragraph());
  REQUIRE(ids.size() > 100);
  Forward fwd(s.model, int64_t(ids.size()), s.pool);
  const double ppl = rooftop::test::perplexity(fwd.prefill(ids, true), ids, s.model.cfg.vocab);
  WARN("perplexity " << ppl << " over " << ids.size() << " tokens");
  CHECK(ppl < kPerplexityThreshold);
}
