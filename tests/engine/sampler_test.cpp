// The sampler against independent references: greedy against std::max_element (first index of the largest), and
// the draws' frequencies against the exact top-k / top-p / temperature distribution worked out by a full sort.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "engine/sampler.h"

using namespace rooftop::engine;

namespace {

// The distribution the sampler should draw from, written the plain way: sort every id by logit (lowest id first on
// ties), keep top_k, softmax at the temperature, cut at the smallest prefix whose mass reaches top_p, renormalize.
std::vector<double> reference_probs(const std::vector<float>& logits, const SamplerConfig& c) {
  const size_t n = logits.size();
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return logits[size_t(a)] > logits[size_t(b)]; });
  const size_t keep = c.top_k > 0 ? std::min<size_t>(size_t(c.top_k), n) : n;
  std::vector<double> w(keep);
  double z = 0;
  for (size_t i = 0; i < keep; ++i) z += w[i] = std::exp((double(logits[size_t(order[i])]) - logits[size_t(order[0])]) / c.temperature);
  size_t cut = keep;
  double mass = 0;
  for (size_t i = 0; i < keep; ++i) {
    mass += w[i] / z;
    if (mass >= c.top_p) {
      cut = i + 1;
      break;
    }
  }
  double total = 0;
  for (size_t i = 0; i < cut; ++i) total += w[i];
  std::vector<double> p(n, 0.0);
  for (size_t i = 0; i < cut; ++i) p[size_t(order[i])] = w[i] / total;
  return p;
}

}  // namespace

TEST_CASE("greedy sampling returns the first index of the largest logit", "[sampler]") {
  std::mt19937 gen(7);
  std::normal_distribution<float> nd(0.f, 3.f);
  Sampler greedy(SamplerConfig{});
  for (size_t n : {size_t(1), size_t(15), size_t(17), size_t(49152), size_t(262151)}) {
    std::vector<float> x(n);
    for (auto& v : x) v = nd(gen);
    auto ref = [&] { return int32_t(std::max_element(x.begin(), x.end()) - x.begin()); };
    CHECK(greedy.sample(x) == ref());
    // a tie planted after and before the maximum: the lower id wins
    const size_t m = size_t(ref());
    if (n > 2) {
      x[n - 1] = x[m];
      CHECK(greedy.sample(x) == ref());
      x[0] = x[m];
      CHECK(greedy.sample(x) == 0);
      // the largest in the tail past the last whole block of 16
      x[n - 1] = x[0] + 1.f;
      CHECK(greedy.sample(x) == int32_t(n - 1));
    }
  }
  // NaNs are passed over; no comparable value at all gives 0
  std::vector<float> y = {std::nanf(""), 1.f, 3.f, std::nanf(""), 2.f};
  CHECK(greedy.sample(y) == 2);
  std::vector<float> all_nan(20, std::nanf(""));
  CHECK(greedy.sample(all_nan) == 0);
  std::vector<float> all_inf(40, -std::numeric_limits<float>::infinity());
  CHECK(greedy.sample(all_inf) == 0);
}

TEST_CASE("sampled frequencies follow the top-k, top-p and temperature distribution", "[sampler]") {
  std::mt19937 gen(11);
  std::normal_distribution<float> nd(0.f, 1.5f);
  std::vector<float> logits(12);
  for (auto& v : logits) v = nd(gen);
  logits[5] = logits[2];  // a tie inside the candidates
  const SamplerConfig configs[] = {
      {1.0f, 0, 1.0f, 1},    // every token, no sort
      {0.7f, 3, 1.0f, 2},    // top-k
      {1.3f, 0, 0.8f, 3},    // top-p
      {1.0f, 6, 0.6f, 4},    // both
      {2.0f, 100, 1.0f, 5},  // top_k above the vocabulary
  };
  for (const SamplerConfig& c : configs) {
    const std::vector<double> p = reference_probs(logits, c);
    Sampler s(c);
    constexpr int kDraws = 200000;
    std::vector<int> count(logits.size(), 0);
    for (int i = 0; i < kDraws; ++i) ++count[size_t(s.sample(logits))];
    for (size_t id = 0; id < logits.size(); ++id) {
      INFO("temperature " << c.temperature << " top_k " << c.top_k << " top_p " << c.top_p << " id " << id);
      if (p[id] == 0) {
        CHECK(count[id] == 0);
        continue;
      }
      // within 5 standard deviations of the binomial count
      const double expect = p[id] * kDraws, sd = std::sqrt(kDraws * p[id] * (1 - p[id]));
      CHECK(std::abs(count[id] - expect) <= 5 * sd + 1);
    }
  }
}

TEST_CASE("top-p over a flat vocabulary sorts past its first prefixes and stays inside the nucleus", "[sampler]") {
  // 50,000 nearly equal logits: the nucleus of p = 0.5 holds about 25,000 ids, far past the first sorted prefix of 64.
  std::mt19937 gen(3);
  std::uniform_real_distribution<float> ud(0.f, 0.01f);
  std::vector<float> logits(50000);
  for (auto& v : logits) v = ud(gen);
  const SamplerConfig c{1.0f, 0, 0.5f, 9};
  const std::vector<double> p = reference_probs(logits, c);
  const auto nucleus = std::count_if(p.begin(), p.end(), [](double v) { return v > 0; });
  CHECK(nucleus > 20000);
  CHECK(nucleus < 30000);
  Sampler s(c);
  int outside = 0;
  std::vector<char> seen(logits.size(), 0);
  for (int i = 0; i < 300; ++i) {
    const int32_t t = s.sample(logits);
    outside += p[size_t(t)] == 0 ? 1 : 0;
    seen[size_t(t)] = 1;
  }
  CHECK(outside == 0);
  // 300 draws over ~25,000 near-equal ids: nearly all distinct
  CHECK(std::count(seen.begin(), seen.end(), 1) > 280);
}
