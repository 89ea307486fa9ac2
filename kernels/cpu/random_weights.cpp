// random_weights: quantize a few random rows, then copy them down the matrix.
#include "kernels/cpu/random_weights.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

namespace rooftop::kernels {

RandomWeights random_weights(kernels::WeightFormat format, int64_t m, int64_t k, uint32_t seed) {
  const int64_t rb = kernels::row_bytes(format, k);
  RandomWeights w{AlignedBytes(m * rb), {}};
  w.view = {format, w.storage.data(), m, k};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> mag(0.1f, 1.0f);
  std::bernoulli_distribution neg(0.5);
  const int64_t distinct = std::min<int64_t>(m, 16);
  std::vector<float> row(static_cast<size_t>(k));
  for (int64_t r = 0; r < distinct; ++r) {
    for (auto& v : row) v = neg(rng) ? -mag(rng) : mag(rng);
    kernels::quantize_row(format, row, w.storage.data() + r * rb);
  }
  for (int64_t r = distinct; r < m; ++r)
    std::memcpy(w.storage.data() + r * rb, w.storage.data() + (r % distinct) * rb, static_cast<size_t>(rb));
  return w;
}

}  // namespace rooftop::kernels
