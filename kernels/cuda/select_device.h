// select_device: check a --device cuda:N ordinal, make it current and describe it (shared by calibrate/validate).
#pragma once
#include "base/clock.h"
#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/gpu.h"

namespace rooftop::gpu {

// InputError ("no CUDA device cuda:N ...") when there is no device or N is out of range; otherwise
// cudaSetDevice(N) and the machine's name, SM count, memory, compute capability and fingerprint.
GpuMachine select_device(int device);

// Starts a record (GpuCalibration, GpuValidation) on `device`: its date, quick flag and machine (select_device);
// returns the device's properties.
template <class Record>
cudaDeviceProp start_record(Record& r, int device, bool quick) {
  r.date = utc_now_iso8601();
  r.quick = quick;
  r.machine = select_device(device);
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  return prop;
}

}  // namespace rooftop::gpu
