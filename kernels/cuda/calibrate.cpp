// GPU calibration: copy/read bandwidth, cuBLASLt GEMM peaks, own decode kernels with CUPTI DRAM
// bytes, and NVML energy over a synthetic decode loop. Returns a record; never prints.
#include <chrono>
#include <ctime>
#include <random>
#include <string>

#include "base/errors.h"
#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/cupti_dram.h"
#include "kernels/cuda/device_buffer.h"
#include "kernels/cuda/gemm_cublaslt.h"
#include "kernels/cuda/gpu.h"
#include "kernels/cuda/select_device.h"
#include "kernels/cuda/host_formats.h"
#include "kernels/cuda/nvml_power.h"
#include "kernels/cuda/timing.h"

namespace rooftop::gpu {

namespace {
using namespace rooftop::cuda;

struct Plan {
  int warmup, samples, inner;
};

GpuKernelResult record(std::string name, std::string op, std::string format, const Timing& t,
                       int64_t bytes_counted, double flops, const DramBytes& dram) {
  GpuKernelResult r;
  r.name = std::move(name);
  r.op = std::move(op);
  r.format = std::move(format);
  r.seconds_median = t.median_s;
  r.seconds_spread = t.spread;
  r.dram_bytes_counted = bytes_counted;
  r.bytes_per_s = t.median_s > 0 ? double(bytes_counted) / t.median_s : 0;
  r.flops_per_s = t.median_s > 0 ? flops / t.median_s : 0;
  r.dram_bytes_measured = dram.bytes;
  r.dram_bytes_note = dram.note;
  return r;
}

bool bf16_has_nan(const std::vector<uint16_t>& v) {
  for (uint16_t b : v)
    if ((b & 0x7f80) == 0x7f80 && (b & 0x7f)) return true;
  return false;
}
}  // namespace

GpuCalibration calibrate(int device, bool quick) {

  GpuCalibration c;
  const cudaDeviceProp prop = start_record(c, device, quick);
  const Plan plan = quick ? Plan{3, 9, 5} : Plan{5, 31, 10};
  const int sms = prop.multiProcessorCount;
  cudaStream_t s = nullptr;
  CUDA_CHECK(cudaStreamCreate(&s));
  std::mt19937 rng(20261129);

  try {
    // ---- bandwidth: copy (read + write) and read-only, buffers far beyond L2 ----
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    size_t bw_bytes = quick ? (size_t(1) << 30) : (size_t(4) << 30);
    while (bw_bytes > free_b / 4) bw_bytes /= 2;
    {
      DeviceBuffer src(bw_bytes), dst(bw_bytes), partial(sizeof(uint32_t) * 8 * sms), partial2(sizeof(uint32_t) * 4 * sms);
      fill_hash_u32(src.get<uint32_t>(), int64_t(bw_bytes / 4), 7, s);
      dst.poison(s);
      const int grid = 8 * sms;
      auto copy = [&] { copy_bytes(src.get(), dst.get(), int64_t(bw_bytes), grid, s); };
      const Timing tc = time_launches(copy, plan.warmup, plan.samples, plan.inner, s);
      if (count_mismatched_words(src.get<uint32_t>(), dst.get<uint32_t>(), int64_t(bw_bytes / 4), s) != 0)
        throw std::runtime_error("copy kernel check failed: destination differs from source");
      auto kc = record("copy", "copy", "u8", tc, 2 * int64_t(bw_bytes), 0, measure_dram_bytes(device, copy));
      kc.m = int64_t(bw_bytes);
      c.copy_bytes_per_s = kc.bytes_per_s;

      auto read = [&] { read_sum_u32(src.get(), int64_t(bw_bytes), partial.get<uint32_t>(), grid, s); };
      partial.poison(s);
      const Timing tr = time_launches(read, plan.warmup, plan.samples, plan.inner, s);
      // The wrapping word sum does not depend on the grid: a second grid size must agree.
      read_sum_u32(src.get(), int64_t(bw_bytes), partial2.get<uint32_t>(), 4 * sms, s);
      CUDA_CHECK(cudaStreamSynchronize(s));
      uint32_t s1 = 0, s2 = 0;
      for (uint32_t v : partial.download<uint32_t>(size_t(grid))) s1 += v;
      for (uint32_t v : partial2.download<uint32_t>(size_t(4 * sms))) s2 += v;
      if (s1 != s2) throw std::runtime_error("read kernel check failed: sums differ between grid sizes");
      auto kr = record("read", "read", "u8", tr, int64_t(bw_bytes), 0, measure_dram_bytes(device, read));
      kr.m = int64_t(bw_bytes);
      c.memory_bandwidth_bytes_per_s = kr.bytes_per_s;
      kc.ceiling = kr.ceiling = "memory_bandwidth_bytes_per_s";
      kc.fraction_of_ceiling = kc.bytes_per_s / c.memory_bandwidth_bytes_per_s;
      kr.fraction_of_ceiling = 1.0;
      c.kernels.push_back(kc);
      c.kernels.push_back(kr);
    }
    const double bw = c.memory_bandwidth_bytes_per_s;

    // ---- compute roof: cuBLASLt GEMM, bf16 and (sm_89+) fp8 ----
    {
      const int64_t g = quick ? 4096 : 8192;
      LtGemm lt;
      for (GemmFormat f : {GemmFormat::bf16, GemmFormat::fp8_e4m3}) {
        const bool fp8 = f == GemmFormat::fp8_e4m3;
        if (fp8 && prop.major * 10 + prop.minor < 89) {
          c.notes.push_back("fp8 GEMM skipped: cuBLASLt fp8 needs compute capability >= 8.9, this GPU is " + c.machine.cc);
          continue;
        }
        const int64_t elem = fp8 ? 1 : 2;
        DeviceBuffer A(size_t(g * g * elem)), B(size_t(g * g * elem)), D(size_t(g * g * 2));
        const GpuFormat pf = fp8 ? GpuFormat::fp8_e4m3 : GpuFormat::bf16;
        A.upload_tiled(random_rows(pf, 64, g, rng));
        B.upload_tiled(random_rows(pf, 64, g, rng));
        D.poison(s);
        auto run = [&] { lt.run(f, g, g, g, A.get(), B.get(), D.get(), s); };
        const Timing t = time_launches(run, plan.warmup, quick ? 5 : 11, 3, s);
        if (bf16_has_nan(D.download<uint16_t>(size_t(g * g))))
          throw std::runtime_error("GEMM check failed: output has NaN (not fully written)");
        const double flops = 2.0 * double(g) * double(g) * double(g);
        auto k = record(fp8 ? "gemm_fp8_cublaslt" : "gemm_bf16_cublaslt", "gemm", fp8 ? "fp8_e4m3" : "bf16", t,
                        3 * g * g * elem, flops, DramBytes{std::nullopt, "not profiled (compute-bound)"});
        k.m = k.n = k.k = g;
        k.ceiling = std::string("peak_flops.") + (fp8 ? "fp8" : "bf16");
        k.fraction_of_ceiling = 1.0;
        c.peak_flops.emplace_back(fp8 ? "fp8" : "bf16", k.flops_per_s);
        c.kernels.push_back(k);
      }
    }

    // ---- decode kernels: GEMV per format, attention over fp16 / bf16 KV ----
    const int64_t gm = quick ? 14336 : 28672, gk = quick ? 4096 : 8192;  // Llama-3 8B / 70B FFN shapes
    std::vector<DeviceBuffer> weights;
    std::vector<GpuWeights> views;
    DeviceBuffer x(size_t(4 * gk)), y(size_t(4 * gm));
    {
      std::uniform_real_distribution<float> u(-1.f, 1.f);
      std::vector<float> hx(static_cast<size_t>(gk));
      for (float& v : hx) v = u(rng);
      x.upload(hx.data(), hx.size() * 4);
    }
    for (GpuFormat f : {GpuFormat::bf16, GpuFormat::fp8_e4m3, GpuFormat::q8_0, GpuFormat::q4_1}) {
      GpuWeights W{f, nullptr, gm, gk, 1.0f};
      weights.emplace_back(size_t(gm * gpu_row_bytes(f, gk)));
      weights.back().upload_tiled(random_rows(f, 64, gk, rng));
      W.data = weights.back().get();
      views.push_back(W);
      y.poison(s);
      auto run = [&, W] { gemv(W, x.get<float>(), y.get<float>(), s); };
      const Timing t = time_launches(run, plan.warmup, plan.samples, plan.inner * 4, s);
      if (count_nan(y.get<float>(), gm, s) != 0) throw std::runtime_error("GEMV check failed: output not fully written");
      const int64_t bytes = W.m * gpu_row_bytes(f, gk) + 4 * gk + 4 * gm;
      auto k = record(std::string("gemv_") + gpu_format_name(f), "gemv", gpu_format_name(f), t, bytes,
                      2.0 * double(gm) * double(gk), measure_dram_bytes(device, run));
      k.m = gm;
      k.k = gk;
      k.ceiling = "memory_bandwidth_bytes_per_s";
      k.fraction_of_ceiling = k.bytes_per_s / bw;
      c.kernels.push_back(k);
    }
    const int64_t heads = 32, kv_heads = 8, head_dim = 128, t_pos = quick ? 8192 : 32768;
    const int splits = attention_splits(heads, t_pos, sms);
    DeviceBuffer q(size_t(4 * heads * head_dim)), out(size_t(4 * heads * head_dim)),
        ws(size_t(4 * attention_workspace_floats(heads, head_dim, splits)));
    {
      std::uniform_real_distribution<float> u(-1.f, 1.f);
      std::vector<float> hq(size_t(heads * head_dim));
      for (float& v : hq) v = u(rng);
      q.upload(hq.data(), hq.size() * 4);
    }
    std::vector<DeviceBuffer> kv_bufs;
    GpuKv kv_last{};
    for (bool bf16 : {false, true}) {
      const int64_t elems = t_pos * kv_heads * head_dim;
      kv_bufs.emplace_back(size_t(2 * elems));
      kv_bufs.back().upload_tiled(random_halves(1 << 20, bf16, rng));
      kv_bufs.emplace_back(size_t(2 * elems));
      kv_bufs.back().upload_tiled(random_halves(1 << 20, bf16, rng));
      GpuKv kv{kv_bufs[kv_bufs.size() - 2].get(), kv_bufs.back().get(), bf16, kv_heads, head_dim};
      kv_last = kv;
      out.poison(s);
      auto run = [&, kv] { attention_decode(q.get<float>(), heads, kv, t_pos, out.get<float>(), ws.get<float>(), splits, s); };
      const Timing t = time_launches(run, plan.warmup, plan.samples, plan.inner * 4, s);
      if (count_nan(out.get<float>(), heads * head_dim, s) != 0)
        throw std::runtime_error("attention check failed: output not fully written");
      const int64_t bytes = 2 * elems * 2 + 2 * 4 * heads * head_dim;
      auto k = record(bf16 ? "attention_bf16" : "attention_f16", "attention", bf16 ? "bf16" : "f16", t, bytes,
                      4.0 * double(heads) * double(t_pos) * double(head_dim), measure_dram_bytes(device, run));
      k.m = heads;
      k.k = t_pos;
      k.ceiling = "memory_bandwidth_bytes_per_s";
      k.fraction_of_ceiling = k.bytes_per_s / bw;
      c.kernels.push_back(k);
    }

    // ---- power: NVML energy over a synthetic decode loop (one step = every kernel above once) ----
    char pci[32] = {0};
    CUDA_CHECK(cudaDeviceGetPCIBusId(pci, sizeof pci, device));
    NvmlEnergy nvml(pci);
    if (!nvml.ok()) {
      c.power_note = nvml.reason();
    } else {
      auto step = [&] {
        for (const GpuWeights& W : views) gemv(W, x.get<float>(), y.get<float>(), s);
        attention_decode(q.get<float>(), heads, kv_last, t_pos, out.get<float>(), ws.get<float>(), splits, s);
      };
      for (int i = 0; i < 20; ++i) step();
      CUDA_CHECK(cudaStreamSynchronize(s));
      const auto e0 = nvml.energy_j();
      const auto t0 = std::chrono::steady_clock::now();
      const double target_s = quick ? 1.5 : 5.0;
      int64_t steps = 0;
      double elapsed = 0;
      while (elapsed < target_s) {
        for (int i = 0; i < 50; ++i) step();
        steps += 50;
        CUDA_CHECK(cudaStreamSynchronize(s));
        elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      }
      const auto e1 = nvml.energy_j();
      if (e0 && e1 && *e1 > *e0) {
        c.power_watts_during_decode = (*e1 - *e0) / elapsed;
        c.joules_per_token = (*e1 - *e0) / double(steps);
        c.notes.push_back("joules_per_token: one synthetic decode step = the four GEMVs and one attention above (" +
                          std::to_string(steps) + " steps)");
      } else {
        c.power_note = e0 && e1 ? "NVML energy counter did not advance" : nvml.reason();
      }
    }
  } catch (...) {
    cudaStreamDestroy(s);
    throw;
  }
  CUDA_CHECK(cudaStreamDestroy(s));
  return c;
}

}  // namespace rooftop::gpu
