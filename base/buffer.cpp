// Aligned buffers: one random block from mt19937, tiled over the array (fast to fill, still non-zero).
#include "base/buffer.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <vector>

#include <sys/mman.h>

namespace rooftop {
namespace {
// Buffers of 4 MiB and more start on a huge-page boundary and ask for transparent huge pages, as the engine's weights
// do (GgufFile::populate): a kernel measured here streams through the same page size as the model it prices.
template <class T>
T* aligned_new(int64_t count) {
  size_t bytes = static_cast<size_t>(std::max<int64_t>(count, 1)) * sizeof(T);
  const bool huge = bytes >= 2 * kHugePageBytes;
  const size_t align = huge ? kHugePageBytes : 64;
  bytes = (bytes + align - 1) / align * align;
  void* p = std::aligned_alloc(align, bytes);
  if (!p) throw std::bad_alloc();
  if (huge) (void)::madvise(p, bytes, MADV_HUGEPAGE);  // best effort: without THP the pages stay 4 KiB
  return static_cast<T*>(p);
}
}  // namespace

void AlignedFloats::Free::operator()(float* p) const { std::free(p); }
void AlignedBytes::Free::operator()(std::byte* p) const { std::free(p); }

AlignedFloats::AlignedFloats(int64_t n, uint32_t seed) : p_(aligned_new<float>(n)), n_(n) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.5f, 1.5f);
  const int64_t block = std::min<int64_t>(n, 1 << 16);
  std::vector<float> tile(static_cast<size_t>(block));
  for (auto& v : tile) v = u(rng);
  for (int64_t i = 0; i < n; i += block)
    std::memcpy(p_.get() + i, tile.data(), static_cast<size_t>(std::min(block, n - i)) * sizeof(float));
}

AlignedBytes::AlignedBytes(int64_t n) : p_(aligned_new<std::byte>(n)), n_(n) {}

}  // namespace rooftop
