// select_device: check a --device cuda:N ordinal, make it current and describe it (shared by calibrate/validate).
#pragma once
#include "kernels/cuda/gpu.h"

namespace rooftop::gpu {

// InputError ("no CUDA device cuda:N ...") when there is no device or N is out of range; otherwise
// cudaSetDevice(N) and the machine's name, SM count, memory, compute capability and fingerprint.
GpuMachine select_device(int device);

}  // namespace rooftop::gpu
