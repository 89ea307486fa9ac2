// Host-side launchers of the CUDA kernels: typed device pointers, explicit sizes, one stream.
//
// Dimension legend: m = output features (rows of W), k = input features, h = query heads,
// hk = KV heads, d = head dim, t = cached positions. W is row-major (m rows of k values), each row
// in its format with GGUF's block layout (q8_0: fp16 d + 32 int8; q4_1: fp16 d, fp16 m, 16 bytes of
// nibbles, value j in the low nibble of byte j, value j+16 in the high nibble).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace rooftop::cuda {

// ---- bandwidth (bandwidth.cu) ----
// dst (bytes) = src (bytes); bytes % 16 == 0, both 16-byte aligned. grid = blocks of 256 threads.
void copy_bytes(const void* src, void* dst, int64_t bytes, int grid, cudaStream_t s);
// Read-only sweep: partial (grid) = per-block wrapping uint32 sum of src's words; bytes % 16 == 0.
void read_sum_u32(const void* src, int64_t bytes, uint32_t* partial, int grid, cudaStream_t s);
// Fill n words with a hash of (index, seed): random-looking, reproducible.
void fill_hash_u32(uint32_t* dst, int64_t n, uint32_t seed, cudaStream_t s);
// Number of words where a != b, and of NaN floats in y (synchronizes; for checks, not timing).
int64_t count_mismatched_words(const uint32_t* a, const uint32_t* b, int64_t n, cudaStream_t s);
int64_t count_nan(const float* y, int64_t n, cudaStream_t s);

// ---- decode GEMV (gemv.cu) ----
enum class GpuFormat : int { bf16, fp8_e4m3, q8_0, q4_1 };
const char* gpu_format_name(GpuFormat f);  // "bf16", "fp8_e4m3", "q8_0", "q4_1"
int64_t gpu_row_bytes(GpuFormat f, int64_t k);

// A typed view of a device weight matrix W (m, k).
struct GpuWeights {
  GpuFormat format = GpuFormat::bf16;
  const void* data = nullptr;  // m * gpu_row_bytes(format, k) bytes, 16-byte aligned
  int64_t m = 0;
  int64_t k = 0;
  float scale = 1.0f;          // per-tensor scale (fp8 checkpoints); 1 for the others
};
// Throws rooftop::InputError unless k suits the format's 16-byte loads: bf16 k % 8, fp8 k % 16,
// q4_1 k % 128, q8_0 k % 256 (a row is a whole number of 16-byte words).
void check_gemv_shape(const GpuWeights& W);
// y (m) = scale * W (m, k) x (k), fp32 accumulation; one warp per row.
void gemv(const GpuWeights& W, const float* x, float* y, cudaStream_t s);

// ---- decode attention (attention.cu) ----
// One layer's contiguous KV cache: K and V are (t_capacity, hk, d), position-major, fp16 or bf16.
struct GpuKv {
  const void* k = nullptr;
  const void* v = nullptr;
  bool bf16 = false;     // false: fp16
  int64_t kv_heads = 0;  // hk
  int64_t head_dim = 0;  // d in {16, 32, 64, 128, 256}
};
// Position splits for t cached positions (flash-decoding style), enough blocks for sm_count SMs.
int attention_splits(int64_t heads, int64_t t, int sm_count);
int64_t attention_workspace_floats(int64_t heads, int64_t head_dim, int splits);
// out (h, d) = softmax(q K^T / sqrt(d)) V for one token; query head i reads KV head i / (h / hk).
// workspace holds attention_workspace_floats(h, d, splits) floats. Throws InputError on bad shapes.
void attention_decode(const float* q, int64_t heads, const GpuKv& kv, int64_t t, float* out,
                      float* workspace, int splits, cudaStream_t s);

}  // namespace rooftop::cuda
