// The GPU API in a build without the CUDA toolkit: no devices, and calibrate / validate say why.
#include "base/errors.h"
#include "kernels/cuda/gpu.h"

namespace rooftop::gpu {

int device_count() { return 0; }

std::string no_device_reason() {
  return "this rooftop was built without the CUDA backend (configure with -DROOFTOP_CUDA=ON and the "
         "CUDA toolkit)";
}

GpuCalibration calibrate(int device, bool /*quick*/) {
  throw InputError("no CUDA device cuda:" + std::to_string(device) + ": " + no_device_reason() +
                   "; expected --device cpu");
}

GpuValidation validate(int device, bool /*quick*/, const std::vector<GpuPlanPoint>& /*plan*/) {
  throw InputError("no CUDA device cuda:" + std::to_string(device) + ": " + no_device_reason() +
                   "; expected --device cpu");
}

}  // namespace rooftop::gpu
