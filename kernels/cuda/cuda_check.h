// Checked CUDA / cuBLAS calls: a failure throws std::runtime_error naming file:line and the error.
#pragma once
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace rooftop::cuda {

[[noreturn]] inline void fail_cuda(cudaError_t e, const char* call, const char* file, int line) {
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " +
                           cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}
[[noreturn]] inline void fail_status(int status, const char* lib, const char* call, const char* file,
                                     int line) {
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " +
                           lib + " status " + std::to_string(status));
}

}  // namespace rooftop::cuda

// CUDA_CHECK(cudaMalloc(...)): throws on anything but cudaSuccess.
#define CUDA_CHECK(call)                                                              \
  do {                                                                                \
    cudaError_t rooftop_e_ = (call);                                                  \
    if (rooftop_e_ != cudaSuccess) ::rooftop::cuda::fail_cuda(rooftop_e_, #call, __FILE__, __LINE__); \
  } while (0)
// After a kernel launch: the launch error, if any.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
// CUBLAS_CHECK(cublasLtMatmul(...)): throws on anything but CUBLAS_STATUS_SUCCESS (value 0).
#define CUBLAS_CHECK(call)                                                            \
  do {                                                                                \
    int rooftop_s_ = static_cast<int>(call);                                          \
    if (rooftop_s_ != 0) ::rooftop::cuda::fail_status(rooftop_s_, "cuBLAS", #call, __FILE__, __LINE__); \
  } while (0)
