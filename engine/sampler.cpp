// Sampling: softmax in double over the candidates that survive top-k and top-p, one uniform draw.
#include "engine/sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "base/errors.h"

namespace rooftop::engine {

std::vector<TokenProb> top_tokens(std::span<const float> logits, int64_t n) {
  n = std::min<int64_t>(n, int64_t(logits.size()));
  if (n <= 0) return {};
  float mx = *std::max_element(logits.begin(), logits.end());
  double z = 0;
  for (float l : logits) z += std::exp(double(l) - mx);
  std::vector<int32_t> idx(logits.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::partial_sort(idx.begin(), idx.begin() + n, idx.end(), [&](int32_t a, int32_t b) {
    return logits[size_t(a)] != logits[size_t(b)] ? logits[size_t(a)] > logits[size_t(b)] : a < b;
  });
  std::vector<TokenProb> out;
  for (int64_t i = 0; i < n; ++i) {
    int32_t id = idx[size_t(i)];
    out.push_back({id, float(std::exp(double(logits[size_t(id)]) - mx) / z), logits[size_t(id)]});
  }
  return out;
}

Sampler::Sampler(const SamplerConfig& cfg) : cfg_(cfg), rng_(cfg.seed) {
  if (!(cfg.temperature >= 0) || !std::isfinite(cfg.temperature))
    throw InputError("--temperature " + std::to_string(cfg.temperature) + " is invalid; expected a number >= 0 (0 = greedy)");
  if (cfg.top_k < 0) throw InputError("--top-k " + std::to_string(cfg.top_k) + " is invalid; expected >= 0 (0 = all)");
  if (!(cfg.top_p > 0 && cfg.top_p <= 1))
    throw InputError("--top-p " + std::to_string(cfg.top_p) + " is invalid; expected a number in (0, 1]");
}

int32_t Sampler::sample(std::span<const float> logits) {
  const int32_t n = int32_t(logits.size());
  if (cfg_.temperature == 0.f) {
    int32_t best = 0;
    for (int32_t i = 1; i < n; ++i)
      if (logits[size_t(i)] > logits[size_t(best)]) best = i;
    return best;
  }
  order_.resize(size_t(n));
  std::iota(order_.begin(), order_.end(), 0);
  auto by_logit = [&](int32_t a, int32_t b) {
    return logits[size_t(a)] != logits[size_t(b)] ? logits[size_t(a)] > logits[size_t(b)] : a < b;
  };
  int32_t keep = cfg_.top_k > 0 ? int32_t(std::min<int64_t>(cfg_.top_k, n)) : n;
  std::partial_sort(order_.begin(), order_.begin() + keep, order_.end(), by_logit);
  const double inv_t = 1.0 / cfg_.temperature, mx = logits[size_t(order_[0])];
  probs_.resize(size_t(keep));
  double z = 0;
  for (int32_t i = 0; i < keep; ++i) z += probs_[size_t(i)] = std::exp((logits[size_t(order_[size_t(i)])] - mx) * inv_t);
  // top-p: the smallest prefix (likeliest first) whose probability mass reaches p.
  double mass = 0;
  int32_t cut = keep;
  for (int32_t i = 0; i < keep; ++i) {
    mass += probs_[size_t(i)] / z;
    if (mass >= cfg_.top_p) {
      cut = i + 1;
      break;
    }
  }
  double total = 0;
  for (int32_t i = 0; i < cut; ++i) total += probs_[size_t(i)];
  double r = std::uniform_real_distribution<double>(0.0, total)(rng_);
  for (int32_t i = 0; i < cut; ++i) {
    r -= probs_[size_t(i)];
    if (r < 0) return order_[size_t(i)];
  }
  return order_[size_t(cut - 1)];
}

}  // namespace rooftop::engine
