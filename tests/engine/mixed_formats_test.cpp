// A llama GGUF whose tensors mix every format the kernels read, as Q4_K_M / Q5_K_M files do (q4_k and q5_k with
// q5_0 / q5_1 / q8_0 fallbacks where a row width is not a multiple of 256, q6_k for attn_v and output): it loads,
// and its forward pass equals that of the same values stored as f32.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "base/errors.h"
#include "engine/forward.h"
#include "gguf/gguf.h"
#include "engine/model.h"
#include "gguf_writer.h"
#include "kernels/cpu/thread_pool.h"

using namespace rooftop;
using kernels::WeightFormat;
using rooftop::test::GgufWriter;

namespace {

constexpr int64_t kD = 256, kF = 512, kV = 320, kLayers = 2;

struct Files {
  std::vector<uint8_t> quantized, f32;  // the same values: in their formats, and dequantized to f32
};

// Writes one matrix (rows x cols) of random values +-[0.05, 1) in format f to q, and its dequantized values to r.
void matrix(GgufWriter& q, GgufWriter& r, const std::string& name, WeightFormat f, int64_t rows, int64_t cols,
            std::mt19937& rng) {
  std::uniform_real_distribution<float> mag(0.05f, 1.0f);
  std::bernoulli_distribution neg(0.5);
  const int64_t rb = kernels::row_bytes(f, cols);
  std::vector<uint8_t> bytes(size_t(rows * rb)), values(size_t(rows * cols * 4));
  std::vector<float> row(static_cast<size_t>(cols)), back(static_cast<size_t>(cols));
  for (int64_t i = 0; i < rows; ++i) {
    for (auto& v : row) v = neg(rng) ? -mag(rng) : mag(rng);
    auto* dst = reinterpret_cast<std::byte*>(bytes.data() + i * rb);
    kernels::quantize_row(f, row, dst);
    kernels::dequantize_row_ref(f, dst, back);
    std::memcpy(values.data() + i * cols * 4, back.data(), size_t(cols) * 4);
  }
  q.tensor(name, uint32_t(f), {uint64_t(cols), uint64_t(rows)}, bytes);
  r.tensor(name, 0, {uint64_t(cols), uint64_t(rows)}, values);
}

void norm(GgufWriter& q, GgufWriter& r, const std::string& name, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(0.5f, 1.5f);
  std::vector<uint8_t> b(size_t(kD * 4));
  for (int64_t i = 0; i < kD; ++i) {
    const float v = u(rng);
    std::memcpy(b.data() + i * 4, &v, 4);
  }
  q.tensor(name, 0, {uint64_t(kD)}, b);
  r.tensor(name, 0, {uint64_t(kD)}, b);
}

// rope_freqs: a rope_freqs.weight tensor (head dim / 2 = 32 values) as Llama 3.1+ files carry; empty: none.
Files mixed_files(const std::vector<float>& rope_freqs = {}) {
  GgufWriter q(3), r(3);
  for (GgufWriter* w : {&q, &r}) {
    w->kv_string("general.architecture", "llama");
    w->kv<uint32_t>("llama.block_count", 4, kLayers);
    w->kv<uint32_t>("llama.embedding_length", 4, kD);
    w->kv<uint32_t>("llama.attention.head_count", 4, 4);
    w->kv<uint32_t>("llama.attention.head_count_kv", 4, 2);
    w->kv<uint32_t>("llama.feed_forward_length", 4, kF);
    w->kv<uint32_t>("llama.context_length", 4, 64);
  }
  std::mt19937 rng(77);
  matrix(q, r, "token_embd.weight", WeightFormat::q4_k, kV, kD, rng);
  for (int64_t l = 0; l < kLayers; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    norm(q, r, p + "attn_norm.weight", rng);
    matrix(q, r, p + "attn_q.weight", WeightFormat::q5_k, kD, kD, rng);
    matrix(q, r, p + "attn_k.weight", WeightFormat::q5_0, kD / 2, kD, rng);
    matrix(q, r, p + "attn_v.weight", WeightFormat::q6_k, kD / 2, kD, rng);
    matrix(q, r, p + "attn_output.weight", WeightFormat::q4_k, kD, kD, rng);
    norm(q, r, p + "ffn_norm.weight", rng);
    matrix(q, r, p + "ffn_gate.weight", WeightFormat::q5_1, kF, kD, rng);
    matrix(q, r, p + "ffn_up.weight", WeightFormat::q4_0, kF, kD, rng);
    matrix(q, r, p + "ffn_down.weight", l == 0 ? WeightFormat::q8_0 : WeightFormat::q5_0, kD, kF, rng);
  }
  norm(q, r, "output_norm.weight", rng);
  matrix(q, r, "output.weight", WeightFormat::q6_k, kV, kD, rng);
  if (!rope_freqs.empty()) {
    std::vector<uint8_t> b(rope_freqs.size() * 4);
    std::memcpy(b.data(), rope_freqs.data(), b.size());
    for (GgufWriter* w : {&q, &r}) w->tensor("rope_freqs.weight", 0, {uint64_t(rope_freqs.size())}, b);
  }
  return {q.bytes(), r.bytes()};
}

engine::LlamaModel load(const std::vector<uint8_t>& b, const char* name) {
  return engine::load_llama(engine::parse_gguf(reinterpret_cast<const std::byte*>(b.data()), b.size(), name));
}

// max |a - b| over max |b|
float relative_gap(std::span<const float> a, std::span<const float> b) {
  float diff = 0, scale = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    REQUIRE(std::isfinite(a[i]));
    diff = std::max(diff, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  REQUIRE(scale > 0);
  return diff / scale;
}

}  // namespace

TEST_CASE("a file mixing q4_k, q5_k, q5_0, q5_1, q6_k, q4_0 and q8_0 tensors loads and runs like its f32 copy",
          "[forward][formats]") {
  const Files files = mixed_files();
  const engine::LlamaModel mq = load(files.quantized, "mixed.gguf"), mf = load(files.f32, "mixed-f32.gguf");
  CHECK(mq.layers[0].wk.format == WeightFormat::q5_0);
  CHECK(mq.layers[0].gate.format == WeightFormat::q5_1);
  CHECK(mq.layers[0].wq.format == WeightFormat::q5_k);
  kernels::ThreadPool pool(2);
  const std::vector<int32_t> prompt = {3, 141, 59, 26, 5, 310, 27};
  engine::Forward fq(mq, 32, pool), ff(mf, 32, pool);
  // Prefill: fp32 activations against the very same (dequantized) weight values; only the summation order differs.
  // (A 7-token prompt runs the batched GEMV, whose integer dots take int8 activations unless asked for fp32.)
  fq.set_fp32_activations(true);
  const auto pq = fq.prefill(prompt, true);
  const std::vector<float> prefill_q(pq.begin(), pq.end());
  const auto pf = ff.prefill(prompt, true);
  CHECK(relative_gap(prefill_q, pf) < 1e-4f);
  {  // The same prompt as `rooftop run` prefills it: decode's batched GEMV with int8 activations, within their rounding.
    engine::Forward fq8(mq, 32, pool);
    const auto p8 = fq8.prefill(prompt, true);
    const float gap = relative_gap(p8, pf);
    INFO("int8-activation prefill gap " << gap);
    CHECK(gap < 0.05f);
    CHECK(gap > 1e-3f);  // the integer path ran (measured 0.027; the fp32 path's gap is below 1e-4, above)
  }
  // Decode with fp32 activations: the same.
  const auto dq = fq.decode(99);
  const std::vector<float> decode_q(dq.begin(), dq.end());
  const auto df = ff.decode(99);
  const std::vector<float> decode_f(df.begin(), df.end());
  CHECK(relative_gap(decode_q, decode_f) < 1e-4f);
  // Decode as `rooftop run` does it (int8 activations in the integer dots): within the rounding of the activations.
  fq.rewind(int64_t(prompt.size()));
  fq.set_fp32_activations(false);
  const auto dq8 = fq.decode(99);
  const float gap = relative_gap(dq8, decode_f);
  INFO("int8-activation decode gap " << gap);
  CHECK(gap < 0.05f);
  CHECK(gap > 0.0f);  // the integer path ran: the rounding of the activations shows
}

TEST_CASE("a Llama 3.1-style rope_freqs tensor divides RoPE's angles; a bad one is refused", "[forward][formats]") {
  // Head dim 256 / 4 = 64: 32 factors. All ones must change nothing; factors 1 ... 32 (every pair but the first
  // slowed; Llama 3.1's own slow only the slow pairs, whose angles at 5 positions are too small to show) must change
  // the logits once positions differ (the first token's RoPE is the identity).
  kernels::ThreadPool pool(2);
  const std::vector<int32_t> prompt = {3, 141, 59, 26, 5};
  auto logits = [&](const std::vector<float>& freqs) {
    const Files f = mixed_files(freqs);
    const engine::LlamaModel m = load(f.f32, "rope.gguf");
    CHECK(m.rope_freqs.size() == freqs.size());
    engine::Forward fw(m, 16, pool);
    fw.set_fp32_activations(true);
    const auto out = fw.prefill(prompt, true);
    return std::vector<float>(out.begin(), out.end());
  };
  const auto none = logits({}), ones = logits(std::vector<float>(32, 1.0f));
  CHECK(relative_gap(ones, none) < 1e-6f);
  std::vector<float> scaled(32);
  for (size_t i = 0; i < scaled.size(); ++i) scaled[i] = 1.0f + float(i);
  CHECK(relative_gap(logits(scaled), none) > 1e-3f);
  // A factor that is not a positive number, or the wrong count, is the file's fault: InputError naming the tensor.
  std::vector<float> bad(32, 1.0f);
  bad[5] = 0.0f;
  CHECK_THROWS_WITH(load(mixed_files(bad).f32, "bad.gguf"), Catch::Contains("rope_freqs.weight"));
  CHECK_THROWS_AS(load(mixed_files(std::vector<float>(16, 1.0f)).f32, "short.gguf"), rooftop::InputError);
}

TEST_CASE("a qwen2 file adds its q, k and v biases and uses NeoX RoPE; factors belong to llama files only",
          "[forward][formats]") {
  // Independent reference: one layer computed here in double from the f32 file's values (embedding, RMSNorm, the
  // projections plus biases, NeoX RoPE at base 10,000, causal softmax attention with grouped KV heads, SwiGLU,
  // output norm and head), for a 3-token prompt; the engine's logits of the last token must match it.
  constexpr int64_t D = 64, H = 4, Hk = 2, d = D / H, F = 128, V = 96, n = 3;
  std::mt19937 rng(91);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f), pos(0.5f, 1.5f);
  auto values = [&](size_t count, bool positive = false) {
    std::vector<float> v(count);
    for (auto& x : v) x = positive ? pos(rng) : u(rng);
    return v;
  };
  auto bytes = [](const std::vector<float>& v) {
    std::vector<uint8_t> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  const auto emb = values(V * D), an = values(D, true), wq = values(D * D), wk = values(Hk * d * D), wv = values(Hk * d * D),
             bq = values(D), bk = values(Hk * d), bv = values(Hk * d), wo = values(D * D), fn = values(D, true),
             wg = values(F * D), wu = values(F * D), wd = values(D * F), on = values(D, true), head = values(V * D);
  GgufWriter w(3);
  w.kv_string("general.architecture", "qwen2");
  w.kv<uint32_t>("qwen2.block_count", 4, 1);
  w.kv<uint32_t>("qwen2.embedding_length", 4, D);
  w.kv<uint32_t>("qwen2.attention.head_count", 4, H);
  w.kv<uint32_t>("qwen2.attention.head_count_kv", 4, Hk);
  w.kv<uint32_t>("qwen2.feed_forward_length", 4, F);
  w.kv<uint32_t>("qwen2.context_length", 4, 64);
  auto mat = [&](const char* name, const std::vector<float>& v, int64_t rows, int64_t cols) {
    w.tensor(name, 0, {uint64_t(cols), uint64_t(rows)}, bytes(v));
  };
  auto vec = [&](const char* name, const std::vector<float>& v) { w.tensor(name, 0, {uint64_t(v.size())}, bytes(v)); };
  mat("token_embd.weight", emb, V, D);
  vec("blk.0.attn_norm.weight", an);
  mat("blk.0.attn_q.weight", wq, D, D);
  mat("blk.0.attn_k.weight", wk, Hk * d, D);
  mat("blk.0.attn_v.weight", wv, Hk * d, D);
  vec("blk.0.attn_q.bias", bq);
  vec("blk.0.attn_k.bias", bk);
  vec("blk.0.attn_v.bias", bv);
  mat("blk.0.attn_output.weight", wo, D, D);
  vec("blk.0.ffn_norm.weight", fn);
  mat("blk.0.ffn_gate.weight", wg, F, D);
  mat("blk.0.ffn_up.weight", wu, F, D);
  mat("blk.0.ffn_down.weight", wd, D, F);
  vec("output_norm.weight", on);
  mat("output.weight", head, V, D);
  const std::vector<uint8_t> file = w.bytes();

  // The reference, in double.
  const std::vector<int32_t> prompt = {7, 42, 5};
  using Vec = std::vector<double>;
  auto rms = [](const Vec& x, const std::vector<float>& g) {
    double ss = 0;
    for (double v : x) ss += v * v;
    const double inv = 1 / std::sqrt(ss / double(x.size()) + 1e-5);
    Vec y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] * inv * g[i];
    return y;
  };
  auto mv = [](const std::vector<float>& m, int64_t rows, int64_t cols, const Vec& x) {
    Vec y(size_t(rows), 0.0);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) y[size_t(r)] += double(m[size_t(r * cols + c)]) * x[size_t(c)];
    return y;
  };
  auto rope_neox = [&](Vec& x, int64_t heads, int64_t p) {
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < d / 2; ++i) {
        const double th = double(p) * std::pow(10000.0, -2.0 * double(i) / double(d));
        double& a = x[size_t(h * d + i)];
        double& b = x[size_t(h * d + i + d / 2)];
        const double a0 = a, b0 = b;
        a = a0 * std::cos(th) - b0 * std::sin(th);
        b = a0 * std::sin(th) + b0 * std::cos(th);
      }
  };
  std::vector<Vec> xs, ks, vs, qs;
  for (int64_t t = 0; t < n; ++t) {
    Vec x(emb.begin() + prompt[size_t(t)] * D, emb.begin() + (prompt[size_t(t)] + 1) * D);
    const Vec xn = rms(x, an);
    Vec q = mv(wq, D, D, xn), k = mv(wk, Hk * d, D, xn), v = mv(wv, Hk * d, D, xn);
    for (int64_t i = 0; i < D; ++i) q[size_t(i)] += bq[size_t(i)];
    for (int64_t i = 0; i < Hk * d; ++i) k[size_t(i)] += bk[size_t(i)], v[size_t(i)] += bv[size_t(i)];
    rope_neox(q, H, t);
    rope_neox(k, Hk, t);
    xs.push_back(x), qs.push_back(q), ks.push_back(k), vs.push_back(v);
  }
  const int64_t t = n - 1;  // the last token
  Vec att(size_t(D), 0.0);
  for (int64_t h = 0; h < H; ++h) {
    const int64_t g = h / (H / Hk);
    Vec s(static_cast<size_t>(n));
    double mx = -1e300;
    for (int64_t j = 0; j <= t; ++j) {
      double dot = 0;
      for (int64_t i = 0; i < d; ++i) dot += qs[size_t(t)][size_t(h * d + i)] * ks[size_t(j)][size_t(g * d + i)];
      s[size_t(j)] = dot / std::sqrt(double(d));
      mx = std::max(mx, s[size_t(j)]);
    }
    double z = 0;
    for (int64_t j = 0; j <= t; ++j) z += s[size_t(j)] = std::exp(s[size_t(j)] - mx);
    for (int64_t j = 0; j <= t; ++j)
      for (int64_t i = 0; i < d; ++i) att[size_t(h * d + i)] += s[size_t(j)] / z * vs[size_t(j)][size_t(g * d + i)];
  }
  Vec x = xs[size_t(t)];
  const Vec o = mv(wo, D, D, att);
  for (int64_t i = 0; i < D; ++i) x[size_t(i)] += o[size_t(i)];
  const Vec xn2 = rms(x, fn);
  const Vec gv = mv(wg, F, D, xn2), uv = mv(wu, F, D, xn2);
  Vec hdn(static_cast<size_t>(F));
  for (int64_t i = 0; i < F; ++i) hdn[size_t(i)] = gv[size_t(i)] / (1 + std::exp(-gv[size_t(i)])) * uv[size_t(i)];
  const Vec down = mv(wd, D, F, hdn);
  for (int64_t i = 0; i < D; ++i) x[size_t(i)] += down[size_t(i)];
  const Vec want = mv(head, V, D, rms(x, on));

  const engine::LlamaModel m = load(file, "qwen2.gguf");
  CHECK(m.cfg.rope_style == kernels::RopeStyle::halves);
  REQUIRE(m.layers[0].v_bias.size() == size_t(Hk * d));
  kernels::ThreadPool pool(2);
  engine::Forward f(m, 8, pool);
  f.set_fp32_activations(true);
  const auto all = f.prefill(prompt, true);  // every token's logits
  REQUIRE(all.size() == size_t(n * V));
  const std::vector<float> got(all.end() - V, all.end());
  double err = 0, scale = 0;
  for (int64_t i = 0; i < V; ++i) {
    err = std::max(err, std::abs(double(got[size_t(i)]) - want[size_t(i)]));
    scale = std::max(scale, std::abs(want[size_t(i)]));
  }
  INFO("max |engine - reference| / max |reference| = " << err / scale);
  CHECK(err / scale < 1e-4);
  // Decode takes the same path: one more token after rewinding matches the prefill's last logits.
  engine::Forward f2(m, 8, pool);
  f2.set_fp32_activations(true);
  const std::vector<int32_t> first_two = {7, 42};
  f2.prefill(first_two, false);
  const auto dec = f2.decode(5);
  for (int64_t i = 0; i < V; ++i) CHECK(double(dec[size_t(i)]) == Approx(double(got[size_t(i)])).margin(1e-4 * scale));
  // RoPE factors in a qwen2 file: refused (llama.cpp's qwen2 graph takes none).
  w.tensor("rope_freqs.weight", 0, {uint64_t(d / 2)}, bytes(std::vector<float>(size_t(d / 2), 1.0f)));
  CHECK_THROWS_WITH(load(w.bytes(), "qwen2-factors.gguf"), Catch::Contains("rope_freqs.weight"));
}
