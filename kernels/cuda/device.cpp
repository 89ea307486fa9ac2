// Device discovery for the CUDA build: how many devices, and why none.
#include <cuda_runtime.h>

#include <string>

#include "base/errors.h"
#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/gpu.h"
#include "kernels/cuda/select_device.h"

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


GpuMachine select_device(int device) {
  const int n = device_count();
  if (n == 0)
    throw InputError("no CUDA device cuda:" + std::to_string(device) + " (" + no_device_reason() +
                     "); expected --device cpu");
  if (device < 0 || device >= n)
    throw InputError("no CUDA device cuda:" + std::to_string(device) + "; this machine has " + std::to_string(n) +
                     " (cuda:0" + (n > 1 ? "..cuda:" + std::to_string(n - 1) : std::string()) + ")");
  CUDA_CHECK(cudaSetDevice(device));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  GpuMachine m;
  m.name = prop.name;
  m.device = device;
  m.sm_count = prop.multiProcessorCount;
  m.memory_bytes = int64_t(prop.totalGlobalMem);
  m.cc = std::to_string(prop.major) + "." + std::to_string(prop.minor);
  m.fingerprint = m.name + "|" + std::to_string(prop.multiProcessorCount) + "|" +
                  std::to_string(int64_t(double(prop.totalGlobalMem) / 1e9 + 0.5));
  return m;
}

}  // namespace rooftop::gpu
