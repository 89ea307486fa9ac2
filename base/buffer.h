// AlignedFloats: a 64-byte-aligned float array filled with random non-zero values (mt19937).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace rooftop {

// A transparent huge page (x86-64, and arm64 with 4 KiB base pages): the alignment and page size that
// AlignedFloats/AlignedBytes of 4 MiB and more and the engine's weights (GgufFile::populate) ask for.
constexpr size_t kHugePageBytes = size_t(2) << 20;

class AlignedFloats {
 public:
  AlignedFloats() = default;
  // n floats, each in [0.5, 1.5) (never zero), from mt19937(seed). Every page is written (touched).
  AlignedFloats(int64_t n, uint32_t seed);
  float* data() { return p_.get(); }
  const float* data() const { return p_.get(); }
  int64_t size() const { return n_; }
  std::span<float> span() { return {p_.get(), static_cast<size_t>(n_)}; }
  std::span<const float> span() const { return {p_.get(), static_cast<size_t>(n_)}; }

 private:
  struct Free {
    void operator()(float* p) const;
  };
  std::unique_ptr<float, Free> p_;
  int64_t n_ = 0;
};

// 64-byte-aligned raw bytes (weights): uninitialized; the caller fills every byte.
struct AlignedBytes {
  AlignedBytes() = default;
  explicit AlignedBytes(int64_t n);
  std::byte* data() { return p_.get(); }
  const std::byte* data() const { return p_.get(); }
  int64_t size() const { return n_; }

 private:
  struct Free {
    void operator()(std::byte* p) const;
  };
  std::unique_ptr<std::byte, Free> p_;
  int64_t n_ = 0;
};

}  // namespace rooftop
