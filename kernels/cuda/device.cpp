// Device discovery for the CUDA build: how many devices, and why none.
#include <cuda_runtime.h>

#include <string>

#include "kernels/cuda/gpu.h"

namespace rooftop::gpu {

namespace {
cudaError_t query(int* n) {
  *n = 0;
  const cudaError_t e = cudaGetDeviceCount(n);
  if (e != cudaSuccess) *n = 0;
  return e;
}
}  // namespace

int device_count() {
  int n = 0;
  query(&n);
  return n;
}

std::string no_device_reason() {
  int n = 0;
  const cudaError_t e = query(&n);
  if (e == cudaSuccess && n > 0) return "";
  if (e == cudaSuccess) return "cudaGetDeviceCount reports 0 devices";
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

}  // namespace rooftop::gpu
