// Test helpers for attention: a random KV cache with a poisoned tail, and the error bound vs the double reference.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/cpu/half.h"
#include "kernels/cpu/kernels.h"
#include "tests/kernels/kernel_test_util.h"

namespace rooftop::kernels::test {

// K, V of (cap, hk, d) random non-zero values (K scaled by 2 so the softmax is not flat); positions >= used
// hold 1e30 (fp32) or +inf (fp16): reading one turns the output into inf or NaN.
struct TestKv {
  std::vector<float> kf, vf;
  std::vector<uint16_t> kh, vh;
  KvView view;
  TestKv(std::mt19937& rng, int64_t cap, int64_t used, int64_t hk, int64_t d, bool f16) {
    kf = random_floats(rng, size_t(cap * hk * d), 2.0f);
    vf = random_floats(rng, size_t(cap * hk * d));
    kh.resize(kf.size()), vh.resize(vf.size());
    for (size_t i = 0; i < kf.size(); ++i) kh[i] = fp32_to_fp16(kf[i]), vh[i] = fp32_to_fp16(vf[i]);
    for (int64_t i = used * hk * d; i < cap * hk * d; ++i)
      kf[size_t(i)] = vf[size_t(i)] = 1e30f, kh[size_t(i)] = vh[size_t(i)] = 0x7C00;
    view.k = f16 ? static_cast<const void*>(kh.data()) : kf.data();
    view.v = f16 ? static_cast<const void*>(vh.data()) : vf.data();
    view.f16 = f16;
    view.kv_heads = hk;
    view.head_dim = d;
  }
};

// Bound on |kernel - reference| for one query vector q (h, d) over t positions; the reference is exact up
// to a float rounding of its result. With u = 2^-24 (fp32 unit roundoff):
//  - each score q.k / sqrt(d) is an fp32 sum of d products: error <= (d + 2) u S, S = max over heads and
//    keys of sum_i |q_i k_i| / sqrt(d) (computed from the data; the scale and the summation order add <= 2 u S);
//  - a score error e scales that key's weight by exp(e) ~ 1 + e, the max cancels out, so the output (a
//    convex combination of V rows) moves by <= 2 e max|V|;
//  - the vector exp is within 4 u relative (Cephes polynomial), the weighted sum of t rows and the
//    denominator add <= (t + 4) u max|V| each, the split merge and normalization a few u.
// Total: max|V| * (2 (d + 2) u S + 2 (t + 4) u + 16 u). Worst case, not a typical-error estimate, so it never
// flakes; any indexing, masking or merge bug gives errors of order max|V| = 1, far above it (<= 5e-4 here).
inline float attention_tolerance(const float* q, int64_t heads, const KvView& kv, int64_t t) {
  const int64_t d = kv.head_dim, hk = kv.kv_heads, g = heads / hk;
  double s_max = 0, v_max = 0;
  auto at = [&](const void* p, int64_t i) {
    return kv.f16 ? double(fp16_to_fp32(static_cast<const uint16_t*>(p)[i])) : double(static_cast<const float*>(p)[i]);
  };
  for (int64_t j = 0; j < t; ++j)
    for (int64_t kvh = 0; kvh < hk; ++kvh) {
      for (int64_t i = 0; i < d; ++i) v_max = std::max(v_max, std::fabs(at(kv.v, (j * hk + kvh) * d + i)));
      for (int64_t h = kvh * g; h < (kvh + 1) * g; ++h) {
        double s = 0;
        for (int64_t i = 0; i < d; ++i) s += std::fabs(double(q[h * d + i]) * at(kv.k, (j * hk + kvh) * d + i));
        s_max = std::max(s_max, s / std::sqrt(double(d)));
      }
    }
  const double u = std::ldexp(1.0, -24);
  return float(v_max * (2.0 * double(d + 2) * u * s_max + 2.0 * double(t + 4) * u + 16.0 * u));
}

}  // namespace rooftop::kernels::test
