// The GPU API in the rooftop executable: device discovery, calibration and validation forwarded to the CUDA
// module (librooftop_cuda.so, gpu_module.cpp), opened on first use. The module's path is where the build put it,
// else next to the executable. Without it (or without the CUDA libraries it needs) there are no devices and
// no_device_reason() says why.
#include <dlfcn.h>
#include <unistd.h>

#include <filesystem>
#include <mutex>
#include <string>

#include "base/errors.h"
#include "kernels/cuda/gpu.h"

namespace rooftop::gpu {
namespace {

struct Module {
  void* handle = nullptr;
  std::string error;  // why it did not open
  int (*device_count)() = nullptr;
  void (*no_device_reason)(std::string*) = nullptr;
  void (*calibrate)(int, bool, GpuCalibration*) = nullptr;
  void (*validate)(int, bool, const std::vector<GpuPlanPoint>*, GpuValidation*) = nullptr;
};

std::string executable_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

const Module& module() {
  static Module m;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string tried;
    for (const std::string& path : {std::string(ROOFTOP_GPU_MODULE), executable_dir() + "/librooftop_cuda.so"}) {
      if (path.empty() || path == "/librooftop_cuda.so" || !std::filesystem::exists(path)) continue;
      m.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (m.handle) break;
      const char* e = dlerror();
      tried += (tried.empty() ? "" : "; ") + path + ": " + (e ? e : "dlopen failed");
    }
    if (!m.handle) {
      m.error = tried.empty() ? "the CUDA module librooftop_cuda.so was not found (build with the CUDA toolkit)"
                              : "the CUDA module did not load (" + tried + ")";
      return;
    }
    m.device_count = reinterpret_cast<int (*)()>(dlsym(m.handle, "rooftop_gpu_device_count"));
    m.no_device_reason = reinterpret_cast<void (*)(std::string*)>(dlsym(m.handle, "rooftop_gpu_no_device_reason"));
    m.calibrate = reinterpret_cast<void (*)(int, bool, GpuCalibration*)>(dlsym(m.handle, "rooftop_gpu_calibrate"));
    m.validate = reinterpret_cast<void (*)(int, bool, const std::vector<GpuPlanPoint>*, GpuValidation*)>(dlsym(m.handle, "rooftop_gpu_validate_plan"));
    if (!m.device_count || !m.no_device_reason || !m.calibrate || !m.validate) {
      m.error = "the CUDA module lacks its entry points (a stale build?)";
      m.handle = nullptr;
    }
  });
  return m;
}

[[noreturn]] void no_device(int device) {
  throw InputError("no CUDA device cuda:" + std::to_string(device) + ": " + module().error + "; expected --device cpu");
}

}  // namespace

int device_count() { return module().handle ? module().device_count() : 0; }

std::string no_device_reason() {
  if (!module().handle) return module().error;
  std::string r;
  module().no_device_reason(&r);
  return r;
}

GpuCalibration calibrate(int device, bool quick) {
  if (!module().handle) no_device(device);
  GpuCalibration c;
  module().calibrate(device, quick, &c);
  return c;
}

GpuValidation validate(int device, bool quick, const std::vector<GpuPlanPoint>& plan) {
  if (!module().handle) no_device(device);
  GpuValidation v;
  module().validate(device, quick, &plan, &v);
  return v;
}

}  // namespace rooftop::gpu
