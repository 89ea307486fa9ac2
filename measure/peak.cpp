// measure_peaks: every thread runs the same register-resident chains; ops = threads x iters x ops/iter.
#include "measure/peak.h"

#include <atomic>
#include <functional>

#include "kernels/cpu/dispatch.h"
#include "kernels/cpu/thread_pool.h"
#include "measure/simd_loops.h"

namespace rooftop::measure {
namespace {
std::atomic<float> g_peak_sink{0};

}  // namespace

const std::vector<PeakVariant>& peak_variants() {
  static const std::vector<PeakVariant> variants = {
      {"fp32", "fma_avx2", {"avx2", "fma"}, fma_fp32_avx2, kFmaAvx2OpsPerIter},
      {"fp32", "fma_avx512", {"avx512f"}, fma_fp32_avx512, kFmaAvx512OpsPerIter},
      {"bf16", "vdpbf16ps_avx512", {"avx512f", "avx512_bf16"}, dot_bf16_avx512, kBf16OpsPerIter},
      {"int8", "vpdpbusd_avx512_vnni", {"avx512f", "avx512bw", "avx512_vnni"}, dot_int8_avx512, kInt8OpsPerIter},
      {"bf16", "tdpbf16ps_amx", {"amx_bf16", "avx512_bf16"}, dot_bf16_amx, kBf16AmxOpsPerIter,
       [] { return kernels::isa_supported(kernels::Isa::amx); }},
  };
  return variants;
}

std::string peak_variant_missing(const PeakVariant& v) {
  std::string missing;
  for (const char* f : v.needs)
    if (!cpu_has(f)) missing += (missing.empty() ? "" : ", ") + std::string(f);
  if (missing.empty() && v.usable && !v.usable()) missing = "the OS's permission to use it";
  return missing;
}

std::vector<PeakResult> measure_peaks(kernels::ThreadPool& pool, const TimerOptions& opt) {
  const std::vector<PeakVariant>& variants = peak_variants();
  const int threads = pool.size();
  const int64_t iters = 200000;  // ~2.4M instructions per thread per call: ~1 ms
  std::vector<PeakResult> out;
  for (const auto& v : variants) {
    PeakResult r;
    r.format = v.format;
    r.variant = v.name;
    r.threads = threads;
    const std::string missing = peak_variant_missing(v);
    if (!missing.empty()) {
      r.skipped_reason = std::string(v.name) + " skipped: this CPU lacks " + missing;
      out.push_back(r);
      continue;
    }
    auto fn = [&] {
      pool.parallel_for(threads, [&](int64_t t0, int64_t t1, int) {
        for (int64_t t = t0; t < t1; ++t) g_peak_sink.store(v.loop(iters), std::memory_order_relaxed);
      });
    };
    r.seconds = time_per_call(fn, opt);
    r.ops_per_s = static_cast<double>(threads) * static_cast<double>(iters) * v.ops_per_iter / r.seconds.median;
    r.measured = true;
    out.push_back(r);
  }
  return out;
}

std::vector<std::pair<std::string, double>> best_peaks(const std::vector<PeakResult>& peaks) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& p : peaks) {
    if (!p.measured) continue;
    bool found = false;
    for (auto& [f, v] : out)
      if (f == p.format) {
        v = std::max(v, p.ops_per_s);
        found = true;
      }
    if (!found) out.emplace_back(p.format, p.ops_per_s);
  }
  return out;
}

}  // namespace rooftop::measure
