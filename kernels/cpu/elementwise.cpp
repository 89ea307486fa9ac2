// Row-wise small ops of the forward pass: RMSNorm, RoPE, SwiGLU, softmax.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/checks.h"
#include "kernels/cpu/kernels.h"

namespace rooftop::kernels {

// out = x / sqrt(mean(x^2) + eps) * w
void rmsnorm(std::span<const float> x, std::span<const float> w, float eps, std::span<float> out) {
  check_size("rmsnorm", "w", int64_t(w.size()), int64_t(x.size()));
  check_size("rmsnorm", "out", int64_t(out.size()), int64_t(x.size()));
  if (x.empty()) return;
  double ss = 0;
  for (float v : x) ss += double(v) * v;
  const float inv = float(1.0 / std::sqrt(ss / double(x.size()) + double(eps)));
  for (size_t i = 0; i < x.size(); ++i) out[i] = x[i] * inv * w[i];
}

// llama.cpp's "normal" RoPE (LLAMA_ROPE_TYPE_NORM, used for llama-architecture GGUFs, whose Q/K weights
// the converter permutes to match): each head rotates adjacent pairs (x[2i], x[2i+1]) by
// theta_i = pos * base^(-2i/d), i = 0 .. d/2 - 1:
//   x'[2i] = x[2i] cos(theta_i) - x[2i+1] sin(theta_i),  x'[2i+1] = x[2i] sin(theta_i) + x[2i+1] cos(theta_i).
// (Not the GPT-NeoX layout, which pairs x[i] with x[i + d/2].) Angles are computed in double.
void rope(std::span<float> x, int64_t heads, int64_t head_dim, int64_t pos, float theta_base) {
  if (heads < 0 || head_dim <= 0 || head_dim % 2 != 0)
    throw InternalError("rope: head_dim = " + std::to_string(head_dim) + "; expected a positive even number");
  check_size("rope", "x (heads, d)", int64_t(x.size()), heads * head_dim);
  if (!(theta_base > 0) || pos < 0)
    throw InternalError("rope: base = " + std::to_string(theta_base) + ", pos = " + std::to_string(pos) +
                     "; expected base > 0 and pos >= 0");
  const int64_t half = head_dim / 2;
  thread_local std::vector<float> cs, sn;
  cs.resize(size_t(half));
  sn.resize(size_t(half));
  for (int64_t i = 0; i < half; ++i) {
    const double theta = double(pos) * std::pow(double(theta_base), -2.0 * double(i) / double(head_dim));
    cs[size_t(i)] = float(std::cos(theta));
    sn[size_t(i)] = float(std::sin(theta));
  }
  for (int64_t h = 0; h < heads; ++h) {
    float* v = x.data() + h * head_dim;
    for (int64_t i = 0; i < half; ++i) {
      const float a = v[2 * i], b = v[2 * i + 1];
      v[2 * i] = a * cs[size_t(i)] - b * sn[size_t(i)];
      v[2 * i + 1] = a * sn[size_t(i)] + b * cs[size_t(i)];
    }
  }
}

// out = silu(gate) * up, silu(g) = g / (1 + exp(-g))
void swiglu(std::span<const float> gate, std::span<const float> up, std::span<float> out) {
  check_size("swiglu", "up", int64_t(up.size()), int64_t(gate.size()));
  check_size("swiglu", "out", int64_t(out.size()), int64_t(gate.size()));
  for (size_t i = 0; i < gate.size(); ++i) out[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

// x = exp(x - max) / sum(exp(x - max))
void softmax(std::span<float> x) {
  if (x.empty()) return;
  const float mx = *std::max_element(x.begin(), x.end());
  if (!std::isfinite(mx)) throw InternalError("softmax: input holds a non-finite maximum; expected finite logits");
  double sum = 0;
  for (float& v : x) sum += (v = std::exp(v - mx));
  const float inv = float(1.0 / sum);
  for (float& v : x) v *= inv;
}

}  // namespace rooftop::kernels
