// Picking the next token from logits: greedy, temperature, top-k, top-p, seeded; and the top-N view.
#pragma once
#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace rooftop::engine {

struct SamplerConfig {
  float temperature = 0.f;  // 0 = greedy (argmax)
  int64_t top_k = 0;        // 0 = no limit
  float top_p = 1.f;        // 1 = no limit
  uint64_t seed = 0;
};

struct TokenProb {
  int32_t id = 0;
  float prob = 0;   // softmax of the raw logits (temperature 1)
  float logit = 0;
};

// The n likeliest tokens, likeliest first, with their probabilities under softmax(logits).
std::vector<TokenProb> top_tokens(std::span<const float> logits, int64_t n);

class Sampler {
 public:
  // InputError for temperature < 0, top_k < 0 or top_p outside (0, 1].
  explicit Sampler(const SamplerConfig& cfg);
  // Greedy: argmax (lowest id on ties). Otherwise: divide by temperature, keep the top_k likeliest,
  // then the smallest prefix whose probabilities reach top_p, renormalize and draw.
  int32_t sample(std::span<const float> logits);

 private:
  SamplerConfig cfg_;
  std::mt19937_64 rng_;
  std::vector<int32_t> order_;
  std::vector<double> probs_;
};

}  // namespace rooftop::engine
