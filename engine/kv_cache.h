// fp32 KV cache: per layer, K and V rows (slots, Hk, d), position-major. A layer holds `capacity` slots, or
// fewer for a sliding-window layer (Gemma 3's local layers: the window), which then writes position p to
// slot p mod slots: a ring. Attention sums over keys, whose order does not matter once RoPE has placed them,
// so a full ring is read whole. The rows live in AlignedBytes: a cache of 4 MiB and more sits in transparent huge
// pages, as the weights do, so attention's strided reads (a KV head's d floats of every position) do not walk a 4 KiB
// page a position.
#pragma once
#include <cstdint>
#include <vector>

#include "base/buffer.h"
#include "kernels/cpu/kernels.h"

namespace rooftop::engine {

class KvCache {
 public:
  // layer_slots: slots per layer (each 1..capacity); empty = capacity for every layer.
  KvCache(int64_t layers, int64_t capacity, int64_t kv_heads, int64_t head_dim, std::vector<int64_t> layer_slots = {});
  int64_t capacity() const { return capacity_; }
  int64_t length() const { return length_; }  // positions written so far
  int64_t slots(int64_t layer) const { return slots_[size_t(layer)]; }
  // Rows (Hk * d floats) for a position in a layer; writing a position >= capacity is a logic error.
  float* k_row(int64_t layer, int64_t pos) { return k() + offset(layer, pos); }
  float* v_row(int64_t layer, int64_t pos) { return v() + offset(layer, pos); }
  kernels::KvView view(int64_t layer) const;  // slot 0 of the layer
  // Marks positions [0, n) as written (only grows: the cache never rewrites a row).
  void set_length(int64_t n);
  // Forgets positions [n, length()) (0 <= n <= length()): the next writes go to position n. Used to decode
  // many steps at one fixed context (rooftop validate, whose models have no ring layers); generation never needs it.
  void truncate(int64_t n);
  // Bytes held by the written positions: 2 x 4 x Hk x d x sum over layers of min(length, slots).
  int64_t bytes() const;
  // Bytes allocated: the same with every slot.
  int64_t allocated_bytes() const { return k_.size() + v_.size(); }

 private:
  int64_t offset(int64_t layer, int64_t pos) const {
    return (layer_start_[size_t(layer)] + pos % slots_[size_t(layer)]) * row_floats_;
  }
  int64_t layers_, capacity_, kv_heads_, head_dim_, row_floats_;
  int64_t length_ = 0;
  std::vector<int64_t> slots_, layer_start_;  // per layer: slots, first slot's index in k_ / v_ rows
  AlignedBytes k_, v_;                        // fp32 (sum of slots, Hk, d), zeroed
  float* k() { return reinterpret_cast<float*>(k_.data()); }
  float* v() { return reinterpret_cast<float*>(v_.data()); }
};

}  // namespace rooftop::engine
