// An owning device allocation (cudaMalloc'd, 256-byte aligned) with checked upload/download helpers.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "kernels/cuda/cuda_check.h"

namespace rooftop::cuda {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) { CUDA_CHECK(cudaMalloc(&ptr_, bytes ? bytes : 1)); }
  ~DeviceBuffer() { if (ptr_) cudaFree(ptr_); }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(o.bytes_) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  template <class T = void> T* get() const { return static_cast<T*>(ptr_); }
  size_t bytes() const { return bytes_; }
  // NaN-poison (all bits set: a NaN in fp32, fp16 and bf16) so a kernel that skips an element shows.
  void poison(cudaStream_t s) { CUDA_CHECK(cudaMemsetAsync(ptr_, 0xFF, bytes_, s)); }
  void upload(const void* host, size_t bytes) { CUDA_CHECK(cudaMemcpy(ptr_, host, bytes, cudaMemcpyHostToDevice)); }
  template <class T> std::vector<T> download(size_t count) const {
    std::vector<T> v(count);
    CUDA_CHECK(cudaMemcpy(v.data(), ptr_, count * sizeof(T), cudaMemcpyDeviceToHost));
    return v;
  }
  // Fill the whole buffer by repeating `pattern` (host bytes): one upload, then doubling copies.
  void upload_tiled(const std::vector<uint8_t>& pattern) {
    const size_t first = pattern.size() < bytes_ ? pattern.size() : bytes_;
    CUDA_CHECK(cudaMemcpy(ptr_, pattern.data(), first, cudaMemcpyHostToDevice));
    for (size_t done = first; done < bytes_;) {
      const size_t n = done < bytes_ - done ? done : bytes_ - done;
      CUDA_CHECK(cudaMemcpy(get<uint8_t>() + done, ptr_, n, cudaMemcpyDeviceToDevice));
      done += n;
    }
  }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace rooftop::cuda
