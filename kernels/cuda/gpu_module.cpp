// The entry points of librooftop_cuda.so, the CUDA backend as a module: gpu_loader.cpp opens it with dlopen only
// when a command asks for a GPU, so CPU commands never load the CUDA runtime, cuBLAS(Lt) and CUPTI (about 150 MB
// of resident memory and their start-up time). C names for dlsym; C++ types on both sides (one build, one
// compiler), exceptions (InputError) pass through.
#include <string>

#include "kernels/cuda/gpu.h"

extern "C" {
__attribute__((visibility("default"))) int rooftop_gpu_device_count() { return rooftop::gpu::device_count(); }
__attribute__((visibility("default"))) void rooftop_gpu_no_device_reason(std::string* out) {
  *out = rooftop::gpu::no_device_reason();
}
__attribute__((visibility("default"))) void rooftop_gpu_calibrate(int device, bool quick, rooftop::gpu::GpuCalibration* out) {
  *out = rooftop::gpu::calibrate(device, quick);
}
__attribute__((visibility("default"))) void rooftop_gpu_validate_plan(int device, bool quick, const std::vector<rooftop::gpu::GpuPlanPoint>* plan,
                                                                rooftop::gpu::GpuValidation* out) {
  *out = rooftop::gpu::validate(device, quick, *plan);
}
}
