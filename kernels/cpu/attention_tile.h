// Internal interface between the attention drivers (attention.cpp) and the per-ISA block kernels.
//
// Both kernels walk the keys in blocks of kKeyBlock positions and keep an online softmax per query row:
// m (running max), l (running denominator), acc (unnormalized sum of p * V, rows of dp = d rounded up to the
// ISA's lanes). Decode reads the cache in place (fp16 converted on load); prefill copies each K and V block
// into an fp32 buffer once per query tile.
#pragma once
#include <cstdint>
#include <span>

#include "kernels/cpu/dispatch.h"
#include "kernels/cpu/kernels.h"

namespace rooftop::kernels {
class ThreadPool;
}

namespace rooftop::kernels::attn {

constexpr int64_t kKeyBlock = 16;

// One KV head of one layer: position j's row starts at element j * stride of k and v (fp32 or fp16).
struct KvHead {
  const void* k = nullptr;
  const void* v = nullptr;
  bool f16 = false;
  int64_t stride = 0;  // hk * d
  int64_t d = 0;
};

// Decode: nh consecutive KV heads (kv is the first; head i starts i * d elements later), each with g query
// rows, over keys [j0, j1). q (nh * g, dp) already scaled by 1/sqrt(d), zero beyond d. Writes m (nh * g),
// l (nh * g), acc (nh * g, dp) for those keys only (a flash-decoding partial).
using DecodeSpanFn = void (*)(const float* q, int64_t g, int64_t nh, const KvHead& kv, int64_t j0, int64_t j1,
                              float* m, float* l, float* acc);
// Prefill tile: rp query rows (rp a multiple of the lanes) over keys [0, j1); row r sees keys [0, end[r]).
// qt (dp, rp) is the scaled query tile transposed; m (rp), l (rp), acc (rp, dp) start at -inf, 0, 0.
using PrefillTileFn = void (*)(const float* qt, int64_t rp, const float* end, const KvHead& kv, int64_t j1,
                               float* m, float* l, float* acc);

// The FFN's gated activation, out[i] = act(g[i]) u[i] over n values (out may be g): SiLU, or with gelu the tanh
// GELU. Here because it shares the ISA's vector exp with attention.
using GatedFn = void (*)(const float* g, const float* u, float* out, int64_t n, bool gelu);

struct AttentionKernels {
  int64_t lanes = 1;  // fp32 lanes per vector: dp and rp are multiples of it
  DecodeSpanFn decode = nullptr;
  PrefillTileFn prefill = nullptr;
  GatedFn gated = nullptr;
};

AttentionKernels attention_kernels_scalar();  // attention_scalar.cpp
AttentionKernels attention_kernels_avx2();    // attention_avx2.cpp
AttentionKernels attention_kernels_avx512();  // attention_avx512.cpp
const AttentionKernels& attention_kernels(Isa isa);  // isa must be supported

// The drivers with one ISA's kernels (arguments already checked by attention_decode / attention_prefill).
// Tests call them to cover every supported ISA on one machine.
void decode_with(const AttentionKernels& ak, std::span<const float> q, int64_t heads, const KvView& kv, int64_t t,
                 std::span<float> out, ThreadPool& pool);
void prefill_with(const AttentionKernels& ak, std::span<const float> q, int64_t n, int64_t heads, const KvView& kv,
                  int64_t pos0, std::span<float> out, ThreadPool& pool);

}  // namespace rooftop::kernels::attn
