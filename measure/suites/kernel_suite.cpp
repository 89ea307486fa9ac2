// Kernel suite: GEMV per format, prefill GEMM (n = 128), OpenBLAS sgemm and decode attention at model shapes.
#include <memory>
#include <string>
#include <tuple>

#include "kernels/cpu/kernels.h"
#include "base/buffer.h"
#include "measure/kernel_bench.h"
#include "kernels/cpu/random_weights.h"
#include "measure/shapes.h"
#include "suite_common.h"

#include "measure/openblas.h"

namespace rooftop::bench {
namespace {
using namespace measure;
using kernels::WeightFormat;

// The most recent weight matrix, kept across a benchmark's repetitions (building one takes ~0.1 s).
const kernels::RandomWeights& weights(WeightFormat f, int64_t m, int64_t k) {
  static std::unique_ptr<kernels::RandomWeights> w;
  static std::tuple<WeightFormat, int64_t, int64_t> key;
  if (!w || key != std::make_tuple(f, m, k)) {
    w.reset();
    w = std::make_unique<kernels::RandomWeights>(random_weights(f, m, k, 11));
    key = {f, m, k};
  }
  return *w;
}

AlignedFloats signed_random(int64_t n, uint32_t seed) {
  AlignedFloats a(n, seed);
  for (int64_t i = 1; i < n; i += 2) a.data()[i] = -a.data()[i];
  return a;
}

// y (m) = W (m, k) x (k)
void gemv(benchmark::State& state, WeightFormat f, MatrixShape s) {
  if (s.k % kernels::block_values(f) != 0) {
    state.SkipWithError(("k is not a multiple of the " + std::string(kernels::format_name(f)) + " block").c_str());
    return;
  }
  const auto& w = weights(f, s.m, s.k);
  AlignedFloats x = signed_random(s.k, 12), y(s.m, 13);
  for (auto _ : state) {
    kernels::gemv(w.view, x.span(), y.span(), all_threads());
    benchmark::DoNotOptimize(y.data());
  }
  set_counters(state, static_cast<double>(w.view.bytes()) + 4.0 * static_cast<double>(s.m + s.k), 2.0 * s.m * s.k);
}

// Y (n, m) = X (n, k) W^T
void gemm(benchmark::State& state, WeightFormat f, MatrixShape s, int64_t n) {
  if (s.k % kernels::block_values(f) != 0) {
    state.SkipWithError(("k is not a multiple of the " + std::string(kernels::format_name(f)) + " block").c_str());
    return;
  }
  const auto& w = weights(f, s.m, s.k);
  AlignedFloats X = signed_random(n * s.k, 22), Y(n * s.m, 23);
  for (auto _ : state) {
    kernels::gemm(w.view, X.span(), n, Y.span(), all_threads());
    benchmark::DoNotOptimize(Y.data());
  }
  set_counters(state, static_cast<double>(w.view.bytes()) + 4.0 * static_cast<double>(n * (s.k + s.m)), 2.0 * n * s.m * s.k);
}

// Loaded at the first OpenBLAS benchmark, so that its threads are not spinning beside the project's kernels'.
void sgemm_openblas(benchmark::State& state, MatrixShape s, int64_t n) {
  const OpenBlas* lib = openblas();
  if (!lib) {
    state.SkipWithError("OpenBLAS is not installed (libopenblas.so.0)");
    return;
  }
  const OpenBlas& blas = *lib;
  const auto& w = weights(WeightFormat::f32, s.m, s.k);
  const float* W = reinterpret_cast<const float*>(w.storage.data());
  AlignedFloats X = signed_random(n * s.k, 22), Y(n * s.m, 23);
  const int M = static_cast<int>(s.m), K = static_cast<int>(s.k), N = static_cast<int>(n);
  for (auto _ : state) {
    blas.sgemm_xwt(all_threads().size(), N, M, K, X.data(), W, Y.data());
    benchmark::DoNotOptimize(Y.data());
  }
  set_counters(state, 4.0 * static_cast<double>(s.m * s.k + n * (s.k + s.m)), 2.0 * n * s.m * s.k);
}

// One layer's KV cache (fits in L3 at t = 1024 on large-cache CPUs: see rooftop calibrate for the
// many-layer, DRAM-bound figure).
void attention(benchmark::State& state, bool f16, AttentionShape a) {
  const int64_t values = a.t * a.kv_heads * a.head_dim;
  AlignedFloats kf = signed_random(values, 31), vf = signed_random(values, 32);
  std::vector<uint16_t> kh(static_cast<size_t>(values)), vh(kh.size());
  for (int64_t i = 0; i < values; ++i) {
    kh[static_cast<size_t>(i)] = static_cast<uint16_t>(0x3000 + (i * 7919) % 0x0c00);  // fp16 in [0.125, 0.5)
    vh[static_cast<size_t>(i)] = static_cast<uint16_t>(0xb000 + (i * 104729) % 0x0c00);  // negative, non-zero
  }
  AlignedFloats q = signed_random(a.heads * a.head_dim, 34), out(a.heads * a.head_dim, 35);
  kernels::KvView kv;
  kv.f16 = f16;
  kv.kv_heads = a.kv_heads;
  kv.head_dim = a.head_dim;
  kv.k = f16 ? static_cast<const void*>(kh.data()) : kf.data();
  kv.v = f16 ? static_cast<const void*>(vh.data()) : vf.data();
  for (auto _ : state) {
    kernels::attention_decode(q.span(), a.heads, kv, a.t, out.span(), all_threads());
    benchmark::DoNotOptimize(out.data());
  }
  set_counters(state, 2.0 * static_cast<double>(values) * (f16 ? 2 : 4), 4.0 * a.heads * a.t * a.head_dim);
}

std::string shape_name(const MatrixShape& s) {
  return s.model + "/" + s.what + "/m:" + std::to_string(s.m) + "/k:" + std::to_string(s.k);
}

const bool registered = [] {
  for (const auto& s : model_matrix_shapes())
    for (auto f : all_formats())
      standard(benchmark::RegisterBenchmark(("gemv/" + std::string(kernels::format_name(f)) + "/" + shape_name(s)).c_str(),
                                            [f, s](benchmark::State& st) { gemv(st, f, s); }));
  for (const auto& s : model_matrix_shapes()) {
    for (auto f : {WeightFormat::f32, WeightFormat::f16, WeightFormat::q8_0, WeightFormat::q4_0, WeightFormat::q4_1,
                   WeightFormat::q5_0, WeightFormat::q4_k, WeightFormat::q6_k})  // q5_0: Q4_K_M files of odd widths
      standard(benchmark::RegisterBenchmark(("gemm/" + std::string(kernels::format_name(f)) + "/n:128/" + shape_name(s)).c_str(),
                                            [f, s](benchmark::State& st) { gemm(st, f, s, kPrefillTokens); }))
          ->Repetitions(3);
    standard(benchmark::RegisterBenchmark(("sgemm_openblas/f32/n:128/" + shape_name(s)).c_str(),
                                          [s](benchmark::State& st) { sgemm_openblas(st, s, kPrefillTokens); }))
        ->Repetitions(3);
  }
  for (bool f16 : {false, true})
    standard(benchmark::RegisterBenchmark((std::string("attention/") + (f16 ? "f16" : "f32") + "/llama-3.1-8b/t:1024").c_str(),
                                          [f16](benchmark::State& st) { attention(st, f16, llama8b_attention(1024)); }))
        ->Unit(benchmark::kMicrosecond);
  return true;
}();

}  // namespace
}  // namespace rooftop::bench
