// JSON view of a GPU calibration record (SI units, no unit suffixes in values, null + note when absent).
#include "kernels/cuda/gpu.h"

#include <nlohmann/json.hpp>

#include "base/json.h"

namespace rooftop::gpu {

namespace {
nlohmann::json optional_number(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}
}  // namespace

std::string to_json(const GpuCalibration& c) {
  nlohmann::ordered_json j;
  ROOFTOP_JSON_FIELDS(j, c, schema, date, quick);
  j["machine"] = {{"name", c.machine.name},           {"device", c.machine.device},
                  {"sm_count", c.machine.sm_count},   {"memory_bytes", c.machine.memory_bytes},
                  {"cc", c.machine.cc},               {"fingerprint", c.machine.fingerprint}};
  j["memory_bandwidth_bytes_per_s"] = c.memory_bandwidth_bytes_per_s;
  j["stream"] = {{"copy", c.copy_bytes_per_s}, {"read", c.memory_bandwidth_bytes_per_s}};
  nlohmann::ordered_json peaks = nlohmann::ordered_json::object();
  for (const auto& [fmt, flops] : c.peak_flops) peaks[fmt] = flops;
  j["peak_flops"] = peaks;
  nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
  for (const auto& k : c.kernels) {
    nlohmann::ordered_json e;
    ROOFTOP_JSON_FIELDS(e, k, name, op, format, m, k);
    if (k.n) e["n"] = k.n;
    ROOFTOP_JSON_FIELDS(e, k, seconds_median, seconds_spread, bytes_per_s, flops_per_s, ceiling, fraction_of_ceiling,
                        dram_bytes_counted);
    e["dram_bytes_measured"] = optional_number(k.dram_bytes_measured);
    if (k.dram_bytes_measured && k.dram_bytes_counted > 0)
      e["dram_bytes_measured_over_counted"] = *k.dram_bytes_measured / double(k.dram_bytes_counted);
    if (!k.dram_bytes_note.empty()) e["dram_bytes_note"] = k.dram_bytes_note;
    kernels.push_back(e);
  }
  j["kernels"] = kernels;
  j["power_watts_during_decode"] = optional_number(c.power_watts_during_decode);
  j["joules_per_token"] = optional_number(c.joules_per_token);
  if (!c.power_note.empty()) j["power_note"] = c.power_note;
  j["notes"] = c.notes;
  return j.dump(2);
}

}  // namespace rooftop::gpu
