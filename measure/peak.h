// Peak arithmetic rates: fp32 FMA (AVX2 and AVX-512), bf16 dot (vdpbf16ps, AMX TDPBF16PS), int8 dot (vpdpbusd).
#pragma once
#include <string>
#include <vector>

#include "measure/stats.h"
#include "measure/timer.h"

namespace rooftop::kernels {
class ThreadPool;
}

namespace rooftop::measure {

// One peak loop: its format, name, the CPUID flags it needs, and FLOPs (int8: ops) per iteration of `loop`.
struct PeakVariant {
  const char* format;
  const char* name;
  std::vector<const char*> needs;
  float (*loop)(int64_t);
  double ops_per_iter;
  bool (*usable)() = nullptr;  // a further check beyond CPUID (AMX: the OS granted the tile state); nullptr: none
};
// Whether this machine can run v: its CPUID flags and its usable() check. Empty, or what is missing.
std::string peak_variant_missing(const PeakVariant& v);
// Every variant, for calibrate (measure_peaks) and the Google Benchmark suite alike.
const std::vector<PeakVariant>& peak_variants();

struct PeakResult {
  std::string format;     // "fp32", "bf16", "int8"
  std::string variant;    // "fma_avx2", "fma_avx512", "vdpbf16ps_avx512", "vpdpbusd_avx512_vnni", "tdpbf16ps_amx"
  bool measured = false;  // false: skipped, see skipped_reason
  std::string skipped_reason;
  int threads = 1;
  double ops_per_s = 0;   // FLOP/s (int8: ops/s), all threads, median
  Stats seconds;
};

// Every variant this code knows, measured where CPUID says present and skipped (with the reason) otherwise.
std::vector<PeakResult> measure_peaks(kernels::ThreadPool& pool, const TimerOptions& opt);

// The best measured rate per format ("fp32" -> max over variants); formats never measured are absent.
std::vector<std::pair<std::string, double>> best_peaks(const std::vector<PeakResult>& peaks);

}  // namespace rooftop::measure
