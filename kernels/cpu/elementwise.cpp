// Row-wise small ops of the forward pass: RMSNorm, RoPE, SwiGLU, GeGLU, softmax.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/attention_tile.h"
#include "kernels/cpu/checks.h"
#include "kernels/cpu/dispatch.h"
#include "kernels/cpu/kernels.h"

namespace rooftop::kernels {

// out = x / sqrt(mean(x^2) + eps) * w
void rmsnorm(std::span<const float> x, std::span<const float> w, float eps, std::span<float> out) {
  check_size("rmsnorm", "w", int64_t(w.size()), int64_t(x.size()));
  check_size("rmsnorm", "out", int64_t(out.size()), int64_t(x.size()));
  if (x.empty()) return;
  // The sum of squares in double, in 8 independent partial sums: one chain of dependent double adds was the
  // whole cost (about 0.4 us per 576-value row, 6-8 ms of a 268-token SmolLM2 prefill).
  constexpr size_t L = 8;
  double part[L] = {};
  size_t i0 = 0;
  for (; i0 + L <= x.size(); i0 += L)
    for (size_t j = 0; j < L; ++j) part[j] += double(x[i0 + j]) * x[i0 + j];
  double ss = 0;
  for (; i0 < x.size(); ++i0) ss += double(x[i0]) * x[i0];
  for (double p : part) ss += p;
  const float inv = float(1.0 / std::sqrt(ss / double(x.size()) + double(eps)));
  for (size_t i = 0; i < x.size(); ++i) out[i] = x[i] * inv * w[i];
}

// RoPE. Each head rotates pairs of its d values by theta_i = pos * freq_scale * base^(-2i/d), i = 0 .. d/2 - 1:
//   a' = a cos(theta_i) - b sin(theta_i),  b' = a sin(theta_i) + b cos(theta_i).
// RopeStyle::adjacent pairs (x[2i], x[2i+1]): llama.cpp's "normal" RoPE (LLAMA_ROPE_TYPE_NORM), used for
// llama-architecture GGUFs, whose Q/K weights the converter permutes to match.
// RopeStyle::halves pairs (x[i], x[i + d/2]): GPT-NeoX's layout (LLAMA_ROPE_TYPE_NEOX), used by Gemma, Qwen2...
// freq_scale < 1 is linear position interpolation (Gemma 3 4B+ global layers: 1/8). freq_factors divide each
// pair's angle (Llama 3.1's long-context scaling: 1 for the fast pairs, up to 32 for the slow ones). Angles are
// computed in double.
void rope(std::span<float> x, int64_t heads, int64_t head_dim, int64_t pos, float theta_base, RopeStyle style,
          float freq_scale, std::span<const float> freq_factors) {
  if (heads < 0 || head_dim <= 0 || head_dim % 2 != 0)
    throw InternalError("rope: head_dim = " + std::to_string(head_dim) + "; expected a positive even number");
  check_size("rope", "x (heads, d)", int64_t(x.size()), heads * head_dim);
  if (!(theta_base > 0) || pos < 0 || !(freq_scale > 0))
    throw InternalError("rope: base = " + std::to_string(theta_base) + ", pos = " + std::to_string(pos) +
                        ", freq_scale = " + std::to_string(freq_scale) + "; expected base > 0, pos >= 0, scale > 0");
  const int64_t half = head_dim / 2;
  if (!freq_factors.empty()) check_size("rope", "freq_factors (d/2)", int64_t(freq_factors.size()), half);
  // The angles of the last call are kept: q and then k of one token share them.
  thread_local std::vector<float> cs, sn;
  thread_local int64_t last_pos = -1, last_dim = 0;
  thread_local float last_base = 0, last_scale = 0;
  thread_local std::vector<float> last_factors;  // by value: a freed model's address may come back with others
  if (pos != last_pos || head_dim != last_dim || theta_base != last_base || freq_scale != last_scale ||
      !std::equal(freq_factors.begin(), freq_factors.end(), last_factors.begin(), last_factors.end())) {
    cs.resize(size_t(half));
    sn.resize(size_t(half));
    for (int64_t i = 0; i < half; ++i) {
      double theta = double(pos) * double(freq_scale) * std::pow(double(theta_base), -2.0 * double(i) / double(head_dim));
      if (!freq_factors.empty()) {
        if (!(freq_factors[size_t(i)] > 0) || !std::isfinite(freq_factors[size_t(i)]))
          throw InternalError("rope: frequency factor " + std::to_string(i) + " is not a positive number");
        theta /= double(freq_factors[size_t(i)]);
      }
      cs[size_t(i)] = float(std::cos(theta));
      sn[size_t(i)] = float(std::sin(theta));
    }
    last_pos = pos, last_dim = head_dim, last_base = theta_base, last_scale = freq_scale;
    last_factors.assign(freq_factors.begin(), freq_factors.end());
  }
  // element indices of pair i: (i * stride_a, i * stride_a + offset_b)
  const int64_t step = style == RopeStyle::adjacent ? 2 : 1, other = style == RopeStyle::adjacent ? 1 : half;
  for (int64_t h = 0; h < heads; ++h) {
    float* v = x.data() + h * head_dim;
    for (int64_t i = 0; i < half; ++i) {
      float& a = v[i * step];
      float& b = v[i * step + other];
      const float a0 = a, b0 = b;
      a = a0 * cs[size_t(i)] - b0 * sn[size_t(i)];
      b = a0 * sn[size_t(i)] + b0 * cs[size_t(i)];
    }
  }
}

// SiLU and GELU (tanh form, Gemma's gelu_pytorch_tanh) with the active ISA's vector exp (attention's kernels).
void swiglu(std::span<const float> gate, std::span<const float> up, std::span<float> out) {
  check_size("swiglu", "up", int64_t(up.size()), int64_t(gate.size()));
  check_size("swiglu", "out", int64_t(out.size()), int64_t(gate.size()));
  attn::attention_kernels(active_isa()).gated(gate.data(), up.data(), out.data(), int64_t(gate.size()), false);
}

void geglu(std::span<const float> gate, std::span<const float> up, std::span<float> out) {
  check_size("geglu", "up", int64_t(up.size()), int64_t(gate.size()));
  check_size("geglu", "out", int64_t(out.size()), int64_t(gate.size()));
  attn::attention_kernels(active_isa()).gated(gate.data(), up.data(), out.data(), int64_t(gate.size()), true);
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
