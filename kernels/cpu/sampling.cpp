// Sampling helpers over logits: argmax and the k largest (largest first, ties to the lower index).
#include <algorithm>
#include <limits>
#include <queue>
#include <vector>

#include "kernels/cpu/checks.h"
#include "kernels/cpu/kernels.h"

namespace rooftop::kernels {

// The first index of the largest value (NaNs passed over; 0 when nothing compares). Sixteen independent running
// maxima, which the compiler turns into vector max instructions, then a scan for the first index holding the
// maximum: one dependent compare per value took a third of a millisecond over a 262,144-entry vocabulary, and
// bench-serve's steps spent 9% of their time there (docs/serving.md, stop 37).
int64_t argmax(std::span<const float> x) {
  if (x.empty()) throw InternalError("argmax: empty input; expected at least one value");
  constexpr size_t L = 16;
  float lane[L];
  std::fill(lane, lane + L, -std::numeric_limits<float>::infinity());
  size_t i = 0;
  for (; i + L <= x.size(); i += L)
    for (size_t j = 0; j < L; ++j) lane[j] = x[i + j] > lane[j] ? x[i + j] : lane[j];
  float mx = -std::numeric_limits<float>::infinity();
  for (; i < x.size(); ++i) mx = x[i] > mx ? x[i] : mx;
  for (float v : lane) mx = v > mx ? v : mx;
  for (size_t k = 0; k < x.size(); ++k)
    if (x[k] == mx) return int64_t(k);
  return 0;
}

// A bounded min-heap of (value, index): O(n log k).
void top_k(std::span<const float> x, std::span<int64_t> out) {
  const size_t k = out.size();
  if (k > x.size())
    throw InternalError("top_k: k = " + std::to_string(k) + " exceeds the " + std::to_string(x.size()) +
                     " values; expected k <= n");
  if (k == 0) return;
  // "better" = larger value, then lower index; the heap's top is the worst kept element.
  auto better = [&](int64_t a, int64_t b) {
    return x[size_t(a)] > x[size_t(b)] || (x[size_t(a)] == x[size_t(b)] && a < b);
  };
  std::priority_queue<int64_t, std::vector<int64_t>, decltype(better)> heap(better);
  for (size_t i = 0; i < x.size(); ++i) {
    if (heap.size() < k) heap.push(int64_t(i));
    else if (better(int64_t(i), heap.top())) {
      heap.pop();
      heap.push(int64_t(i));
    }
  }
  for (size_t i = k; i-- > 0;) {
    out[i] = heap.top();
    heap.pop();
  }
}

}  // namespace rooftop::kernels
