// Kernel timings: random inputs built and touched once, then time_per_call around the kernel call.
#include "measure/kernel_bench.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "kernels/cpu/fused.h"
#include "kernels/cpu/half.h"
#include "kernels/cpu/thread_pool.h"
#include "base/buffer.h"
#include "kernels/cpu/random_weights.h"

#include "measure/openblas.h"

namespace rooftop::measure {
namespace {
KernelResult finish(KernelResult r, const Stats& s) {
  r.seconds = s;
  if (r.working_set_bytes == 0) r.working_set_bytes = r.bytes_per_call;
  r.bytes_per_s = r.bytes_per_call / s.median;
  r.flops_per_s = r.flops_per_call / s.median;
  return r;
}

// Random values in +-[0.5, 1.5): AlignedFloats gives [0.5, 1.5); flip the sign of every other value.
AlignedFloats signed_random(int64_t n, uint32_t seed) {
  AlignedFloats a(n, seed);
  for (int64_t i = 1; i < n; i += 2) a.data()[i] = -a.data()[i];
  return a;
}
}  // namespace

struct GemvStream::Impl {
  kernels::WeightFormat format;
  int64_t m, k, n;
  std::vector<kernels::RandomWeights> copies;
  AlignedFloats x, y;  // (n, k), (n, m)
  size_t next = 0;
};

GemvStream::GemvStream(kernels::WeightFormat format, int64_t m, int64_t k, double min_working_set_bytes, uint32_t seed,
                       int64_t n)
    : impl_(new Impl{format, m, k, std::max<int64_t>(n, 1), {}, signed_random(std::max<int64_t>(n, 1) * k, seed + 1),
                     AlignedFloats(std::max<int64_t>(n, 1) * m, seed + 2), 0}) {
  impl_->copies.push_back(random_weights(format, m, k, seed));
  const double one = static_cast<double>(impl_->copies[0].view.bytes());
  const int64_t n_copies = min_working_set_bytes > one ? static_cast<int64_t>(std::ceil(min_working_set_bytes / one)) : 1;
  for (int64_t c = 1; c < std::min<int64_t>(n_copies, 64); ++c)
    impl_->copies.push_back(random_weights(format, m, k, seed + static_cast<uint32_t>(c)));
}

GemvStream::~GemvStream() { delete impl_; }

KernelResult GemvStream::measure(kernels::ThreadPool& pool, const TimerOptions& opt) {
  Impl& g = *impl_;
  const double one = static_cast<double>(g.copies[0].view.bytes());
  KernelResult r;
  r.name = (g.n == 1 ? std::string("gemv_") : "gemv_batch" + std::to_string(g.n) + "_") + kernels::format_name(g.format);
  r.op = g.n == 1 ? "gemv" : "gemv_batch";
  r.format = kernels::format_name(g.format);
  r.m = g.m, r.k = g.k, r.n = g.n;
  r.bytes_per_call = one + 4.0 * static_cast<double>(g.n * (g.k + g.m));
  r.flops_per_call = 2.0 * static_cast<double>(g.n) * static_cast<double>(g.m) * static_cast<double>(g.k);
  r.working_set_bytes = one * static_cast<double>(g.copies.size());
  return finish(r, time_per_call([&] {
    if (g.n == 1) kernels::gemv(g.copies[g.next].view, g.x.span(), g.y.span(), pool);
    else kernels::gemv_batch(g.copies[g.next].view, g.x.span(), g.n, g.y.span(), pool);
    g.next = (g.next + 1) % g.copies.size();
  }, opt));
}

KernelResult measure_gemv(kernels::ThreadPool& pool, kernels::WeightFormat format, int64_t m, int64_t k,
                          const TimerOptions& opt, double min_working_set_bytes) {
  GemvStream stream(format, m, k, min_working_set_bytes);
  return stream.measure(pool, opt);
}

KernelResult measure_gemv_batch(kernels::ThreadPool& pool, kernels::WeightFormat format, int64_t m, int64_t k,
                                int64_t n, const TimerOptions& opt, double min_working_set_bytes) {
  GemvStream stream(format, m, k, min_working_set_bytes, 31, n);
  return stream.measure(pool, opt);
}

KernelResult measure_gemm(kernels::ThreadPool& pool, kernels::WeightFormat format, int64_t m, int64_t k,
                          int64_t n, const TimerOptions& opt, double min_working_set_bytes) {
  // One matrix of `copies` x m rows; each call multiplies the next m-row slice, so with a working set past the
  // caches every call reads its weights from DRAM, as a prefill does (each matrix once per pass). Slices of one
  // allocation, not separate copies: a small matrix needs thousands of them to outgrow a large L3.
  const double one = static_cast<double>(m * kernels::row_bytes(format, k));
  const int64_t copies = min_working_set_bytes > one ? static_cast<int64_t>(std::ceil(min_working_set_bytes / one)) : 1;
  const kernels::RandomWeights all = random_weights(format, m * copies, k, 21);
  auto slice = [&](int64_t c) {
    kernels::WeightView v = all.view;
    v.data += c * m * kernels::row_bytes(format, k);
    v.m = m;
    return v;
  };
  int64_t next = 0;
  AlignedFloats X = signed_random(n * k, 22), Y(n * m, 23);
  KernelResult r;
  r.name = std::string("gemm_") + kernels::format_name(format);
  r.op = "gemm";
  r.format = kernels::format_name(format);
  r.m = m, r.k = k, r.n = n;
  r.bytes_per_call = one + 4.0 * static_cast<double>(n * k + n * m);
  r.flops_per_call = 2.0 * static_cast<double>(n) * static_cast<double>(m) * static_cast<double>(k);
  r.working_set_bytes = one * static_cast<double>(copies);
  return finish(r, time_per_call([&] {
    kernels::gemm(slice(next), X.span(), n, Y.span(), pool);
    next = (next + 1) % copies;
  }, opt));
}

KernelResult measure_attention(kernels::ThreadPool& pool, bool f16, int64_t heads, int64_t kv_heads,
                               int64_t head_dim, int64_t t, int64_t layers, const TimerOptions& opt) {
  const int64_t values = t * kv_heads * head_dim;  // per K (and per V) of one layer
  layers = std::max<int64_t>(layers, 1);
  AlignedFloats kf = signed_random(values * layers, 31), vf = signed_random(values * layers, 32);
  std::vector<uint16_t> kh, vh;
  if (f16) {
    kh.resize(static_cast<size_t>(values * layers));
    vh.resize(kh.size());
    std::mt19937 rng(33);
    std::uniform_real_distribution<float> mag(0.1f, 1.0f);  // +-[0.1, 1): never zero
    for (size_t i = 0; i < kh.size(); ++i) {
      const float sign = (i % 2) ? -1.f : 1.f;
      kh[i] = kernels::fp32_to_fp16(sign * mag(rng));
      vh[i] = kernels::fp32_to_fp16(-sign * mag(rng));
    }
    kf = AlignedFloats(), vf = AlignedFloats();  // keep only the fp16 copies
  }
  AlignedFloats q = signed_random(heads * head_dim, 34), out(heads * head_dim, 35);
  const double elt = f16 ? 2 : 4;
  KernelResult r;
  r.name = f16 ? "attention_f16" : "attention_f32";
  r.op = "attention";
  r.format = f16 ? "f16" : "f32";
  r.heads = heads, r.kv_heads = kv_heads, r.head_dim = head_dim, r.t = t;
  r.m = heads, r.k = t;
  r.bytes_per_call = 2.0 * static_cast<double>(values) * elt + 8.0 * static_cast<double>(heads * head_dim);
  r.flops_per_call = 4.0 * static_cast<double>(heads * t * head_dim);  // q.k and p.v: 2 FLOPs each
  r.working_set_bytes = 2.0 * static_cast<double>(values * layers) * elt;
  int64_t layer = 0;
  auto fn = [&] {
    kernels::KvView kv;
    kv.f16 = f16;
    kv.kv_heads = kv_heads;
    kv.head_dim = head_dim;
    if (f16) {
      kv.k = kh.data() + layer * values;
      kv.v = vh.data() + layer * values;
    } else {
      kv.k = kf.data() + layer * values;
      kv.v = vf.data() + layer * values;
    }
    kernels::attention_decode(q.span(), heads, kv, t, out.span(), pool);
    layer = (layer + 1) % layers;
  };
  return finish(r, time_per_call(fn, opt));
}

KernelResult measure_attention_prefill(kernels::ThreadPool& pool, int64_t heads, int64_t kv_heads, int64_t head_dim,
                                       int64_t prompt, const TimerOptions& opt) {
  const int64_t P = std::max<int64_t>(prompt, 1);
  AlignedFloats kf = signed_random(P * kv_heads * head_dim, 41), vf = signed_random(P * kv_heads * head_dim, 42);
  AlignedFloats q = signed_random(P * heads * head_dim, 43), out(P * heads * head_dim, 44);
  KernelResult r;
  r.name = "attention_prefill_f32";
  r.op = "attention_prefill";
  r.format = "f32";
  r.heads = heads, r.kv_heads = kv_heads, r.head_dim = head_dim, r.t = P;
  r.m = heads, r.k = P, r.n = P;
  const double pairs = static_cast<double>(P) * static_cast<double>(P + 1) / 2.0;
  r.bytes_per_call = 8.0 * static_cast<double>(P * kv_heads * head_dim) + 8.0 * static_cast<double>(P * heads * head_dim);
  r.flops_per_call = 4.0 * static_cast<double>(heads * head_dim) * pairs;
  kernels::KvView kv;
  kv.k = kf.data();
  kv.v = vf.data();
  kv.kv_heads = kv_heads;
  kv.head_dim = head_dim;
  return finish(r, time_per_call([&] { kernels::attention_prefill(q.span(), P, heads, kv, 0, out.span(), pool); }, opt));
}

bool have_openblas() { return openblas() != nullptr; }

namespace {
const OpenBlas& require_openblas() {
  if (const OpenBlas* lib = openblas()) return *lib;
  throw std::runtime_error("OpenBLAS is not installed (libopenblas.so.0): the sgemm reference is skipped");
}
}  // namespace

KernelResult measure_sgemm_openblas(int threads, int64_t m, int64_t k, int64_t n, const TimerOptions& opt) {
  const OpenBlas& blas = require_openblas();
  kernels::RandomWeights w = random_weights(kernels::WeightFormat::f32, m, k, 21);
  AlignedFloats X = signed_random(n * k, 22), Y(n * m, 23);
  const float* W = reinterpret_cast<const float*>(w.storage.data());
  KernelResult r;
  r.name = "sgemm_openblas";
  r.op = "gemm";
  r.format = "f32";
  r.m = m, r.k = k, r.n = n;
  r.bytes_per_call = 4.0 * static_cast<double>(m * k + n * k + n * m);
  r.flops_per_call = 2.0 * static_cast<double>(n) * static_cast<double>(m) * static_cast<double>(k);
  // Y (n, m) = X (n, k) . W (m, k)^T
  auto fn = [&] { blas.sgemm_xwt(threads, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), X.data(), W, Y.data()); };
  return finish(r, time_per_call(fn, opt));
}

KernelResult measure_dequant_sgemm_openblas(kernels::ThreadPool& pool, kernels::WeightFormat format, int64_t m,
                                            int64_t k, int64_t n, const TimerOptions& opt) {
  const OpenBlas& blas = require_openblas();
  kernels::RandomWeights w = random_weights(format, m, k, 21);
  AlignedFloats Wf(m * k, 24), X = signed_random(n * k, 22), Y(n * m, 23);
  const int64_t rb = kernels::row_bytes(format, k);
  KernelResult r;
  r.name = std::string("gemm_") + kernels::format_name(format) + "_dequant_sgemm_openblas";
  r.op = "gemm";
  r.format = kernels::format_name(format);
  r.m = m, r.k = k, r.n = n;
  r.bytes_per_call = static_cast<double>(w.view.bytes()) + 4.0 * static_cast<double>(n * k + n * m);
  r.flops_per_call = 2.0 * static_cast<double>(n) * static_cast<double>(m) * static_cast<double>(k);
  auto fn = [&] {
    pool.parallel_for(m, [&](int64_t r0, int64_t r1, int) {
      for (int64_t row = r0; row < r1; ++row)
        kernels::dequantize_row(format, w.storage.data() + row * rb,
                                std::span<float>(Wf.data() + row * k, static_cast<size_t>(k)));
    });
    blas.sgemm_xwt(pool.size(), static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), X.data(), Wf.data(), Y.data());
  };
  return finish(r, time_per_call(fn, opt));
}

}  // namespace rooftop::measure
