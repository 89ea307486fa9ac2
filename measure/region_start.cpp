// measure_region_start: the DRAM start cost of one GEMV region (see overhead.h).
#include <algorithm>
#include <cmath>
#include <vector>

#include "base/stats.h"
#include "kernels/cpu/kernels.h"
#include "kernels/cpu/thread_pool.h"
#include "measure/kernel_bench.h"
#include "measure/overhead.h"
#include "kernels/cpu/random_weights.h"

namespace rooftop::measure {

RegionStartResult measure_region_start(kernels::ThreadPool& pool, double dram_bytes, bool quick) {
  using F = kernels::WeightFormat;
  struct Spec {
    F format;
    int64_t m, k;
  };
  // SmolLM2-135M's FFN up (q8_0), its attention q (f32), Qwen2.5-0.5B-sized square (q4_1): 0.55-1.3 MB.
  std::vector<Spec> specs = {{F::q8_0, 1536, 576}};
  if (!quick) specs.push_back({F::f32, 576, 576}), specs.push_back({F::q4_1, 960, 960});
  const int rounds = quick ? 7 : 11;
  RegionStartResult out;
  std::vector<double> excesses;
  for (const Spec& s : specs) {
    const double bytes = static_cast<double>(s.m * kernels::row_bytes(s.format, s.k));
    // Consecutive slices of one allocation in huge pages, as a model's matrices lie in the engine's copy of the
    // file (GgufFile::populate). Separate 1 MB allocations in 4 KiB pages, as before stop 43, put each matrix's
    // page walks into the excess: 14 us a region, 2.9 ms of SmolLM2-135M's measured 3.4 ms decode step.
    const int64_t copies = static_cast<int64_t>(std::max(8.0, std::ceil(dram_bytes / bytes)));
    const kernels::RandomWeights all = random_weights(s.format, s.m * copies, s.k, 101);
    std::vector<kernels::WeightView> chain;
    for (int64_t i = 0; i < copies; ++i) {
      kernels::WeightView v = all.view;
      v.data += i * s.m * kernels::row_bytes(s.format, s.k);
      v.m = s.m;
      chain.push_back(v);
    }
    std::vector<float> x(static_cast<size_t>(s.k)), y(static_cast<size_t>(s.m));
    for (size_t i = 0; i < x.size(); ++i) x[i] = 0.25f + 0.5f * static_cast<float>(i % 7) / 7.0f;  // never zero
    GemvStream stream(s.format, (int64_t{32} << 20) / kernels::row_bytes(s.format, s.k), s.k, dram_bytes, 11, 1);
    stream.measure(pool, TimerOptions{1, 1, 20e-3});  // first touch
    size_t next = 0;
    auto one_region = [&] {
      kernels::gemv(chain[next], x, y, pool);
      next = (next + 1) % chain.size();
    };
    for (size_t i = 0; i < chain.size(); ++i) one_region();  // first touch of the chain
    std::vector<double> chain_rates, stream_rates, excess;
    for (int r = 0; r < rounds; ++r) {
      const double rate = stream.measure(pool, TimerOptions{0, 1, 20e-3}).bytes_per_s;
      const double per_region = time_per_call(one_region, TimerOptions{0, 1, 20e-3}).median;
      stream_rates.push_back(rate);
      chain_rates.push_back(bytes / per_region);
      excess.push_back(per_region - bytes / rate);
    }
    RegionStartResult::Shape shape;
    shape.format = kernels::format_name(s.format);
    shape.m = s.m;
    shape.k = s.k;
    shape.chain_bytes_per_s = median(chain_rates);
    shape.stream_bytes_per_s = median(stream_rates);
    shape.excess_s = median(excess);
    out.shapes.push_back(shape);
    excesses.push_back(shape.excess_s);
  }
  out.per_region_s = std::max(0.0, median(excesses));
  return out;
}

}  // namespace rooftop::measure
