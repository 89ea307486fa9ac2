// Peak suite: fp32 FMA (AVX2, AVX-512), bf16 vdpbf16ps, int8 vpdpbusd on all threads; skipped without the ISA.
#include <string>
#include <vector>

#include "microbench/simd_loops.h"
#include "suite_common.h"

namespace rooftop::bench {
namespace {
using namespace microbench;

struct Variant {
  const char* name;
  std::vector<const char*> needs;
  float (*loop)(int64_t);
  double ops_per_iter;
};

void peak(benchmark::State& state, const Variant& v) {
  for (const char* f : v.needs)
    if (!cpu_has(f)) {
      state.SkipWithError((std::string("this CPU lacks ") + f).c_str());
      return;
    }
  auto& pool = all_threads();
  const int64_t iters = 100000;
  float sink = 0;
  for (auto _ : state) {
    pool.parallel_for(pool.size(), [&](int64_t t0, int64_t t1, int) {
      for (int64_t t = t0; t < t1; ++t) sink += v.loop(iters);
    });
    benchmark::DoNotOptimize(sink);
  }
  set_counters(state, 0, static_cast<double>(pool.size()) * static_cast<double>(iters) * v.ops_per_iter);
}

const bool registered = [] {
  static const std::vector<Variant> variants = {
      {"peak/fp32/fma_avx2", {"avx2", "fma"}, fma_fp32_avx2, kFmaAvx2OpsPerIter},
      {"peak/fp32/fma_avx512", {"avx512f"}, fma_fp32_avx512, kFmaAvx512OpsPerIter},
      {"peak/bf16/vdpbf16ps_avx512", {"avx512f", "avx512_bf16"}, dot_bf16_avx512, kBf16OpsPerIter},
      {"peak/int8/vpdpbusd_avx512_vnni", {"avx512f", "avx512bw", "avx512_vnni"}, dot_int8_avx512, kInt8OpsPerIter},
  };
  for (const auto& v : variants)
    standard(benchmark::RegisterBenchmark(v.name, [&v](benchmark::State& s) { peak(s, v); }))->Unit(benchmark::kMicrosecond);
  return true;
}();

}  // namespace
}  // namespace rooftop::bench
