// Peak suite: measure::peak_variants() (fp32 FMA, bf16 vdpbf16ps and AMX, int8 vpdpbusd) on all threads, each
// skipped without its ISA.
#include <string>
#include <vector>

#include "measure/peak.h"
#include "measure/simd_loops.h"
#include "suite_common.h"

namespace rooftop::bench {
namespace {
using namespace measure;

void peak(benchmark::State& state, const PeakVariant& v) {
  if (const std::string missing = peak_variant_missing(v); !missing.empty()) {
    state.SkipWithError(("this CPU lacks " + missing).c_str());
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
  for (const PeakVariant& v : peak_variants())
    standard(benchmark::RegisterBenchmark((std::string("peak/") + v.format + "/" + v.name).c_str(),
                                          [&v](benchmark::State& s) { peak(s, v); }))
        ->Unit(benchmark::kMicrosecond);
  return true;
}();

}  // namespace
}  // namespace rooftop::bench
