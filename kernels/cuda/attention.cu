// Decode attention on the GPU over a contiguous fp16/bf16 KV cache, split over positions
// (flash-decoding): pass 1 gives each (head, split) a running max, sum and weighted V; pass 2 merges.
// Napkin math: bytes = 2 (K and V) * t * hk * d * 2 bytes; blocks of adjacent query heads of one KV
// head run together, so grouped-query re-reads come from L2.
#include <cuda_fp16.h>

#include <cmath>
#include <string>

#include "base/errors.h"
#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/cuda_kernels.h"

namespace rooftop::cuda {

namespace {
constexpr int kThreads = 128;

template <bool kBf16>
__device__ void load8(const uint4* p, float* out) {
  const uint4 w = __ldcs(p);  // KV rows are streamed once per head group
  const uint32_t u[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    if constexpr (kBf16) {
      out[2 * i] = __uint_as_float(u[i] << 16);
      out[2 * i + 1] = __uint_as_float(u[i] & 0xffff0000u);
    } else {
      const float2 f = __half22float2(*reinterpret_cast<const __half2*>(&u[i]));
      out[2 * i] = f.x;
      out[2 * i + 1] = f.y;
    }
  }
}

// grid (h, splits). A group of d/8 lanes owns one position at a time; lane `sub` owns dims 8*sub..+7.
// q is (h, d); K, V are (t_capacity, hk, d); ws is (h, splits, d + 2): [max, sum, acc (d)].
template <bool kBf16>
__global__ void attention_split_kernel(const float* __restrict__ q, const uint16_t* __restrict__ K,
                                       const uint16_t* __restrict__ V, int64_t heads, int64_t kv_heads,
                                       int d, int64_t t, float scale, float* __restrict__ ws) {
  __shared__ float s_acc[kThreads * 8];  // groups * d = 128 * 8 floats whatever d is
  __shared__ float s_m[kThreads], s_l[kThreads];
  const int lanes_per_row = d / 8;
  const int groups = kThreads / lanes_per_row;
  const int group = threadIdx.x / lanes_per_row;
  const int sub = threadIdx.x % lanes_per_row;
  const int64_t head = blockIdx.x;
  const int64_t kvh = head / (heads / kv_heads);
  const int splits = gridDim.y;
  const int64_t chunk = (t + splits - 1) / splits;
  const int64_t p0 = blockIdx.y * chunk;
  const int64_t p1 = p0 + chunk < t ? p0 + chunk : t;

  float qv[8], acc[8], kv[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    qv[i] = q[head * d + sub * 8 + i] * scale;
    acc[i] = 0.f;
  }
  float m = -INFINITY, l = 0.f;
  // Every lane runs the same number of iterations (the shuffles need the whole warp); lanes whose
  // position is past the split's end contribute nothing.
  for (int64_t base = p0; base < p1; base += groups) {
    const int64_t p = base + group;
    const bool valid = p < p1;
    const int64_t off = (p * kv_heads + kvh) * d + sub * 8;  // in elements
    float s = 0.f;
    if (valid) {
      load8<kBf16>(reinterpret_cast<const uint4*>(K + off), kv);
#pragma unroll
      for (int i = 0; i < 8; ++i) s += qv[i] * kv[i];
    }
    for (int o = lanes_per_row / 2; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (!valid) continue;
    load8<kBf16>(reinterpret_cast<const uint4*>(V + off), kv);
    const float m_new = fmaxf(m, s);
    const float c = __expf(m - m_new);  // 0 on the first position (m = -inf)
    const float e = __expf(s - m_new);
    l = l * c + e;
#pragma unroll
    for (int i = 0; i < 8; ++i) acc[i] = acc[i] * c + e * kv[i];
    m = m_new;
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) s_acc[group * d + sub * 8 + i] = acc[i];
  if (sub == 0) {
    s_m[group] = m;
    s_l[group] = l;
  }
  __syncthreads();
  float M = -INFINITY;
  for (int g = 0; g < groups; ++g) M = fmaxf(M, s_m[g]);
  float* out = ws + (head * splits + blockIdx.y) * int64_t(d + 2);
  for (int j = threadIdx.x; j < d; j += kThreads) {
    float a = 0.f;
    if (M != -INFINITY)
      for (int g = 0; g < groups; ++g)
        if (s_m[g] != -INFINITY) a += s_acc[g * d + j] * __expf(s_m[g] - M);
    out[2 + j] = a;
  }
  if (threadIdx.x == 0) {
    float L = 0.f;
    if (M != -INFINITY)
      for (int g = 0; g < groups; ++g)
        if (s_m[g] != -INFINITY) L += s_l[g] * __expf(s_m[g] - M);
    out[0] = M;
    out[1] = L;
  }
}

// grid (h), block kThreads: out (h, d) = sum_s acc_s e^(m_s - M) / sum_s l_s e^(m_s - M).
__global__ void attention_merge_kernel(const float* __restrict__ ws, int splits, int d, float* __restrict__ out) {
  const int64_t head = blockIdx.x;
  const float* w = ws + head * splits * int64_t(d + 2);
  float M = -INFINITY;
  for (int s = 0; s < splits; ++s) M = fmaxf(M, w[s * (d + 2)]);
  float L = 0.f;
  for (int s = 0; s < splits; ++s)
    if (w[s * (d + 2)] != -INFINITY) L += w[s * (d + 2) + 1] * __expf(w[s * (d + 2)] - M);
  for (int j = threadIdx.x; j < d; j += blockDim.x) {
    float a = 0.f;
    for (int s = 0; s < splits; ++s)
      if (w[s * (d + 2)] != -INFINITY) a += w[s * (d + 2) + 2 + j] * __expf(w[s * (d + 2)] - M);
    out[head * d + j] = a / L;
  }
}
}  // namespace

int attention_splits(int64_t heads, int64_t t, int sm_count) {
  int64_t splits = (2 * int64_t(sm_count) + heads - 1) / (heads > 0 ? heads : 1);
  const int64_t max_by_t = (t + 63) / 64;  // at least ~64 positions per split
  if (splits > max_by_t) splits = max_by_t;
  if (splits > 1024) splits = 1024;
  return int(splits < 1 ? 1 : splits);
}

int64_t attention_workspace_floats(int64_t heads, int64_t head_dim, int splits) {
  return heads * splits * (head_dim + 2);
}

void attention_decode(const float* q, int64_t heads, const GpuKv& kv, int64_t t, float* out,
                      float* workspace, int splits, cudaStream_t s) {
  const int64_t d = kv.head_dim;
  if (!(d == 16 || d == 32 || d == 64 || d == 128 || d == 256))
    throw InputError("GPU attention: head_dim " + std::to_string(d) + " unsupported; expected 16, 32, 64, 128 or 256");
  if (heads <= 0 || kv.kv_heads <= 0 || heads % kv.kv_heads != 0)
    throw InputError("GPU attention: heads " + std::to_string(heads) + " and kv_heads " +
                     std::to_string(kv.kv_heads) + " invalid; expected heads a positive multiple of kv_heads");
  if (t <= 0 || splits <= 0 || heads > 65535 * 1024 || splits > 65535)
    throw InputError("GPU attention: t = " + std::to_string(t) + ", splits = " + std::to_string(splits) +
                     "; expected both >= 1 (splits <= 65535)");
  const dim3 grid{unsigned(heads), unsigned(splits), 1u};
  const float scale = 1.0f / std::sqrt(float(d));
  const auto* K = static_cast<const uint16_t*>(kv.k);
  const auto* V = static_cast<const uint16_t*>(kv.v);
  if (kv.bf16)
    attention_split_kernel<true><<<grid, kThreads, 0, s>>>(q, K, V, heads, kv.kv_heads, int(d), t, scale, workspace);
  else
    attention_split_kernel<false><<<grid, kThreads, 0, s>>>(q, K, V, heads, kv.kv_heads, int(d), t, scale, workspace);
  CUDA_CHECK_LAUNCH();
  attention_merge_kernel<<<unsigned(heads), kThreads, 0, s>>>(workspace, splits, int(d), out);
  CUDA_CHECK_LAUNCH();
}

}  // namespace rooftop::cuda
