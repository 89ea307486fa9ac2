// measure_overhead: the small ops of a layer and of a step, timed as a whole (median of samples).
#include "measure/overhead.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#include "kernels/cpu/kernels.h"
#include "kernels/cpu/thread_pool.h"
#include "base/buffer.h"

namespace rooftop::measure {
namespace {
std::atomic<int64_t> g_overhead_sink{0};
}

OverheadResult measure_overhead(kernels::ThreadPool& pool, const TimerOptions& opt) {
  constexpr int64_t hidden = 4096, ffn = 14336, heads = 32, kv_heads = 8, d = 128, vocab = 128256;
  AlignedFloats x(hidden, 41), w(hidden, 42), nx(hidden, 43), res(hidden, 44);
  AlignedFloats q(heads * d, 45), kk(kv_heads * d, 46), gate(ffn, 47), up(ffn, 48), act(ffn, 49);
  AlignedFloats logits(vocab, 50), embed(hidden, 51);
  std::vector<int64_t> touched(static_cast<size_t>(pool.size()) * 8, 0);
  int64_t pos = 0;
  auto barrier = [&] {
    pool.parallel_for(pool.size(), [&](int64_t b, int64_t e, int worker) {
      touched[static_cast<size_t>(worker) * 8] += e - b;  // negligible work, one cache line per worker
    });
  };
  auto add = [&](AlignedFloats& a, const AlignedFloats& b) {
    for (int64_t i = 0; i < a.size(); ++i) a.data()[i] += b.data()[i] * 1e-3f;
  };
  auto small_ops = [&] {  // the layer below without its barriers
    kernels::rmsnorm(x.span(), w.span(), 1e-5f, nx.span());
    kernels::rope(q.span(), heads, d, pos, 500000.f);
    kernels::rope(kk.span(), kv_heads, d, pos, 500000.f);
    add(res, nx);
    kernels::rmsnorm(res.span(), w.span(), 1e-5f, nx.span());
    kernels::swiglu(gate.span(), up.span(), act.span());
    add(x, res);
    pos = (pos + 1) % 4096;
  };
  auto layer = [&] {
    kernels::rmsnorm(x.span(), w.span(), 1e-5f, nx.span());
    // The project's engine runs a decode layer as 5 parallel regions (engine/forward.cpp): q/k/v fused,
    // attention, o, gate/up/SwiGLU fused, down; the small ops between them run on the calling thread.
    barrier();  // q, k, v projections (one region)
    kernels::rope(q.span(), heads, d, pos, 500000.f);
    kernels::rope(kk.span(), kv_heads, d, pos, 500000.f);
    barrier();  // attention
    barrier();  // o projection
    add(res, nx);
    kernels::rmsnorm(res.span(), w.span(), 1e-5f, nx.span());
    barrier();  // gate, up and SwiGLU (one region)
    kernels::swiglu(gate.span(), up.span(), act.span());
    barrier();  // down
    add(x, res);
    pos = (pos + 1) % 4096;
  };
  auto step = [&] {
    std::memcpy(x.data(), embed.data(), sizeof(float) * hidden);
    kernels::rmsnorm(x.span(), w.span(), 1e-5f, nx.span());
    barrier();
    g_overhead_sink += kernels::argmax(logits.span());
  };
  OverheadResult r;
  r.layer_seconds = time_per_call(layer, opt);
  r.per_layer_s = r.layer_seconds.median;
  r.sync_seconds = time_per_call([&] { for (int i = 0; i < 5; ++i) barrier(); }, opt);
  r.sync_per_layer_s = r.sync_seconds.median;
  r.small_ops_seconds = time_per_call(small_ops, opt);
  r.per_value_s = r.small_ops_seconds.median / static_cast<double>(4 * hidden + (heads + kv_heads) * d + ffn);
  r.step_seconds = time_per_call(step, opt);
  r.per_step_s = r.step_seconds.median;
  g_overhead_sink += touched[0];
  return r;
}

}  // namespace rooftop::measure
