// The GPU backend's public interface: device discovery, calibration and the bandwidth-law sweep; compiles with or without CUDA.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rooftop::gpu {

// One measured kernel: timings over many repetitions after warm-up, plus what the counters saw.
struct GpuKernelResult {
  std::string name;                 // "gemv_bf16", "copy", "attention_f16", "gemm_bf16_cublaslt"
  std::string op;                   // "copy" | "read" | "gemv" | "attention" | "gemm"
  std::string format;               // "bf16", "fp8_e4m3", "q8_0", "q4_1", "f16", "u8"
  int64_t m = 0, k = 0, n = 0;      // shape: gemv (m, k); gemm (m, n, k); attention m = heads, k = positions
  double seconds_median = 0;
  double seconds_spread = 0;        // (max - min) / median over the repetitions
  double bytes_per_s = 0;           // dram_bytes_counted / seconds_median
  double flops_per_s = 0;
  std::string ceiling;              // "memory_bandwidth_bytes_per_s" or "peak_flops.<fmt>"
  double fraction_of_ceiling = 0;
  int64_t dram_bytes_counted = 0;   // bytes the kernel must move (our napkin count)
  std::optional<double> dram_bytes_measured;  // CUPTI dram__bytes_read.sum + dram__bytes_write.sum
  std::string dram_bytes_note;      // why dram_bytes_measured is absent ("" when present)
};

struct GpuMachine {
  std::string name;                 // "NVIDIA H200"
  int device = 0;                   // CUDA ordinal
  int sm_count = 0;
  int64_t memory_bytes = 0;
  std::string cc;                   // compute capability "9.0"
  std::string fingerprint;          // "<name>|<sm_count>|<memory_bytes rounded to GB>"
};

struct GpuCalibration {
  std::string schema = "rooftop-gpu-calibration-1";
  std::string date;                 // ISO 8601 UTC
  bool quick = false;
  GpuMachine machine;
  double memory_bandwidth_bytes_per_s = 0;   // read-only kernel, median
  double copy_bytes_per_s = 0;               // device-to-device copy kernel (read + write bytes)
  std::vector<std::pair<std::string, double>> peak_flops;  // {"bf16", x}, {"fp8", y}: measured GEMM rates
  std::vector<std::string> notes;            // e.g. "fp8 GEMM skipped: needs compute capability >= 8.9"
  std::vector<GpuKernelResult> kernels;
  std::optional<double> power_watts_during_decode;  // NVML energy counter over a GEMV decode loop
  std::optional<double> joules_per_token;           // same loop, one GEMV set = one token
  std::string power_note;                           // why power is absent ("" when present)
};

// Number of usable CUDA devices; 0 with no driver, no device, or a build without CUDA. Never throws.
int device_count();
// Why device_count() is 0 ("built without CUDA", "cudaErrorNoDevice: no CUDA-capable device...");
// "" when there is a device.
std::string no_device_reason();
// Measure device `device`: copy/read bandwidth, GEMM peaks, own decode kernels, CUPTI bytes, NVML power.
// quick = fewer repetitions and smaller shapes (seconds, not minutes).
// Throws rooftop::InputError("no CUDA device ...") when there is none or `device` is out of range.
GpuCalibration calibrate(int device, bool quick);
// JSON text of a calibration (keys as in measure/calibration_schema.md; absent values are null
// with a "<key>_note" reason).
std::string to_json(const GpuCalibration& c);

// ---- the bandwidth-law sweep (validate) ----

// Decoder layer shapes of a llama-like model (dense SwiGLU FFN, grouped-query attention), from its model card.
struct GpuModelShape {
  std::string id;                   // "llama-3.1-8b"
  int64_t hidden = 0, ffn = 0, heads = 0, kv_heads = 0, head_dim = 0, layers = 0, vocab = 0;
};
// Cached positions every decode step's attention reads in the sweep.
constexpr int64_t kValidationContext = 1024;
// One point of the sweep's plan (validate/local/gpu_plan.h builds it from model cards): a model's shape in
// one weight format ("bf16", "fp8_e4m3", "q8_0", "q4_1"), and the bytes one decode step moves by the analyzer's
// accounting (pass_work), the same as the CPU sweep's.
struct GpuPlanPoint {
  GpuModelShape model;
  std::string format;
  int64_t context = kValidationContext;
  int64_t bytes_per_token = 0;
};
// The weight formats the GPU decode kernels run.
const std::vector<std::string>& validation_formats();

// One point of the sweep: a model in one weight format, one decode step timed on the GPU.
struct GpuValidationPoint {
  std::string model;                // "llama-3.1-8b"
  std::string format;               // "bf16" | "fp8_e4m3" | "q8_0" | "q4_1"
  int64_t context = 0;              // cached positions the attention reads
  int64_t bytes_per_token = 0;      // the plan point's (the analyzer's pass_work)
  int launches_per_token = 0;       // kernels in one step (7 GEMV + 2 attention per layer, + LM head)
  double seconds_median = 0;        // one decode step, median over the repetitions
  double seconds_spread = 0;        // (max - min) / median
  double measured_tokens_per_s = 0; // 1 / seconds_median
  double achieved_bytes_per_s = 0;  // bytes_per_token / seconds_median
  double predicted_tokens_per_s = 0;// the plain law: memory_bandwidth_bytes_per_s / bytes_per_token
  double relative_error = 0;        // (predicted - measured) / measured
};

struct GpuValidation {
  std::string schema = "rooftop-gpu-validation-1";
  std::string date;                 // ISO 8601 UTC
  bool quick = false;
  GpuMachine machine;
  double memory_bandwidth_bytes_per_s = 0;  // read-only kernel (as calibrate), the law's bandwidth
  std::vector<GpuValidationPoint> points;
  double median_abs_relative_error = 0;     // over points
  double max_abs_relative_error = 0;
  std::vector<std::string> notes;           // skipped (model, format) pairs and why; timing method
};

// Fill a point's derived fields (tok/s, achieved bandwidth, prediction, error) from its
// bytes_per_token and seconds_median and the law's bandwidth. Throws InputError unless both are > 0.
void apply_law(GpuValidationPoint& p, double memory_bandwidth_bytes_per_s);
// Median and max of |relative_error| over v.points (0 when there are none).
void summarize(GpuValidation& v);
// The sweep on device `device`: for each plan point whose shape the GEMV kernels support, allocate every
// layer's weights and KV cache (random, distinct buffers), capture one decode step as a CUDA graph,
// time it with events (warm-up, median), check every output was written, and compare with the law.
// Throws InputError("no CUDA device ...") when there is none or `device` is out of range.
GpuValidation validate(int device, bool quick, const std::vector<GpuPlanPoint>& plan);
std::string to_json(const GpuValidation& v);

}  // namespace rooftop::gpu
