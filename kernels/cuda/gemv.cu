// Decode GEMV on the GPU, y (m) = scale * W (m, k) x (k), W in bf16, fp8 e4m3, q8_0 or q4_1.
// One warp per row, 8 rows per block; every weight byte is read once with 16-byte coalesced loads.
// Napkin math: bytes = m * row_bytes (+ 4k for x, from L2); a 14336 x 4096 q4_1 matrix is 36.7 MB,
// 7.6 us at 4.8 TB/s. Target: >= 85% of the copy kernel's bandwidth.
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <string>

#include "base/errors.h"
#include "formats/ggml_types.h"
#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/fp8_e4m3.h"

namespace rooftop::cuda {

namespace {
constexpr int kWarps = 8;            // rows per block
constexpr int kUnroll = 4;           // 16-byte loads in flight per lane (dense formats)
constexpr int kPassBlocks = 64;      // quant blocks staged per warp per pass (2 per lane)

__device__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Two fp8 e4m3 values (low byte first) to floats: hardware conversion on sm_89+, software below.
__device__ float2 fp8x2_to_float2(uint16_t pair) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  const __half2_raw h = __nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t(pair), __NV_E4M3);
  return __half22float2(__half2(h));
#else
  return make_float2(fp8_e4m3_to_float_sw(uint8_t(pair & 0xff)), fp8_e4m3_to_float_sw(uint8_t(pair >> 8)));
#endif
}

// Dot of one 16-byte word of weights with the matching x values (8 bf16 or 16 fp8).
template <GpuFormat F>
__device__ float dot_word(uint4 w, const float* __restrict__ x) {
  const uint32_t u[4] = {w.x, w.y, w.z, w.w};
  float acc = 0.f;
  if constexpr (F == GpuFormat::bf16) {
    const float4 x0 = __ldg(reinterpret_cast<const float4*>(x));
    const float4 x1 = __ldg(reinterpret_cast<const float4*>(x) + 1);
    const float xs[8] = {x0.x, x0.y, x0.z, x0.w, x1.x, x1.y, x1.z, x1.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      acc += __uint_as_float(u[i] << 16) * xs[2 * i];
      acc += __uint_as_float(u[i] & 0xffff0000u) * xs[2 * i + 1];
    }
  } else {  // fp8_e4m3: 16 values
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float4 xv = __ldg(reinterpret_cast<const float4*>(x) + i);
      const float2 lo = fp8x2_to_float2(uint16_t(u[i] & 0xffff));
      const float2 hi = fp8x2_to_float2(uint16_t(u[i] >> 16));
      acc += lo.x * xv.x + lo.y * xv.y + hi.x * xv.z + hi.y * xv.w;
    }
  }
  return acc;
}

// bf16 / fp8: each lane streams 16-byte words of its warp's row, kUnroll loads in flight.
template <GpuFormat F>
__global__ void gemv_dense_kernel(const uint4* __restrict__ W, const float* __restrict__ x,
                                  float* __restrict__ y, int64_t m, int64_t words_per_row, float scale) {
  constexpr int kValuesPerWord = F == GpuFormat::bf16 ? 8 : 16;
  const int lane = threadIdx.x & 31;
  const int64_t row = int64_t(blockIdx.x) * kWarps + (threadIdx.x >> 5);
  if (row >= m) return;
  const uint4* w = W + row * words_per_row;
  float acc = 0.f;
  int64_t i = lane;
  for (; i + 32 * (kUnroll - 1) < words_per_row; i += 32 * kUnroll) {
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = __ldcs(w + i + 32 * u);  // weights: streamed, no reuse
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) acc += dot_word<F>(v[u], x + (i + 32 * u) * kValuesPerWord);
  }
  for (; i < words_per_row; i += 32) acc += dot_word<F>(__ldcs(w + i), x + i * kValuesPerWord);
  acc = warp_sum(acc);
  if (lane == 0) y[row] = acc * scale;
}

__device__ float half_bits_to_float(uint16_t h) { return __half2float(__ushort_as_half(h)); }

// One GGUF block (32 values) dotted with x (32): q8_0 = d * sum(q x); q4_1 = d * sum(q x) + m * sum(x).
template <GpuFormat F>
__device__ float dot_block(const unsigned char* blk, const float* __restrict__ x) {
  const float4* x4 = reinterpret_cast<const float4*>(x);
  if constexpr (F == GpuFormat::q8_0) {
    const uint16_t* h = reinterpret_cast<const uint16_t*>(blk);  // 2-byte aligned (34-byte blocks)
    float s = 0.f;
#pragma unroll
    for (int i = 0; i < 8; ++i) {  // 4 values per step: two uint16 of int8 pairs
      const float4 xv = __ldg(x4 + i);
      const uint16_t a = h[1 + 2 * i], b = h[2 + 2 * i];
      s += float(int8_t(a & 0xff)) * xv.x + float(int8_t(a >> 8)) * xv.y +
           float(int8_t(b & 0xff)) * xv.z + float(int8_t(b >> 8)) * xv.w;
    }
    return half_bits_to_float(h[0]) * s;
  } else {  // q4_1, 20-byte blocks, 4-byte aligned
    const uint32_t* u = reinterpret_cast<const uint32_t*>(blk);
    const float d = half_bits_to_float(uint16_t(u[0] & 0xffff));
    const float mn = half_bits_to_float(uint16_t(u[0] >> 16));
    float sq = 0.f, sx = 0.f;
#pragma unroll
    for (int i = 0; i < 4; ++i) {  // bytes 4i..4i+3 hold values 4i..4i+3 (low) and 16+4i.. (high)
      const uint32_t q = u[1 + i];
      const float4 lo = __ldg(x4 + i);
      const float4 hi = __ldg(x4 + 4 + i);
      sq += float(q & 0xf) * lo.x + float((q >> 8) & 0xf) * lo.y + float((q >> 16) & 0xf) * lo.z +
            float((q >> 24) & 0xf) * lo.w;
      sq += float((q >> 4) & 0xf) * hi.x + float((q >> 12) & 0xf) * hi.y + float((q >> 20) & 0xf) * hi.z +
            float((q >> 28) & 0xf) * hi.w;
      sx += lo.x + lo.y + lo.z + lo.w + hi.x + hi.y + hi.z + hi.w;
    }
    return d * sq + mn * sx;
  }
}

// q8_0 / q4_1: the warp stages kPassBlocks blocks of its row in shared memory with 16-byte loads
// (blocks are 34 / 20 bytes, not 16-aligned), then each lane dots whole blocks.
template <GpuFormat F, int kBlockBytes>
__global__ void gemv_quant_kernel(const unsigned char* __restrict__ W, const float* __restrict__ x,
                                  float* __restrict__ y, int64_t m, int64_t blocks_per_row) {
  constexpr int kPassWords = kPassBlocks * kBlockBytes / 16;
  __shared__ uint4 stage[kWarps][kPassWords];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int64_t row = int64_t(blockIdx.x) * kWarps + warp;
  if (row >= m) return;
  const uint4* w = reinterpret_cast<const uint4*>(W + row * blocks_per_row * kBlockBytes);
  const unsigned char* st = reinterpret_cast<const unsigned char*>(stage[warp]);
  float acc = 0.f;
  for (int64_t b0 = 0; b0 < blocks_per_row; b0 += kPassBlocks) {
    const int nb = int(blocks_per_row - b0 < kPassBlocks ? blocks_per_row - b0 : kPassBlocks);
    const int words = nb * kBlockBytes / 16;  // whole: row_bytes % 16 == 0 is checked on the host
    const uint4* src = w + b0 * kBlockBytes / 16;
    uint4 v[(kPassWords + 31) / 32];
#pragma unroll
    for (int u = 0; u < (kPassWords + 31) / 32; ++u)
      if (lane + 32 * u < words) v[u] = __ldcs(src + lane + 32 * u);
#pragma unroll
    for (int u = 0; u < (kPassWords + 31) / 32; ++u)
      if (lane + 32 * u < words) stage[warp][lane + 32 * u] = v[u];
    __syncwarp();
    for (int b = lane; b < nb; b += 32) acc += dot_block<F>(st + b * kBlockBytes, x + (b0 + b) * 32);
    __syncwarp();
  }
  acc = warp_sum(acc);
  if (lane == 0) y[row] = acc;
}
}  // namespace

const char* gpu_format_name(GpuFormat f) {
  switch (f) {
    case GpuFormat::bf16: return "bf16";
    case GpuFormat::fp8_e4m3: return "fp8_e4m3";
    case GpuFormat::q8_0: return "q8_0";
    case GpuFormat::q4_1: return "q4_1";
  }
  return "?";
}

// Row bytes from the ggml type table (formats/ggml_types.h); fp8 has no ggml type: one byte a value.
int64_t gpu_row_bytes(GpuFormat f, int64_t k) {
  const auto ggml_row = [k](uint32_t id) {
    const auto t = *formats::ggml_type_info(id);
    return k / t.block_values * t.block_bytes;
  };
  switch (f) {
    case GpuFormat::bf16: return ggml_row(30);
    case GpuFormat::fp8_e4m3: return k;
    case GpuFormat::q8_0: return ggml_row(8);
    case GpuFormat::q4_1: return ggml_row(3);
  }
  return 0;
}

void check_gemv_shape(const GpuWeights& W) {
  const int64_t multiple = W.format == GpuFormat::bf16 ? 8 : W.format == GpuFormat::fp8_e4m3 ? 16
                         : W.format == GpuFormat::q4_1 ? 128 : 256;
  if (W.m <= 0 || W.k <= 0 || W.k % multiple != 0)
    throw InputError("GPU GEMV " + std::string(gpu_format_name(W.format)) + ": shape (m=" +
                     std::to_string(W.m) + ", k=" + std::to_string(W.k) + ") invalid; expected m > 0 and k a "
                     "positive multiple of " + std::to_string(multiple));
  if (reinterpret_cast<uintptr_t>(W.data) % 16 != 0)
    throw InputError("GPU GEMV: weight pointer not 16-byte aligned; expected a cudaMalloc'd buffer");
  if (W.m > (int64_t(1) << 31) * kWarps) throw InputError("GPU GEMV: m too large for one launch");
}

void gemv(const GpuWeights& W, const float* x, float* y, cudaStream_t s) {
  check_gemv_shape(W);
  const int grid = int((W.m + kWarps - 1) / kWarps);
  const int64_t words = gpu_row_bytes(W.format, W.k) / 16;
  const auto* w16 = static_cast<const uint4*>(W.data);
  const auto* wb = static_cast<const unsigned char*>(W.data);
  switch (W.format) {
    case GpuFormat::bf16:
      gemv_dense_kernel<GpuFormat::bf16><<<grid, 32 * kWarps, 0, s>>>(w16, x, y, W.m, words, W.scale);
      break;
    case GpuFormat::fp8_e4m3:
      gemv_dense_kernel<GpuFormat::fp8_e4m3><<<grid, 32 * kWarps, 0, s>>>(w16, x, y, W.m, words, W.scale);
      break;
    case GpuFormat::q8_0:
      gemv_quant_kernel<GpuFormat::q8_0, 34><<<grid, 32 * kWarps, 0, s>>>(wb, x, y, W.m, W.k / 32);
      break;
    case GpuFormat::q4_1:
      gemv_quant_kernel<GpuFormat::q4_1, 20><<<grid, 32 * kWarps, 0, s>>>(wb, x, y, W.m, W.k / 32);
      break;
  }
  CUDA_CHECK_LAUNCH();
}

}  // namespace rooftop::cuda
