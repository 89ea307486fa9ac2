// Per-ISA kernel table (scalar, AVX2+FMA, AVX-512+VNNI, AVX-512+VNNI+BF16), chosen once from CPUID.
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/cpu/kernels.h"
#include "kernels/cpu/q8_activations.h"

namespace rooftop::kernels {

constexpr int64_t kSmallGemmMaxN = 8;  // largest n of the multi-RHS GEMV path (gemm, gemv_batch)

// avx512_bf16: the avx512 table with a prefill GEMM on bf16 operands (vdpbf16ps, twice the fp32 FMA rate);
// everything else is the avx512 table's.
// amx: the avx512_bf16 table whose prefill GEMM runs on AMX tiles (TDPBF16PS: 16 x 16 x 32 products per
// instruction) for every format, quantized weights dequantized to bf16, with the same operand rounding.
enum class Isa { scalar = 0, avx2 = 1, avx512 = 2, avx512_bf16 = 3, amx = 4 };

struct KernelTable {
  const char* name = "scalar";
  // dst (k) from the blocks at src (k / block_values blocks). Bit-exact with dequantize_row_ref.
  void (*dequantize)(WeightFormat f, const std::byte* src, float* dst, int64_t k) = nullptr;
  // x (k) -> xq, identical to quantize_activations_q8_ref.
  void (*quantize_q8)(const float* x, int64_t k, Q8Activations& xq) = nullptr;
  // y[r] = W[r] . x for r in [r0, r1); xq is x quantized when gemv_uses_q8_activations(W.format).
  void (*gemv_rows)(const WeightView& W, const float* x, const Q8Activations& xq, float* y, int64_t r0,
                    int64_t r1) = nullptr;
  // True where gemv_rows' q4_0 / q4_1 paths are faster with xq.qt16 filled (AVX-512): callers then run
  // interleave_q8_blocks16 once after quantize_q8 (see quantize_q8_for). Results depend on it (summation order).
  bool q4_reads_qt16 = false;
  // Y (n, m) columns [j0, j1) = X (n, k) W[j0:j1]^T, using a thread-local panel buffer.
  void (*gemm_cols)(const WeightView& W, const float* X, int64_t n, float* Y, int64_t j0, int64_t j1) = nullptr;
  int64_t gemm_cols_per_task = 64;  // granularity of the column split across threads
  // Formats whose gemm_cols quantizes X to int8 blocks of 32 like the GEMV (x ~= d_a q_a, |x - x^| <= d_a / 2)
  // and multiplies integers (AVX-512 VNNI); nullptr: none. Their results carry that rounding, not
  // gemm_operand_rounding.
  bool (*gemm_uses_q8)(WeightFormat f) = nullptr;
  // The int8 GEMM on X already quantized (xq[i]: token i, like quantize_q8; sum16: for q6_k's 16-value sub-blocks,
  // (n, k / 16) values d_a x the sum of each 16 quants, else unused): gemm() quantizes X once, split over the
  // pool, instead of every worker quantizing all of it in gemm_cols.
  void (*gemm_cols_q8)(const WeightView& W, const Q8Activations* xq, const float* sum16, int64_t n, float* Y,
                       int64_t j0, int64_t j1) = nullptr;
  // Relative rounding of gemm_cols' operands: 0 when X and W enter the products in fp32; 2^-8 when both are
  // rounded to bf16 (2^-9 each). The error bound of a product sum is then this times sum |x w|, plus fp32's.
  // Formats gemm_uses_q8 names round X to int8 instead (and W not at all).
  double gemm_operand_rounding = 0;
  // The AMX GEMM, for the formats gemm_uses_xbf16 names (nullptr: none): X is rounded to bf16 once per GEMM into
  // groups of 16 tokens (pack_x_bf16 fills groups [g0, g1) of Xv, x_bf16_words(n, k) words), then each column range
  // runs gemm_cols_xbf16 on it. gemm_cols alone (no Xv) gives the same results.
  bool (*gemm_uses_xbf16)(WeightFormat f, int64_t k) = nullptr;
  void (*pack_x_bf16)(const float* X, int64_t n, int64_t k, uint32_t* Xv, int64_t g0, int64_t g1) = nullptr;
  void (*gemm_cols_xbf16)(const WeightView& W, const uint32_t* Xv, int64_t n, float* Y, int64_t j0, int64_t j1) = nullptr;
  // Small-n GEMM rows: Y (n, m) entries of weight rows [r0, r1), each weight block loaded once for all n
  // tokens (n <= kSmallGemmMaxN). xq == nullptr: fp32 activations (quantized rows dequantized to a row
  // buffer first); otherwise xq[i] is token i quantized, used for the integer-dot formats like gemv_rows.
  void (*gemm_small_rows)(const WeightView& W, const float* X, int64_t n, const Q8Activations* xq, float* Y,
                          int64_t r0, int64_t r1) = nullptr;
  // Fewest tokens for which the tiled GEMM beats gemv_batch's multi-RHS GEMV rows (int8 activations where the
  // format has an integer dot, each weight block read once per group of 8 tokens) on W (format f, rows of k
  // values): the engine's matmuls of fewer tokens run gemv_batch. gemm() itself (fp32 activations) runs the GEMV
  // rows below min(this, kSmallGemmMaxN + 1). The GEMM's cost is nearly flat at small n (every weight is converted
  // once) while the GEMV rows' grows with n, so where the conversion is cheap against the GEMV's dot products the
  // GEMM wins sooner. nullptr: kSmallGemmMaxN + 1 (the tables tuned at n = 128 only).
  int64_t (*gemm_min_tokens)(WeightFormat f, int64_t k) = nullptr;
  // Helpers for attention: dot products and y += a * x over n values, x in fp32 or fp16.
  float (*dot_f32)(const float* a, const float* b, int64_t n) = nullptr;
  float (*dot_f16)(const uint16_t* a, const float* b, int64_t n) = nullptr;
  void (*axpy_f32)(float a, const float* x, float* y, int64_t n) = nullptr;
  void (*axpy_f16)(float a, const uint16_t* x, float* y, int64_t n) = nullptr;
};

// x (k) -> xq with tab.quantize_q8, plus the interleaved copy when tab's q4_0 / q4_1 gemv_rows read it and one
// of them is among the formats xq feeds (feeds_q4: reads_qt16 of some target's format). gemv and the fused GEMVs
// both quantize through here, so they stay bit-identical.
void quantize_q8_for(const KernelTable& tab, bool feeds_q4, const float* x, int64_t k, Q8Activations& xq);
// The formats whose AVX-512 rows read the interleaved activations: q4_0 and q4_1.
inline bool reads_qt16(WeightFormat f) { return f == WeightFormat::q4_0 || f == WeightFormat::q4_1; }

bool isa_supported(Isa isa);            // CPUID (and OS register-state) check
const KernelTable& kernel_table(Isa isa);  // the table of one ISA (must be supported)
const KernelTable& active_kernels();    // best supported ISA, chosen once
Isa active_isa();

// Scalar dequantization of k values (k % block_values(f) == 0); no argument checks (dequantize_ref.cpp).
void dequantize_blocks_ref(WeightFormat f, const std::byte* src, float* dst, int64_t k);

// Filled by the ISA files (kernels_scalar.cpp, kernels_avx2.cpp, kernels_avx512.cpp).
KernelTable make_scalar_kernels();
KernelTable make_avx2_kernels();
KernelTable make_avx512_kernels();
KernelTable make_avx512_bf16_kernels();
KernelTable make_amx_kernels();

// Loads this thread's AMX tile configuration (8 tiles of 16 rows x 64 bytes), once per thread; every AMX user in the
// project uses this one layout. Only where isa_supported(Isa::amx), which has asked the OS for the tile state.
void amx_configure_thread();

// tab.gemm_min_tokens(f, k), or its default kSmallGemmMaxN + 1.
inline int64_t gemm_min_tokens(const KernelTable& tab, WeightFormat f, int64_t k) {
  return tab.gemm_min_tokens ? tab.gemm_min_tokens(f, k) : kSmallGemmMaxN + 1;
}

// Words of the AMX GEMM's bf16 copy of X (n, k): n rounded up to groups of 16 tokens, two values per word.
inline int64_t x_bf16_words(int64_t n, int64_t k) { return (n + 15) / 16 * 16 * k / 2; }

}  // namespace rooftop::kernels
