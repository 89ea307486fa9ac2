// Memory suite: STREAM copy/scale/add/triad/read on 1 and all threads, and the read-only working-set sweep.
#include <algorithm>
#include <string>

#include "hwdb/host_cpu.h"
#include "base/buffer.h"
#include "measure/simd_loops.h"
#include "suite_common.h"

namespace rooftop::bench {
namespace {
using rooftop::AlignedFloats;
using measure::mem_loops;

constexpr int64_t kAlign = 128;  // floats per slice unit (512 bytes)

// Arrays of >= 4 x the last-level cache, at least 128 MiB each.
int64_t stream_floats() {
  const double llc = std::max(hwdb::host_cpu_info().l3_bytes, 8.0 * (1 << 20));
  const int64_t bytes = std::max<int64_t>(static_cast<int64_t>(4 * llc), 128LL << 20);
  return bytes / 4 / kAlign * kAlign;
}

struct StreamArrays {
  AlignedFloats a, b, c;
  static StreamArrays& get() {
    static StreamArrays s{AlignedFloats(stream_floats(), 1), AlignedFloats(stream_floats(), 2), AlignedFloats(stream_floats(), 3)};
    return s;
  }
};

// body(begin, length) over each thread's slice of n floats.
template <class Body>
void split(kernels::ThreadPool& pool, int64_t n, Body&& body) {
  const int64_t parts = pool.size(), units = n / kAlign;
  pool.parallel_for(parts, [&](int64_t p0, int64_t p1, int) {
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t i0 = units * p / parts * kAlign, i1 = units * (p + 1) / parts * kAlign;
      body(i0, i1 - i0);
    }
  });
}

void stream(benchmark::State& state, int kernel, bool all) {
  auto& s = StreamArrays::get();
  auto& pool = all ? all_threads() : one_thread();
  const auto& L = mem_loops();
  const int64_t n = s.a.size();
  const int arrays[] = {2, 2, 3, 3, 1};
  float sink = 0;
  for (auto _ : state) {
    switch (kernel) {
      case 0: split(pool, n, [&](int64_t i, int64_t len) { L.copy(s.a.data() + i, s.c.data() + i, len); }); break;
      case 1: split(pool, n, [&](int64_t i, int64_t len) { L.scale(s.c.data() + i, s.b.data() + i, 0.999f, len); }); break;
      case 2: split(pool, n, [&](int64_t i, int64_t len) { L.add(s.a.data() + i, s.b.data() + i, s.c.data() + i, len); }); break;
      case 3: split(pool, n, [&](int64_t i, int64_t len) { L.triad(s.b.data() + i, s.c.data() + i, s.a.data() + i, 0.999f, len); }); break;
      default: split(pool, n, [&](int64_t i, int64_t len) { sink += L.read(s.a.data() + i, len); }); break;
    }
    benchmark::DoNotOptimize(sink);
  }
  set_counters(state, 4.0 * static_cast<double>(n) * arrays[kernel], 0);
  state.counters["threads"] = pool.size();
}

// Read-only bandwidth at working set ws (bytes, split across all threads), each thread re-reading its slice.
void read_working_set(benchmark::State& state, int64_t ws) {
  auto& pool = all_threads();
  const int64_t unit = kAlign * pool.size();
  const int64_t n = std::max<int64_t>((ws / 4 + unit - 1) / unit, 1) * unit;
  AlignedFloats buf(n, 7);
  const int64_t passes = std::max<int64_t>(1, (16LL << 20) / (n * 4));  // >= 16 MiB per iteration
  const auto& L = mem_loops();
  float sink = 0;
  for (auto _ : state) {
    split(pool, n, [&](int64_t i, int64_t len) {
      float acc = 0;
      for (int64_t r = 0; r < passes; ++r) acc += L.read(buf.data() + i, len);
      sink += acc;
    });
    benchmark::DoNotOptimize(sink);
  }
  set_counters(state, 4.0 * static_cast<double>(n) * static_cast<double>(passes), 0);
}

const bool registered = [] {
  const char* names[] = {"copy", "scale", "add", "triad", "read"};
  for (bool all : {false, true})
    for (int k = 0; k < 5; ++k)
      standard(benchmark::RegisterBenchmark((std::string("stream/") + names[k] + (all ? "/all_threads" : "/1_thread")).c_str(),
                                            [k, all](benchmark::State& s) { stream(s, k, all); }));
  for (int64_t ws = 4096; ws <= (1LL << 30); ws *= 2)
    standard(benchmark::RegisterBenchmark(("sweep/read/" + std::to_string(ws)).c_str(),
                                          [ws](benchmark::State& s) { read_working_set(s, ws); }));
  return true;
}();

}  // namespace
}  // namespace rooftop::bench
