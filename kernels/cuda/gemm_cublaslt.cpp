// GEMM through cuBLASLt (see gemm_cublaslt.h).
#include "kernels/cuda/gemm_cublaslt.h"

#include <cublasLt.h>

#include <string>

#include "base/errors.h"
#include "kernels/cuda/cuda_check.h"

namespace rooftop::cuda {

LtGemm::LtGemm(size_t workspace_bytes) : workspace_bytes_(workspace_bytes) {
  cublasLtHandle_t h = nullptr;
  CUBLAS_CHECK(cublasLtCreate(&h));
  handle_ = h;
  if (cudaMalloc(&workspace_, workspace_bytes_) != cudaSuccess) {
    cublasLtDestroy(h);
    CUDA_CHECK(cudaGetLastError());
    throw std::runtime_error("cudaMalloc of the cuBLASLt workspace failed");
  }
}

LtGemm::~LtGemm() {
  cudaFree(workspace_);
  cublasLtDestroy(static_cast<cublasLtHandle_t>(handle_));
}

void LtGemm::run(GemmFormat format, int64_t m, int64_t n, int64_t k, const void* A, const void* B, void* D,
                 cudaStream_t s) {
  if (m <= 0 || n <= 0 || k <= 0 || m % 16 || n % 16 || k % 16)
    throw InputError("cuBLASLt GEMM: (m, n, k) = (" + std::to_string(m) + ", " + std::to_string(n) + ", " +
                     std::to_string(k) + "); expected positive multiples of 16");
  const cudaDataType_t ab = format == GemmFormat::bf16 ? CUDA_R_16BF : CUDA_R_8F_E4M3;
  auto h = static_cast<cublasLtHandle_t>(handle_);
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, ld = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  auto cleanup = [&] {
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (ld) cublasLtMatrixLayoutDestroy(ld);
    if (lb) cublasLtMatrixLayoutDestroy(lb);
    if (la) cublasLtMatrixLayoutDestroy(la);
    if (op) cublasLtMatmulDescDestroy(op);
  };
  try {
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)));
    // Column-major views: A is (k, m) ld k (row-major (m, k)); B is (k, n) ld k; D is (m, n) ld m.
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&la, ab, uint64_t(k), uint64_t(m), k));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&lb, ab, uint64_t(k), uint64_t(n), k));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&ld, CUDA_R_16BF, uint64_t(m), uint64_t(n), m));
    CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                      &workspace_bytes_, sizeof(workspace_bytes_)));
    cublasLtMatmulHeuristicResult_t heur{};
    int found = 0;
    CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(h, op, la, lb, ld, ld, pref, 1, &heur, &found));
    if (found == 0) throw std::runtime_error("cuBLASLt found no algorithm for this GEMM");
    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasLtMatmul(h, op, &alpha, A, la, B, lb, &beta, D, ld, D, ld, &heur.algo, workspace_,
                                workspace_bytes_, s));
  } catch (...) {
    cleanup();
    throw;
  }
  cleanup();
}

}  // namespace rooftop::cuda
