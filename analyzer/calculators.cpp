// Seed 002's small calculators, each a formula with its worked example in the tests.
#include "analyzer/calculators.h"

#include <algorithm>
#include <queue>

#include "base/suggest.h"

namespace rooftop {

double gemm_flops(int64_t m, int64_t n, int64_t k) {
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}

double gemm_tile_intensity(int64_t tile, double bytes_per_value) {
  if (tile <= 0 || bytes_per_value <= 0) throw InputError("tile and bytes per value must be > 0");
  return static_cast<double>(tile) / bytes_per_value;
}

AttentionTraffic attention_traffic(int64_t n, int64_t d, double b) {
  if (n <= 0 || d <= 0 || b <= 0) throw InputError("attention traffic needs n, d and bytes > 0");
  AttentionTraffic t;
  const double nn = static_cast<double>(n), dd = static_cast<double>(d);
  t.scores = nn * nn;
  t.fused_bytes = 4.0 * nn * dd * b;
  t.naive_bytes = t.fused_bytes + 2.0 * nn * nn * b;  // the score matrix written once, read back once
  return t;
}

PagedKv paged_kv(const std::vector<int64_t>& lens, int64_t block, int64_t reserved) {
  if (block <= 0) throw InputError("block size must be > 0");
  PagedKv p;
  for (auto l : lens) {
    if (l < 0) throw InputError("sequence lengths must be >= 0");
    const int64_t pages = (l + block - 1) / block;
    p.blocks_needed += pages;
    p.slots_wasted_in_pages += pages * block - l;
  }
  p.reserved_blocks = reserved;
  p.unused_blocks = std::max<int64_t>(0, reserved - p.blocks_needed);
  return p;
}

BatchingUtilization batching_utilization(const std::vector<int64_t>& lengths, int64_t slots) {
  if (slots <= 0) throw InputError("slots must be > 0");
  BatchingUtilization u;
  for (auto l : lengths) {
    if (l <= 0) throw InputError("sequence lengths must be > 0");
    u.work += l;
  }
  // Static: consecutive groups of `slots`, each lasting as long as its longest member.
  for (size_t i = 0; i < lengths.size(); i += static_cast<size_t>(slots)) {
    int64_t longest = 0;
    for (size_t j = i; j < std::min(lengths.size(), i + static_cast<size_t>(slots)); ++j) longest = std::max(longest, lengths[j]);
    u.static_steps += longest * slots;
  }
  // Continuous: a freed slot takes the next waiting sequence at once; the run lasts until the last ends.
  std::priority_queue<int64_t, std::vector<int64_t>, std::greater<>> free_at;
  for (int64_t s = 0; s < slots; ++s) free_at.push(0);
  int64_t end = 0;
  for (auto l : lengths) {
    const int64_t start = free_at.top();
    free_at.pop();
    free_at.push(start + l);
    end = std::max(end, start + l);
  }
  u.continuous_steps = end * slots;
  u.static_utilization = static_cast<double>(u.work) / static_cast<double>(u.static_steps);
  u.continuous_utilization = static_cast<double>(u.work) / static_cast<double>(u.continuous_steps);
  return u;
}

}  // namespace rooftop
