// The GPU backend's public interface: device discovery and calibration; compiles with or without CUDA.
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
// JSON text of a calibration (keys as in microbench/calibration_schema.md; absent values are null
// with a "<key>_note" reason).
std::string to_json(const GpuCalibration& c);

}  // namespace rooftop::gpu
