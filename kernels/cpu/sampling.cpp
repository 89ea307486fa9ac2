// Sampling helpers over logits: argmax and the k largest (largest first, ties to the lower index).
#include <algorithm>
#include <queue>
#include <vector>

#include "kernels/cpu/checks.h"
#include "kernels/cpu/kernels.h"

namespace rooftop::kernels {

int64_t argmax(std::span<const float> x) {
  if (x.empty()) throw InternalError("argmax: empty input; expected at least one value");
  int64_t best = 0;
  for (size_t i = 1; i < x.size(); ++i)
    if (x[i] > x[size_t(best)]) best = int64_t(i);
  return best;
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
