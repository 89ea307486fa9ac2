// GEMM through cuBLASLt in bf16 or fp8 e4m3 (fp32 accumulation, bf16 output): the compute roof.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace rooftop::cuda {

enum class GemmFormat { bf16, fp8_e4m3 };

// D (n, m) row-major = B (n, k) row-major * A (m, k)^T, i.e. every token row times every weight row
// (cuBLAS "TN": column-major D (m, n) = A^T B). A and B in `format`, D in bf16. m, n, k multiples of 16.
// The handle and workspace live for the object's lifetime.
class LtGemm {
 public:
  LtGemm(size_t workspace_bytes = size_t(32) << 20);
  ~LtGemm();
  LtGemm(const LtGemm&) = delete;
  LtGemm& operator=(const LtGemm&) = delete;
  void run(GemmFormat format, int64_t m, int64_t n, int64_t k, const void* A, const void* B, void* D,
           cudaStream_t s);

 private:
  void* handle_ = nullptr;     // cublasLtHandle_t
  void* workspace_ = nullptr;
  size_t workspace_bytes_ = 0;
};

}  // namespace rooftop::cuda
