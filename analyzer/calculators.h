// Small calculators from seed 002: GEMM tile reuse, naive vs fused attention traffic, paged KV blocks,
// static vs continuous batching utilization.
#pragma once
#include <cstdint>
#include <vector>

namespace rooftop {

// A (tile x tile) output tile over depth k reads two (tile x k) panels: intensity =
// 2 tile^2 k FLOPs / (2 tile k x bytes) = tile / bytes. Seed: tile 64 at fp16 = 32 FLOPs/byte.
double gemm_flops(int64_t m, int64_t n, int64_t k);  // 2 m n k
double gemm_tile_intensity(int64_t tile, double bytes_per_value);

// Attention over n tokens with head dim d: naive writes the n x n score matrix to memory and reads it
// back, on top of Q, K, V and O; fused (FlashAttention) moves only Q, K, V and O.
struct AttentionTraffic {
  double scores = 0;        // n^2
  double naive_bytes = 0;   // (4 n d + 2 n^2) x bytes
  double fused_bytes = 0;   // 4 n d x bytes
  double ratio() const { return naive_bytes / fused_bytes; }
};
AttentionTraffic attention_traffic(int64_t n, int64_t d, double bytes_per_value);

// Paged KV: sequences take ceil(len / block) blocks; a contiguous reservation of `reserved_blocks`
// leaves the rest unused.
struct PagedKv {
  int64_t blocks_needed = 0;
  int64_t reserved_blocks = 0;
  int64_t unused_blocks = 0;        // reserved - needed
  int64_t slots_wasted_in_pages = 0; // internal fragmentation: token slots in the last pages left empty
};
PagedKv paged_kv(const std::vector<int64_t>& seq_lens, int64_t block_tokens, int64_t reserved_blocks);

// Static batching runs each batch of `slots` sequences until its longest one ends; continuous batching
// refills a slot as soon as it frees. Utilization = busy slot-steps / total slot-steps.
struct BatchingUtilization {
  int64_t work = 0;                     // sum of sequence lengths (slot-steps of real work)
  int64_t static_steps = 0, continuous_steps = 0;
  double static_utilization = 0, continuous_utilization = 0;
};
BatchingUtilization batching_utilization(const std::vector<int64_t>& lengths, int64_t slots);

}  // namespace rooftop
