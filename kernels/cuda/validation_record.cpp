// Host arithmetic of the GPU bandwidth-law sweep (its formats, the law, summary, JSON);
// built with and without CUDA.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "base/errors.h"
#include "base/json.h"
#include "kernels/cuda/gpu.h"

namespace rooftop::gpu {

const std::vector<std::string>& validation_formats() {
  static const std::vector<std::string> formats = {"bf16", "fp8_e4m3", "q8_0", "q4_1"};
  return formats;
}

void apply_law(GpuValidationPoint& p, double bw) {
  if (!(p.bytes_per_token > 0) || !(p.seconds_median > 0) || !(bw > 0) || !std::isfinite(p.seconds_median) || !std::isfinite(bw))
    throw InputError("bandwidth law for " + p.model + " " + p.format + ": bytes_per_token " + std::to_string(p.bytes_per_token) +
                     ", seconds " + std::to_string(p.seconds_median) + ", bandwidth " + std::to_string(bw) +
                     "; expected all three positive");
  p.measured_tokens_per_s = 1.0 / p.seconds_median;
  p.achieved_bytes_per_s = double(p.bytes_per_token) / p.seconds_median;
  p.predicted_tokens_per_s = bw / double(p.bytes_per_token);
  p.relative_error = (p.predicted_tokens_per_s - p.measured_tokens_per_s) / p.measured_tokens_per_s;
}

void summarize(GpuValidation& v) {
  std::vector<double> e;
  for (const auto& p : v.points) e.push_back(std::fabs(p.relative_error));
  v.median_abs_relative_error = v.max_abs_relative_error = 0;
  if (e.empty()) return;
  std::sort(e.begin(), e.end());
  const size_t n = e.size();
  v.median_abs_relative_error = n % 2 ? e[n / 2] : 0.5 * (e[n / 2 - 1] + e[n / 2]);
  v.max_abs_relative_error = e.back();
}

std::string to_json(const GpuValidation& v) {
  nlohmann::ordered_json j;
  ROOFTOP_JSON_FIELDS(j, v, schema, date, quick);
  j["machine"] = {{"name", v.machine.name}, {"device", v.machine.device}, {"sm_count", v.machine.sm_count},
                  {"memory_bytes", v.machine.memory_bytes}, {"cc", v.machine.cc}, {"fingerprint", v.machine.fingerprint}};
  j["memory_bandwidth_bytes_per_s"] = v.memory_bandwidth_bytes_per_s;
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (const auto& p : v.points) {
    points.push_back({{"model", p.model}, {"format", p.format}, {"context", p.context},
                      {"bytes_per_token", p.bytes_per_token}, {"launches_per_token", p.launches_per_token},
                      {"seconds_median", p.seconds_median}, {"seconds_spread", p.seconds_spread},
                      {"measured_tokens_per_s", p.measured_tokens_per_s}, {"achieved_bytes_per_s", p.achieved_bytes_per_s},
                      {"predicted_tokens_per_s", p.predicted_tokens_per_s}, {"relative_error", p.relative_error},
                      {"bound", "memory"}});  // batch-1 decode: every point is memory-bound
  }
  j["points"] = points;
  j["summary"] = {{"points", v.points.size()},  // DESIGN.md validate keys
                  {"median_abs_error_memory_bound", v.median_abs_relative_error},
                  {"max_abs_error_memory_bound", v.max_abs_relative_error}};
  j["notes"] = v.notes;
  return j.dump(2);
}

}  // namespace rooftop::gpu
