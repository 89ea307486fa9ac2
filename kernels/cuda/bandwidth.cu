// Bandwidth kernels: device-to-device copy and read-only sweep (16-byte loads, grid-stride, 4 in
// flight per thread), plus the fill and check helpers the measurements use.
// Napkin math: copy moves 2 * bytes (read + write); read moves bytes. On an H200 (4.8 TB/s
// datasheet) a 1 GiB read should take ~0.25 ms.
#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/cuda_kernels.h"

namespace rooftop::cuda {

namespace {
constexpr int kThreads = 256;
constexpr int kUnroll = 4;  // independent 16-byte loads in flight per thread

__global__ void copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, int64_t n16) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (kUnroll - 1) * stride < n16; i += kUnroll * stride) {
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = __ldcs(src + i + u * stride);  // streaming: no reuse
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) __stcs(dst + i + u * stride, v[u]);
  }
  for (; i < n16; i += stride) dst[i] = src[i];
}

__global__ void read_kernel(const uint4* __restrict__ src, int64_t n16, uint32_t* __restrict__ partial) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  uint32_t acc = 0;
  for (; i + (kUnroll - 1) * stride < n16; i += kUnroll * stride) {
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = __ldcs(src + i + u * stride);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) acc += v[u].x + v[u].y + v[u].z + v[u].w;
  }
  for (; i < n16; i += stride) {
    const uint4 v = src[i];
    acc += v.x + v.y + v.z + v.w;
  }
  // Block sum (wrapping): warp shuffles, then one word per warp in shared memory.
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  __shared__ uint32_t warp_sums[kThreads / 32];
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t s = 0;
    for (int w = 0; w < int(blockDim.x >> 5); ++w) s += warp_sums[w];
    partial[blockIdx.x] = s;
  }
}

__device__ uint32_t hash_u32(uint64_t x) {  // splitmix64 finalizer, high half
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return uint32_t((x ^ (x >> 31)) >> 32);
}

__global__ void fill_hash_kernel(uint32_t* dst, int64_t n, uint32_t seed) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    dst[i] = hash_u32((uint64_t(seed) << 40) ^ uint64_t(i));
}

__global__ void mismatch_kernel(const uint32_t* a, const uint32_t* b, int64_t n,
                                unsigned long long* count) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  unsigned long long c = 0;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) c += a[i] != b[i];
  if (c) atomicAdd(count, c);
}

__global__ void nan_kernel(const float* y, int64_t n, unsigned long long* count) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  unsigned long long c = 0;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) c += isnan(y[i]);
  if (c) atomicAdd(count, c);
}

int grid_for(int64_t n) { return int(n / kThreads + 1 < 65536 ? n / kThreads + 1 : 65536); }

int64_t run_counter(void (*launch)(unsigned long long*, cudaStream_t, const void*, const void*, int64_t),
                    const void* a, const void* b, int64_t n, cudaStream_t s) {
  unsigned long long* d_count = nullptr;
  CUDA_CHECK(cudaMalloc(&d_count, sizeof(unsigned long long)));
  unsigned long long h_count = 0;
  try {
    CUDA_CHECK(cudaMemsetAsync(d_count, 0, sizeof(unsigned long long), s));
    launch(d_count, s, a, b, n);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpyAsync(&h_count, d_count, sizeof(h_count), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
  } catch (...) {
    cudaFree(d_count);
    throw;
  }
  CUDA_CHECK(cudaFree(d_count));
  return int64_t(h_count);
}
}  // namespace

void copy_bytes(const void* src, void* dst, int64_t bytes, int grid, cudaStream_t s) {
  copy_kernel<<<grid, kThreads, 0, s>>>(static_cast<const uint4*>(src), static_cast<uint4*>(dst), bytes / 16);
  CUDA_CHECK_LAUNCH();
}

void read_sum_u32(const void* src, int64_t bytes, uint32_t* partial, int grid, cudaStream_t s) {
  read_kernel<<<grid, kThreads, 0, s>>>(static_cast<const uint4*>(src), bytes / 16, partial);
  CUDA_CHECK_LAUNCH();
}

void fill_hash_u32(uint32_t* dst, int64_t n, uint32_t seed, cudaStream_t s) {
  fill_hash_kernel<<<grid_for(n), kThreads, 0, s>>>(dst, n, seed);
  CUDA_CHECK_LAUNCH();
}

int64_t count_mismatched_words(const uint32_t* a, const uint32_t* b, int64_t n, cudaStream_t s) {
  return run_counter(
      [](unsigned long long* c, cudaStream_t st, const void* x, const void* y, int64_t len) {
        mismatch_kernel<<<grid_for(len), kThreads, 0, st>>>(static_cast<const uint32_t*>(x),
                                                            static_cast<const uint32_t*>(y), len, c);
      },
      a, b, n, s);
}

int64_t count_nan(const float* y, int64_t n, cudaStream_t s) {
  return run_counter(
      [](unsigned long long* c, cudaStream_t st, const void* x, const void*, int64_t len) {
        nan_kernel<<<grid_for(len), kThreads, 0, st>>>(static_cast<const float*>(x), len, c);
      },
      y, nullptr, n, s);
}

}  // namespace rooftop::cuda
