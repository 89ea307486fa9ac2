// Sampling: softmax in double over the candidates that survive top-k and top-p, one uniform draw.
#include "engine/sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "base/errors.h"
#include "kernels/cpu/kernels.h"

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
  if (cfg_.temperature == 0.f) return int32_t(kernels::argmax(logits));
  const double inv_t = 1.0 / cfg_.temperature;
  if (cfg_.top_k == 0 && cfg_.top_p >= 1.f) {
    // Every token: one draw against the running sum in id order, no sort (a sort of 262,144 ids took tens of
    // milliseconds per token).
    const double mx = logits[size_t(kernels::argmax(logits))];
    probs_.resize(size_t(n));
    double total = 0;
    for (int32_t i = 0; i < n; ++i) total += probs_[size_t(i)] = std::exp((double(logits[size_t(i)]) - mx) * inv_t);
    double r = std::uniform_real_distribution<double>(0.0, total)(rng_);
    int32_t last = 0;
    for (int32_t i = 0; i < n; ++i) {
      if (probs_[size_t(i)] > 0) last = i;
      r -= probs_[size_t(i)];
      if (r < 0) return i;
    }
    return last;  // rounding left r >= 0: the last token with weight
  }
  auto by_logit = [&](int32_t a, int32_t b) {
    return logits[size_t(a)] != logits[size_t(b)] ? logits[size_t(a)] > logits[size_t(b)] : a < b;
  };
  order_.resize(size_t(n));
  std::iota(order_.begin(), order_.end(), 0);
  // The candidates, likeliest first: top_k of them, else all. Only the likeliest few are sorted: under top_p the
  // sorted prefix grows (64, 512, ...) until its share of the candidates' mass reaches top_p.
  auto select = [&](int32_t m, int32_t end) {  // the m likeliest of order_[0, end), sorted, to the front
    if (m <= 1024) {  // a heap of m
      std::partial_sort(order_.begin(), order_.begin() + m, order_.begin() + end, by_logit);
      return;
    }
    if (m < end) std::nth_element(order_.begin(), order_.begin() + m, order_.begin() + end, by_logit);
    std::sort(order_.begin(), order_.begin() + m, by_logit);
  };
  const int32_t keep = cfg_.top_k > 0 ? int32_t(std::min<int64_t>(cfg_.top_k, n)) : n;
  int32_t sorted = keep < n ? keep : std::min(keep, 64);
  select(sorted, n);
  const double mx = logits[size_t(order_[0])];
  auto weight = [&](int32_t id) { return std::exp((double(logits[size_t(id)]) - mx) * inv_t); };
  double z = 0;
  for (int32_t i = 0; i < keep; ++i) z += weight(order_[size_t(i)]);
  int32_t cut = keep;
  for (;;) {
    double mass = 0;
    int32_t found = -1;
    for (int32_t i = 0; i < sorted && found < 0; ++i) {
      mass += weight(order_[size_t(i)]) / z;
      if (mass >= cfg_.top_p) found = i + 1;  // top-p: the smallest prefix whose probability reaches p
    }
    if (found > 0) {
      cut = found;
      break;
    }
    if (sorted == keep) break;
    sorted = int32_t(std::min<int64_t>(int64_t(sorted) * 8, keep));
    select(sorted, keep);
  }
  probs_.resize(size_t(cut));
  double total = 0;
  for (int32_t i = 0; i < cut; ++i) total += probs_[size_t(i)] = weight(order_[size_t(i)]);
  double r = std::uniform_real_distribution<double>(0.0, total)(rng_);
  for (int32_t i = 0; i < cut; ++i) {
    r -= probs_[size_t(i)];
    if (r < 0) return order_[size_t(i)];
  }
  return order_[size_t(cut - 1)];
}

}  // namespace rooftop::engine
