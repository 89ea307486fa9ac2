// Append-only fp32 KV cache: per layer, K and V rows (capacity, Hk, d), position-major.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/cpu/kernels.h"

namespace rooftop::engine {

class KvCache {
 public:
  KvCache(int64_t layers, int64_t capacity, int64_t kv_heads, int64_t head_dim);
  int64_t capacity() const { return capacity_; }
  int64_t length() const { return length_; }  // positions written so far
  // Rows (Hk * d floats) for a position in a layer; writing a position >= capacity is a logic error.
  float* k_row(int64_t layer, int64_t pos) { return k_.data() + offset(layer, pos); }
  float* v_row(int64_t layer, int64_t pos) { return v_.data() + offset(layer, pos); }
  kernels::KvView view(int64_t layer) const;
  // Marks positions [0, n) as written (only grows: the cache never rewrites a row).
  void set_length(int64_t n);
  // Forgets positions [n, length()) (0 <= n <= length()): the next writes go to position n. Used to decode
  // many steps at one fixed context (rooftop validate); generation never needs it.
  void truncate(int64_t n);
  // Bytes held by the written positions: 2 x L x length x Hk x d x 4.
  int64_t bytes() const { return 2 * layers_ * length_ * row_floats_ * 4; }

 private:
  int64_t offset(int64_t layer, int64_t pos) const { return (layer * capacity_ + pos) * row_floats_; }
  int64_t layers_, capacity_, kv_heads_, head_dim_, row_floats_;
  int64_t length_ = 0;
  std::vector<float> k_, v_;  // (L, capacity, Hk, d)
};

}  // namespace rooftop::engine
