// STREAM and the working-set sweep: the loops of simd_loops.h, one contiguous slice per thread.
#include "measure/bandwidth.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>

#include "kernels/cpu/thread_pool.h"
#include "base/buffer.h"
#include "measure/simd_loops.h"

namespace rooftop::measure {
namespace {
constexpr int64_t kAlignFloats = 128;  // 512 bytes: every slice starts aligned and is a whole loop body
std::atomic<float> g_sink{0};          // keeps read-only sums observable

// [begin, end) of slice `i` of `parts` over n floats, on kAlignFloats boundaries.
std::pair<int64_t, int64_t> slice(int64_t n, int64_t parts, int64_t i) {
  const int64_t units = n / kAlignFloats;
  return {units * i / parts * kAlignFloats, units * (i + 1) / parts * kAlignFloats};
}
}  // namespace

const BandwidthResult& StreamResult::get(const std::string& name) const {
  for (const auto& k : kernels)
    if (k.name == name) return k;
  throw std::out_of_range("no STREAM kernel " + name);
}

StreamResult measure_stream(kernels::ThreadPool& pool, int64_t array_bytes, const TimerOptions& opt, bool read_only) {
  const int64_t n = std::max<int64_t>(array_bytes / 4 / kAlignFloats, 1) * kAlignFloats;
  const int64_t n_other = read_only ? kAlignFloats : n;  // b and c: unused by the read kernel
  AlignedFloats a(n, 1), b(n_other, 2), c(n_other, 3);
  const MemLoops& L = mem_loops();
  const int64_t parts = pool.size();
  const float s = 0.999f;
  auto run = [&](auto&& body) {
    pool.parallel_for(parts, [&](int64_t p0, int64_t p1, int) {
      for (int64_t p = p0; p < p1; ++p) {
        auto [i0, i1] = slice(n, parts, p);
        body(i0, i1 - i0);
      }
    });
  };
  struct Kernel {
    const char* name;
    int arrays;  // arrays touched per element (STREAM counting)
    std::function<void()> fn;
  };
  const double fbytes = static_cast<double>(n) * 4;
  std::vector<Kernel> ks = {
      {"copy", 2, [&] { run([&](int64_t i, int64_t len) { L.copy(a.data() + i, c.data() + i, len); }); }},
      {"scale", 2, [&] { run([&](int64_t i, int64_t len) { L.scale(c.data() + i, b.data() + i, s, len); }); }},
      {"add", 3, [&] { run([&](int64_t i, int64_t len) { L.add(a.data() + i, b.data() + i, c.data() + i, len); }); }},
      {"triad", 3, [&] { run([&](int64_t i, int64_t len) { L.triad(b.data() + i, c.data() + i, a.data() + i, s, len); }); }},
      {"read", 1, [&] {
         run([&](int64_t i, int64_t len) { g_sink.store(L.read(a.data() + i, len), std::memory_order_relaxed); });
       }},
  };
  StreamResult r;
  r.threads = pool.size();
  r.array_bytes = n * 4;
  if (read_only) ks.erase(ks.begin(), ks.end() - 1);  // "read" is the last
  for (auto& k : ks) {
    BandwidthResult br;
    br.name = k.name;
    br.threads = pool.size();
    br.bytes_per_call = k.arrays * fbytes;
    br.seconds = time_per_call(k.fn, opt);
    br.bytes_per_s = br.bytes_per_call / br.seconds.median;
    br.best_bytes_per_s = br.bytes_per_call / br.seconds.min;
    r.kernels.push_back(br);
  }
  return r;
}

std::vector<int64_t> sweep_sizes(int64_t min_bytes, int64_t max_bytes, double step) {
  if (min_bytes <= 0 || max_bytes < min_bytes || step <= 1.0) throw std::invalid_argument("sweep_sizes: bad range");
  std::vector<int64_t> out;
  for (double ws = static_cast<double>(min_bytes); ws <= static_cast<double>(max_bytes) * 1.0001; ws *= step)
    out.push_back(static_cast<int64_t>(std::llround(ws)));
  return out;
}

std::vector<SweepPoint> measure_sweep(kernels::ThreadPool& pool, const std::vector<int64_t>& sizes,
                                      double bytes_per_sample, const TimerOptions& opt) {
  std::vector<SweepPoint> out;
  if (sizes.empty()) return out;
  const int64_t parts = pool.size();
  const int64_t max_ws = *std::max_element(sizes.begin(), sizes.end());
  const int64_t unit = kAlignFloats * parts;  // floats: every thread gets whole loop bodies
  AlignedFloats buf((max_ws / 4 + unit - 1) / unit * unit, 7);
  const MemLoops& L = mem_loops();
  for (int64_t ws : sizes) {
    const int64_t n = std::max<int64_t>((ws / 4 + unit - 1) / unit, 1) * unit;
    const double bytes = static_cast<double>(n) * 4;
    const int64_t passes = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(bytes_per_sample / bytes)));
    // Each thread re-reads its own slice `passes` times: the slice stays in that core's caches.
    auto fn = [&] {
      pool.parallel_for(parts, [&](int64_t p0, int64_t p1, int) {
        for (int64_t p = p0; p < p1; ++p) {
          auto [i0, i1] = slice(n, parts, p);
          float acc = 0;
          for (int64_t r = 0; r < passes; ++r) acc += L.read(buf.data() + i0, i1 - i0);
          g_sink.store(acc, std::memory_order_relaxed);
        }
      });
    };
    TimerOptions o = opt;
    o.min_sample_s = 0;  // one call already reads bytes_per_sample
    SweepPoint pt;
    pt.working_set_bytes = n * 4;
    pt.seconds = time_per_call(fn, o);
    pt.bytes_per_s = bytes * static_cast<double>(passes) / pt.seconds.median;
    out.push_back(pt);
  }
  return out;
}

}  // namespace rooftop::measure
