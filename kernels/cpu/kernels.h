// The CPU inference kernels' public interface: typed weight views, GEMV/GEMM, attention, elementwise ops.
//
// Dimension legend: n = tokens in a batch, k = input features (columns of W), m = output features
// (rows of W), h = query heads, hk = KV heads, d = head dim, t = cached positions.
// W is always row-major (m rows of k values); each row is stored in the weight's format, with
// GGUF's block layout (k must be a multiple of the format's block size). This matches GGUF/ggml,
// where a tensor of ne = [k, m] is m rows of k values.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace rooftop::kernels {

class ThreadPool;  // thread_pool.h

// GGUF tensor types the kernels read. Values equal ggml's type ids, so a GGUF tensor type maps 1:1.
enum class WeightFormat : uint32_t {
  f32 = 0, f16 = 1, q4_0 = 2, q4_1 = 3, q5_0 = 6, q5_1 = 7, q8_0 = 8, q4_k = 12, q5_k = 13, q6_k = 14, bf16 = 30,
};
inline constexpr WeightFormat kWeightFormats[] = {
    WeightFormat::f32,  WeightFormat::f16,  WeightFormat::q4_0, WeightFormat::q4_1, WeightFormat::q5_0, WeightFormat::q5_1,
    WeightFormat::q8_0, WeightFormat::q4_k, WeightFormat::q5_k, WeightFormat::q6_k, WeightFormat::bf16,
};

// The kernels' format for a ggml type id, or nullopt for a type they do not read.
std::optional<WeightFormat> weight_format(uint32_t ggml_type);
std::string weight_format_names();                 // "f32, f16, q4_0, ...", for error messages

// Geometry from the ggml type table (formats/ggml_types.h).
const char* format_name(WeightFormat f);           // "q4_1"
int64_t block_values(WeightFormat f);              // values per block (1 for f32/f16/bf16)
int64_t block_bytes(WeightFormat f);               // bytes per block
int64_t row_bytes(WeightFormat f, int64_t k);      // bytes of one row of k values (k % block_values == 0)

// A typed, non-owning view of a weight matrix: W is (m, k), row-major, rows in `format`.
struct WeightView {
  WeightFormat format = WeightFormat::f32;
  const std::byte* data = nullptr;  // m * row_bytes(format, k) bytes
  int64_t m = 0;                    // rows (output features)
  int64_t k = 0;                    // columns (input features)
  int64_t bytes() const { return m * row_bytes(format, k); }
};

// Dequantize one row: src holds row_bytes(f, k) bytes, dst is (k). Bit-exact with dequantize_row_ref.
void dequantize_row(WeightFormat f, const std::byte* src, std::span<float> dst);
void dequantize_row_ref(WeightFormat f, const std::byte* src, std::span<float> dst);  // scalar reference

// Quantize (for tests, synthetic weights and benchmarks): src is (k) floats, dst row_bytes(f, k) bytes.
void quantize_row(WeightFormat f, std::span<const float> src, std::byte* dst);

// Decode GEMV: y (m) = W (m, k) x (k). Dequantizes on the fly; never expands W in memory.
void gemv(const WeightView& W, std::span<const float> x, std::span<float> y, ThreadPool& pool);
void gemv_ref(const WeightView& W, std::span<const float> x, std::span<float> y);  // scalar reference

// Prefill GEMM: Y (n, m) = X (n, k) W^T, i.e. every token's row times every weight row. Cache-blocked.
void gemm(const WeightView& W, std::span<const float> X, int64_t n, std::span<float> Y, ThreadPool& pool);
void gemm_ref(const WeightView& W, std::span<const float> X, int64_t n, std::span<float> Y);

// Batched decode: Y (n, m) row i = gemv(W, X row i) up to float reassociation (same q8 activations for the
// integer-dot formats), with each weight block read once for a group of up to 8 tokens (more tokens: groups over
// cache-sized row slices). Use it below gemm_min_tokens; gemm keeps fp32 activations.
void gemv_batch(const WeightView& W, std::span<const float> X, int64_t n, std::span<float> Y, ThreadPool& pool);

// The fewest tokens for which the active kernels' tiled GEMM is faster than gemv_batch on W (format f, rows of k
// values): 9 on most tables; the amx table's own per format (kernels_avx512.cpp). A prefill's matmul of fewer tokens
// runs gemv_batch. gemm() runs its own (fp32) GEMV rows below min(this, kSmallGemmMaxN + 1).
int64_t gemm_min_tokens(WeightFormat f, int64_t k);

// KV cache layout for one layer: K and V are (t_capacity, hk, d) rows, position-major; kv_f16 selects
// fp16 storage (uint16_t halves) instead of fp32.
struct KvView {
  const void* k = nullptr;
  const void* v = nullptr;
  bool f16 = false;
  int64_t kv_heads = 0;   // hk
  int64_t head_dim = 0;   // d
};

// Decode attention for one token: q (h, d), cache holds t positions; out (h, d).
// Query head i reads KV head i / (h / hk) (grouped-query). Scale = 1/sqrt(d). Softmax with running max.
// Each GQA group's K and V rows are read once; keys are split into ranges (flash-decoding) that depend only
// on (t, hk), so the result does not depend on the thread count. attention_decode_ref: two-pass, in double.
void attention_decode(std::span<const float> q, int64_t heads, const KvView& kv, int64_t t,
                      std::span<float> out, ThreadPool& pool);
void attention_decode_ref(std::span<const float> q, int64_t heads, const KvView& kv, int64_t t,
                          std::span<float> out);

// Elementwise and small ops (single row unless stated).
// RMSNorm: out (k) = x / sqrt(mean(x^2) + eps) * w.
void rmsnorm(std::span<const float> x, std::span<const float> w, float eps, std::span<float> out);
// RoPE on x (heads, d) at position pos, angle pos * freq_scale * base^(-2i/d) / freq_factors[i] for pair i
// (freq_factors: d/2 values, or empty for 1: Llama 3.1's rope_freqs tensor, llama.cpp's ggml_rope_ext factors).
// adjacent: pairs (2i, 2i+1), llama.cpp's "normal" layout (llama GGUFs); halves: pairs (i, i + d/2), the
// GPT-NeoX layout (Gemma).
enum class RopeStyle { adjacent, halves };
void rope(std::span<float> x, int64_t heads, int64_t head_dim, int64_t pos, float theta_base,
          RopeStyle style = RopeStyle::adjacent, float freq_scale = 1.0f, std::span<const float> freq_factors = {});
// SwiGLU: out (f) = silu(gate) * up.
void swiglu(std::span<const float> gate, std::span<const float> up, std::span<float> out);
// GeGLU: out (f) = gelu_tanh(gate) * up (Gemma's FFN).
void geglu(std::span<const float> gate, std::span<const float> up, std::span<float> out);
// Softmax in place, numerically stable.
void softmax(std::span<float> x);
int64_t argmax(std::span<const float> x);
// Indices of the k largest values, largest first (ties: lower index first). out.size() == k.
void top_k(std::span<const float> x, std::span<int64_t> out);

}  // namespace rooftop::kernels
