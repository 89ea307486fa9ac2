// Google Benchmark of the analyzer itself: fit and speed over a sweep of configurations
// (DESIGN.md target: 10^6 configurations in seconds on one core).
#include <benchmark/benchmark.h>

#include <vector>

#include "analyzer/memory.h"
#include "analyzer/speed.h"

namespace {
rooftop::ModelSpec llama8b() {
  rooftop::ModelSpec m;
  m.id = "llama-3.1-8b";
  m.vocab = 128256; m.hidden = 4096; m.layers = 32; m.heads = 32; m.kv_heads = 8; m.head_dim = 128; m.ffn = 14336;
  m.max_context = 131072;
  return m;
}
rooftop::ChipSpec h100() {
  rooftop::ChipSpec c;
  c.id = "h100-sxm";
  c.kind = "gpu";
  c.memory_bytes = 80e9;
  c.memory_bandwidth_bytes_per_s = 3.35e12;
  c.peak_flops = {{"bf16", 989.4e12}, {"fp8", 1978.9e12}, {"int8", 1978.9e12}, {"fp16", 989.4e12}};
  c.tdp_watts = 700;
  c.usd_per_hour = 2.5;
  return c;
}
const char* kFormats[] = {"bf16", "fp8", "q4_k_m", "q8_0", "int4"};
const int64_t kContexts[] = {1024, 4096, 8192, 32768, 131072};
const std::vector<int64_t> kBatches = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768,
                                       65536, 131072, 262144, 524288};

// Runs `one(plan, context)` over every format and context; it returns the configurations it covered.
template <class One>
void sweep(benchmark::State& st, One one) {
  int64_t configs = 0;
  for (auto _ : st)
    for (const char* f : kFormats)
      for (int64_t ctx : kContexts) {
        rooftop::PrecisionPlan p;
        p.weights = f;
        configs += one(p, ctx);
      }
  st.counters["configs_per_s"] = benchmark::Counter(static_cast<double>(configs), benchmark::Counter::kIsRate);
}

// One configuration = one fit (with its max batch and max context searches).
void BM_fit_sweep(benchmark::State& st) {
  const auto m = llama8b();
  const auto c = h100();
  sweep(st, [&](const rooftop::PrecisionPlan& p, int64_t ctx) {
    for (int64_t b : kBatches) {
      rooftop::FitOptions o;
      o.context = ctx;
      o.batch = b;
      benchmark::DoNotOptimize(rooftop::fit(m, c, p, o));
    }
    return static_cast<int64_t>(kBatches.size());
  });
}
BENCHMARK(BM_fit_sweep)->Unit(benchmark::kMillisecond);

// One configuration = one speed point (a decode step's per-op roofline plus prefill).
void BM_speed_sweep(benchmark::State& st) {
  const auto m = llama8b();
  const auto c = h100();
  sweep(st, [&](const rooftop::PrecisionPlan& p, int64_t ctx) {
    rooftop::SpeedOptions o;
    o.context = ctx;
    o.batches = kBatches;
    benchmark::DoNotOptimize(rooftop::speed(m, c, p, o));
    return static_cast<int64_t>(kBatches.size());
  });
}
BENCHMARK(BM_speed_sweep)->Unit(benchmark::kMillisecond);
}  // namespace

BENCHMARK_MAIN();
