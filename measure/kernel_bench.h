// The project's own kernels (and OpenBLAS sgemm) timed at model shapes: achieved bytes/s and FLOP/s.
#pragma once
#include <cstdint>
#include <string>

#include "kernels/cpu/kernels.h"
#include "measure/stats.h"
#include "measure/timer.h"

namespace rooftop::kernels {
class ThreadPool;
}

namespace rooftop::measure {

struct KernelResult {
  std::string name;         // "gemv_q4_1", "gemm_f32", "attention_f16", "sgemm_openblas"
  std::string op;           // "gemv" | "gemm" | "attention"
  std::string format;       // weight (or KV) format
  int64_t m = 0, k = 0, n = 0;              // gemv/gemm: W (m, k), n tokens (gemv: n = 1)
  int64_t heads = 0, kv_heads = 0, head_dim = 0, t = 0;  // attention
  double bytes_per_call = 0;   // weights (or KV) + activations in + out, each read/written once
  double flops_per_call = 0;   // 2 per multiply-add
  double working_set_bytes = 0; // bytes cycled through across calls (attention: every layer's KV)
  Stats seconds;
  double bytes_per_s = 0, flops_per_s = 0;
  std::string ceiling;         // "memory_bandwidth_bytes_per_s", "levels.L2", "peak_flops.fp32"
  double ceiling_value = 0;
  double fraction_of_ceiling = 0;
};

// Copies of a random W (m, k) in `format`, enough to exceed min_working_set_bytes (at least one), and
// their GEMV (n = 1: gemv, named "gemv_<fmt>") or batched GEMV (n > 1: gemv_batch, "gemv_batch<n>_<fmt>")
// timed on demand: `rooftop validate` re-measures a format's streaming rate right before and after each
// decode point with the same matrices (allocated once).
class GemvStream {
 public:
  GemvStream(kernels::WeightFormat format, int64_t m, int64_t k, double min_working_set_bytes, uint32_t seed = 11,
             int64_t n = 1);
  ~GemvStream();
  GemvStream(const GemvStream&) = delete;
  GemvStream& operator=(const GemvStream&) = delete;
  KernelResult measure(kernels::ThreadPool& pool, const TimerOptions& opt);

 private:
  struct Impl;
  Impl* impl_;
};

// y (m) = W (m, k) x (k) with W random in `format`. With min_working_set_bytes > 0 the calls cycle
// through enough distinct copies of W to exceed it (4 x the LLC measures DRAM, not a warm L3).
KernelResult measure_gemv(kernels::ThreadPool& pool, kernels::WeightFormat format, int64_t m, int64_t k,
                          const TimerOptions& opt, double min_working_set_bytes = 0);
// Batched decode: Y (n, m) = X (n, k) W^T through gemv_batch (int8 activations, W read once for up
// to 8 tokens); named "gemv_batch<n>_<fmt>". min_working_set_bytes as for measure_gemv.
KernelResult measure_gemv_batch(kernels::ThreadPool& pool, kernels::WeightFormat format, int64_t m, int64_t k,
                                int64_t n, const TimerOptions& opt, double min_working_set_bytes = 0);
// Y (n, m) = X (n, k) W^T. With min_working_set_bytes > 0 the calls cycle through enough copies of W to exceed it
// (weights read from DRAM, as a model larger than the cache reads them once per pass).
KernelResult measure_gemm(kernels::ThreadPool& pool, kernels::WeightFormat format, int64_t m, int64_t k,
                          int64_t n, const TimerOptions& opt, double min_working_set_bytes = 0);
// Decode attention over `layers` distinct KV caches used in turn (so the KV traffic comes from DRAM,
// as in a real step over many layers); KV in fp16 when f16, else fp32.
KernelResult measure_attention(kernels::ThreadPool& pool, bool f16, int64_t heads, int64_t kv_heads,
                               int64_t head_dim, int64_t t, int64_t layers, const TimerOptions& opt);

// Causal prefill attention of a `prompt`-token prompt (fp32 KV of the prompt itself, positions 0..P-1):
// FLOPs 4 x h x d x P (P + 1) / 2 (QK^T and PV over the causal pairs); named "attention_prefill_f32".
KernelResult measure_attention_prefill(kernels::ThreadPool& pool, int64_t heads, int64_t kv_heads, int64_t head_dim,
                                       int64_t prompt, const TimerOptions& opt);

// True when this build links a CBLAS (OpenBLAS); the two functions below throw std::runtime_error otherwise.
bool have_openblas();
// cblas_sgemm on the same problem as measure_gemm(f32), OpenBLAS with `threads` threads.
KernelResult measure_sgemm_openblas(int threads, int64_t m, int64_t k, int64_t n, const TimerOptions& opt);
// What a user would do without a quantized GEMM: dequantize W (format) to fp32 (our kernel, all
// threads), then cblas_sgemm. Named "gemm_<fmt>_dequant_sgemm_openblas".
KernelResult measure_dequant_sgemm_openblas(kernels::ThreadPool& pool, kernels::WeightFormat format, int64_t m,
                                            int64_t k, int64_t n, const TimerOptions& opt);

}  // namespace rooftop::measure
