// KV cache storage and views for the attention kernel.
#include "engine/kv_cache.h"

#include <stdexcept>

namespace rooftop::engine {

KvCache::KvCache(int64_t layers, int64_t capacity, int64_t kv_heads, int64_t head_dim)
    : layers_(layers), capacity_(capacity), kv_heads_(kv_heads), head_dim_(head_dim), row_floats_(kv_heads * head_dim),
      k_(size_t(layers * capacity * kv_heads * head_dim)), v_(k_.size()) {}

kernels::KvView KvCache::view(int64_t layer) const {
  kernels::KvView v;
  v.k = k_.data() + offset(layer, 0);
  v.v = v_.data() + offset(layer, 0);
  v.f16 = false;
  v.kv_heads = kv_heads_;
  v.head_dim = head_dim_;
  return v;
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
