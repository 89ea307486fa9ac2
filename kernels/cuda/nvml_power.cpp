// NVML energy counter via dlopen (see nvml_power.h). Declares the few NVML entry points it uses.
#include "kernels/cuda/nvml_power.h"

#include <dlfcn.h>

namespace rooftop::cuda {

namespace {
// From nvml.h: nvmlReturn_t is an int enum with NVML_SUCCESS = 0; nvmlDevice_t is an opaque pointer.
using NvmlInit = int (*)();
using NvmlShutdown = int (*)();
using NvmlByPci = int (*)(const char*, void**);
using NvmlEnergyFn = int (*)(void*, unsigned long long*);
using NvmlErrorString = const char* (*)(int);

std::string nvml_error(void* lib, int code) {
  auto fn = reinterpret_cast<NvmlErrorString>(dlsym(lib, "nvmlErrorString"));
  return fn ? fn(code) : "NVML error " + std::to_string(code);
}
}  // namespace

NvmlEnergy::NvmlEnergy(const std::string& pci_bus_id) {
  lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib_) {
    reason_ = "NVML not available (libnvidia-ml.so.1 not found)";
    return;
  }
  auto init = reinterpret_cast<NvmlInit>(dlsym(lib_, "nvmlInit_v2"));
  auto by_pci = reinterpret_cast<NvmlByPci>(dlsym(lib_, "nvmlDeviceGetHandleByPciBusId_v2"));
  get_energy_ = dlsym(lib_, "nvmlDeviceGetTotalEnergyConsumption");
  shutdown_ = dlsym(lib_, "nvmlShutdown");
  if (!init || !by_pci || !get_energy_ || !shutdown_) {
    reason_ = "NVML library lacks nvmlInit_v2 / nvmlDeviceGetHandleByPciBusId_v2 / nvmlDeviceGetTotalEnergyConsumption";
    dlclose(lib_);
    lib_ = nullptr;
    return;
  }
  if (int r = init(); r != 0) {
    reason_ = "nvmlInit_v2 failed: " + nvml_error(lib_, r);
    dlclose(lib_);
    lib_ = nullptr;
    return;
  }
  void* dev = nullptr;
  if (int r = by_pci(pci_bus_id.c_str(), &dev); r != 0 || !dev) {
    reason_ = "NVML has no device at PCI " + pci_bus_id + ": " + nvml_error(lib_, r);
    return;
  }
  device_ = dev;
}

NvmlEnergy::~NvmlEnergy() {
  if (lib_) {
    reinterpret_cast<NvmlShutdown>(shutdown_)();
    dlclose(lib_);
  }
}

std::optional<double> NvmlEnergy::energy_j() {
  if (!device_) return std::nullopt;
  unsigned long long mj = 0;
  if (int r = reinterpret_cast<NvmlEnergyFn>(get_energy_)(device_, &mj); r != 0) {
    reason_ = "nvmlDeviceGetTotalEnergyConsumption failed: " + nvml_error(lib_, r);
    return std::nullopt;
  }
  return double(mj) * 1e-3;
}

}  // namespace rooftop::cuda
