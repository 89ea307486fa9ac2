// GPU energy counter through NVML, opened at run time (libnvidia-ml ships with the driver).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace rooftop::cuda {

// Reads the total energy counter (millijoules since driver load, Volta and newer) of the GPU at
// `pci_bus_id` (from cudaDeviceGetPCIBusId, so NVML and CUDA agree on the device).
class NvmlEnergy {
 public:
  explicit NvmlEnergy(const std::string& pci_bus_id);
  ~NvmlEnergy();
  NvmlEnergy(const NvmlEnergy&) = delete;
  NvmlEnergy& operator=(const NvmlEnergy&) = delete;
  bool ok() const { return device_ != nullptr; }
  const std::string& reason() const { return reason_; }  // why !ok()
  std::optional<double> energy_j();                      // nullopt if a read fails (reason() says why)

 private:
  void* lib_ = nullptr;
  void* device_ = nullptr;  // nvmlDevice_t
  void* get_energy_ = nullptr;
  void* shutdown_ = nullptr;
  std::string reason_;
};

}  // namespace rooftop::cuda
