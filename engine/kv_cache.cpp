// KV cache storage and views for the attention kernel.
#include "engine/kv_cache.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace rooftop::engine {

KvCache::KvCache(int64_t layers, int64_t capacity, int64_t kv_heads, int64_t head_dim, std::vector<int64_t> layer_slots)
    : layers_(layers), capacity_(capacity), kv_heads_(kv_heads), head_dim_(head_dim), row_floats_(kv_heads * head_dim),
      slots_(std::move(layer_slots)) {
  if (slots_.empty()) slots_.assign(size_t(layers), capacity);
  if (int64_t(slots_.size()) != layers) throw std::logic_error("KvCache: one slot count per layer");
  int64_t total = 0;
  for (int64_t& s : slots_) {
    if (s < 1 || s > capacity) throw std::logic_error("KvCache: a layer's slots must be 1..capacity");
    layer_start_.push_back(total);
    total += s;
  }
  // Zeroed: positions no pass wrote read as zeros (Forward::seek); writing every byte also pages the cache in now.
  for (AlignedBytes* b : {&k_, &v_}) {
    *b = AlignedBytes(total * row_floats_ * int64_t(sizeof(float)));
    std::memset(b->data(), 0, size_t(b->size()));
  }
}

kernels::KvView KvCache::view(int64_t layer) const {
  kernels::KvView v;
  const int64_t first = layer_start_[size_t(layer)] * row_floats_;
  v.k = reinterpret_cast<const float*>(k_.data()) + first;
  v.v = reinterpret_cast<const float*>(v_.data()) + first;
  v.f16 = false;
  v.kv_heads = kv_heads_;
  v.head_dim = head_dim_;
  return v;
}

int64_t KvCache::bytes() const {
  int64_t rows = 0;
  for (int64_t s : slots_) rows += std::min(length_, s);
  return 2 * rows * row_floats_ * 4;
}

void KvCache::set_length(int64_t n) {
  if (n < length_ || n > capacity_) throw std::logic_error("KvCache: length may only grow up to the capacity");
  length_ = n;
}

void KvCache::truncate(int64_t n) {
  if (n < 0 || n > length_) throw std::logic_error("KvCache: truncate to a length outside 0..length()");
  length_ = n;
}

}  // namespace rooftop::engine
