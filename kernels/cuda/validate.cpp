// The bandwidth-law sweep on a GPU: real model shapes decoded with our own GEMV and attention kernels,
// one decode step captured as a CUDA graph and timed with events, compared with bandwidth / bytes.
#include <chrono>
#include <ctime>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/errors.h"
#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/device_buffer.h"
#include "kernels/cuda/gpu.h"
#include "kernels/cuda/select_device.h"
#include "kernels/cuda/host_formats.h"
#include "kernels/cuda/timing.h"

namespace rooftop::gpu {

namespace {
using namespace rooftop::cuda;


GpuFormat format_of(const std::string& f) {
  if (f == "bf16") return GpuFormat::bf16;
  if (f == "fp8_e4m3") return GpuFormat::fp8_e4m3;
  if (f == "q8_0") return GpuFormat::q8_0;
  return GpuFormat::q4_1;
}

// Read-only sweep over a buffer far beyond L2, as calibrate measures memory_bandwidth_bytes_per_s.
double read_bandwidth(int sms, bool quick, cudaStream_t s) {
  size_t free_b = 0, total_b = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  size_t bytes = quick ? (size_t(1) << 30) : (size_t(4) << 30);
  while (bytes > free_b / 4) bytes /= 2;
  const int grid = 8 * sms;
  DeviceBuffer src(bytes), partial(sizeof(uint32_t) * size_t(grid)), partial2(sizeof(uint32_t) * size_t(4 * sms));
  fill_hash_u32(src.get<uint32_t>(), int64_t(bytes / 4), 11, s);
  partial.poison(s);
  auto read = [&] { read_sum_u32(src.get(), int64_t(bytes), partial.get<uint32_t>(), grid, s); };
  const Timing t = time_launches(read, quick ? 3 : 5, quick ? 9 : 31, quick ? 5 : 10, s);
  read_sum_u32(src.get(), int64_t(bytes), partial2.get<uint32_t>(), 4 * sms, s);
  CUDA_CHECK(cudaStreamSynchronize(s));
  uint32_t s1 = 0, s2 = 0;  // the wrapping word sum does not depend on the grid
  for (uint32_t v : partial.download<uint32_t>(size_t(grid))) s1 += v;
  for (uint32_t v : partial2.download<uint32_t>(size_t(4 * sms))) s2 += v;
  if (s1 != s2) throw std::runtime_error("validate: read kernel check failed (sums differ between grid sizes)");
  return double(bytes) / t.median_s;
}

// One model in one format on the device: every layer's weights, KV cache and outputs in distinct buffers.
class DecodeModel {
 public:
  DecodeModel(const GpuModelShape& m, GpuFormat f, int sms, std::mt19937& rng, cudaStream_t s) : m_(m), f_(f) {
    const int64_t q = m.heads * m.head_dim, kv = m.kv_heads * m.head_dim;
    x_hidden_ = random_floats(m.hidden, rng);
    x_q_ = random_floats(q, rng);
    x_ffn_ = random_floats(m.ffn, rng);
    q_attn_ = random_floats(q, rng);
    splits_ = attention_splits(m.heads, kValidationContext, sms);
    ws_ = DeviceBuffer(size_t(4 * attention_workspace_floats(m.heads, m.head_dim, splits_)));
    for (int64_t l = 0; l < m.layers; ++l) {
      add_gemv(q, m.hidden, x_hidden_, rng);
      add_gemv(kv, m.hidden, x_hidden_, rng);
      add_gemv(kv, m.hidden, x_hidden_, rng);
      add_gemv(m.hidden, q, x_q_, rng);
      add_gemv(m.ffn, m.hidden, x_hidden_, rng);
      add_gemv(m.ffn, m.hidden, x_hidden_, rng);
      add_gemv(m.hidden, m.ffn, x_ffn_, rng);
      Attn a;
      a.k = DeviceBuffer(size_t(2 * kValidationContext * kv));
      a.v = DeviceBuffer(size_t(2 * kValidationContext * kv));
      a.k.upload_tiled(kv_pattern(rng));
      a.v.upload_tiled(kv_pattern(rng));
      a.out = DeviceBuffer(size_t(4 * q));
      attn_.push_back(std::move(a));
    }
    add_gemv(m.vocab, m.hidden, x_hidden_, rng);  // LM head
    CUDA_CHECK(cudaStreamSynchronize(s));
  }

  // One decode step: per layer q/k/v, attention, o, gate/up/down; then the LM head.
  void step(cudaStream_t s) {
    size_t g = 0;
    for (int64_t l = 0; l < m_.layers; ++l) {
      for (int i = 0; i < 3; ++i) run_gemv(gemvs_[g++], s);
      const GpuKv kv{attn_[size_t(l)].k.get(), attn_[size_t(l)].v.get(), true, m_.kv_heads, m_.head_dim};
      attention_decode(q_attn_.get<float>(), m_.heads, kv, kValidationContext, attn_[size_t(l)].out.get<float>(),
                       ws_.get<float>(), splits_, s);
      for (int i = 0; i < 4; ++i) run_gemv(gemvs_[g++], s);
    }
    run_gemv(gemvs_[g++], s);
  }
  int launches() const { return int(gemvs_.size() + 2 * attn_.size()); }
  void poison_outputs(cudaStream_t s) {
    for (auto& g : gemvs_) g.y.poison(s);
    for (auto& a : attn_) a.out.poison(s);
  }
  // Outputs not written (NaN) after a step, summed over every kernel.
  int64_t unwritten(cudaStream_t s) const {
    int64_t n = 0;
    for (const auto& g : gemvs_) n += count_nan(g.y.get<float>(), g.w.m, s);
    for (const auto& a : attn_) n += count_nan(a.out.get<float>(), m_.heads * m_.head_dim, s);
    return n;
  }

 private:
  struct Gemv {
    DeviceBuffer data, y;
    GpuWeights w;
    const float* x = nullptr;
  };
  struct Attn {
    DeviceBuffer k, v, out;
  };

  static DeviceBuffer random_floats(int64_t n, std::mt19937& rng) {
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    std::vector<float> h(static_cast<size_t>(n));
    for (float& v : h) v = u(rng);
    DeviceBuffer b(size_t(4 * n));
    b.upload(h.data(), h.size() * 4);
    return b;
  }
  std::vector<uint8_t> kv_pattern(std::mt19937& rng) { return random_halves(1 << 16, true, rng); }
  void add_gemv(int64_t rows, int64_t k, const DeviceBuffer& x, std::mt19937& rng) {
    Gemv g;
    g.data = DeviceBuffer(size_t(rows * gpu_row_bytes(f_, k)));
    auto& pattern = patterns_[k];  // 64 random rows of this k, tiled: whole rows, so blocks stay aligned
    if (pattern.empty()) pattern = random_rows(f_, 64, k, rng);
    g.data.upload_tiled(pattern);
    g.y = DeviceBuffer(size_t(4 * rows));
    g.w = GpuWeights{f_, g.data.get(), rows, k, 1.0f};
    check_gemv_shape(g.w);
    g.x = x.get<float>();
    gemvs_.push_back(std::move(g));
  }
  static void run_gemv(Gemv& g, cudaStream_t s) { gemv(g.w, g.x, g.y.get<float>(), s); }

  GpuModelShape m_;
  GpuFormat f_;
  int splits_ = 1;
  DeviceBuffer x_hidden_, x_q_, x_ffn_, q_attn_, ws_;
  std::map<int64_t, std::vector<uint8_t>> patterns_;
  std::vector<Gemv> gemvs_;
  std::vector<Attn> attn_;
};

// The step as one CUDA graph (no host launch gaps between the ~300 kernels), timed with events.
Timing time_step_graph(DecodeModel& model, bool quick, cudaStream_t s) {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  try {
    model.step(s);
  } catch (...) {
    cudaStreamEndCapture(s, &graph);
    if (graph) cudaGraphDestroy(graph);
    throw;
  }
  CUDA_CHECK(cudaStreamEndCapture(s, &graph));
  Timing t;
  try {
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    auto launch = [&] { CUDA_CHECK(cudaGraphLaunch(exec, s)); };
    t = time_launches(launch, quick ? 3 : 5, quick ? 9 : 21, quick ? 2 : 4, s);
  } catch (...) {
    if (exec) cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    throw;
  }
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  return t;
}

// Why (model, format) cannot run here, or "" when it can.
std::string unsupported(const GpuModelShape& m, GpuFormat f) {
  const int64_t q = m.heads * m.head_dim;
  for (int64_t k : {m.hidden, q, m.ffn}) {
    try {
      check_gemv_shape(GpuWeights{f, nullptr, 1, k, 1.0f});
    } catch (const InputError& e) {
      return e.what();
    }
  }
  return "";
}
}  // namespace

GpuValidation validate(int device, bool quick, const std::vector<GpuPlanPoint>& plan) {
  GpuValidation v;
  const cudaDeviceProp prop = start_record(v, device, quick);
  v.notes.push_back("one decode step = per layer 7 GEMVs (q, k, v, o, gate, up, down) and one attention over " +
                    std::to_string(kValidationContext) + " bf16 KV positions, then the LM head; captured as one CUDA graph; "
                    "weights, KV and outputs of every layer in distinct buffers; embedding lookup, norms, RoPE "
                    "and activations not run (negligible bytes)");
  std::mt19937 rng(20261129);
  cudaStream_t s = nullptr;
  CUDA_CHECK(cudaStreamCreate(&s));
  try {
    v.memory_bandwidth_bytes_per_s = read_bandwidth(prop.multiProcessorCount, quick, s);
    for (const GpuPlanPoint& point : plan) {
      const GpuModelShape& m = point.model;
      const char* fname = point.format.c_str();
      if (point.context != kValidationContext)
        throw InternalError("validate: plan point at context " + std::to_string(point.context) + "; the decode step reads " +
                            std::to_string(kValidationContext));
      const GpuFormat f = format_of(fname);
      if (std::string why = unsupported(m, f); !why.empty()) {
        v.notes.push_back(m.id + " " + fname + " skipped: " + why);
        continue;
      }
      const int64_t bytes = point.bytes_per_token;
      size_t free_b = 0, total_b = 0;
      CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
      if (double(bytes) > 0.8 * double(free_b)) {
        v.notes.push_back(m.id + " " + fname + " skipped: needs " + std::to_string(bytes) + " bytes, " +
                          std::to_string(free_b) + " free on the device");
        continue;
      }
      DecodeModel model(m, f, prop.multiProcessorCount, rng, s);
      GpuValidationPoint p;
      p.model = m.id;
      p.format = fname;
      p.context = kValidationContext;
      p.bytes_per_token = bytes;
      p.launches_per_token = model.launches();
      const Timing t = time_step_graph(model, quick, s);
      model.poison_outputs(s);  // then one plain step: every output must be written
      model.step(s);
      if (const int64_t bad = model.unwritten(s); bad != 0)
        throw std::runtime_error("validate: " + m.id + " " + fname + ": " + std::to_string(bad) +
                                 " outputs not written (or NaN) after a decode step");
      p.seconds_median = t.median_s;
      p.seconds_spread = t.spread;
      apply_law(p, v.memory_bandwidth_bytes_per_s);
      v.points.push_back(p);
    }
  } catch (...) {
    cudaStreamDestroy(s);
    throw;
  }
  CUDA_CHECK(cudaStreamDestroy(s));
  summarize(v);
  return v;
}

}  // namespace rooftop::gpu
