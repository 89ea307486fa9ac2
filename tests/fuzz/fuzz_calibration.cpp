// Fuzz target: a calibration file (CPU and GPU readers) over a fixed made-up chip, then the analyzer's
// CPU prediction from what was accepted (the calibrated rates are parsed back there). A rejected file
// is reported through `why`, never thrown; the seeds carry this chip's fingerprint ("fuzz|2|8") so
// mutations reach past the fingerprint check.
#include <cstddef>
#include <cstdint>
#include <string>

#include "analyzer/chip_spec.h"
#include "analyzer/speed.h"
#include "base/errors.h"
#include "hwdb/calibration.h"
#include "hwdb/gpu_calibration.h"
#include "hwdb/hwdb.h"
#include "models/models.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const rooftop::hwdb::Database db = rooftop::hwdb::load();
  rooftop::ChipSpec chip;
  chip.id = "fuzz";
  chip.name = "fuzz";
  chip.kind = "cpu";
  chip.compute_units = 2;
  chip.memory_bytes = 8e9;
  chip.memory_bandwidth_bytes_per_s = 3e10;
  chip.peak_flops["fp32"] = 1e11;
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::string why, why_gpu;
  const rooftop::ChipSpec calibrated = rooftop::hwdb::apply_calibration(chip, text, &why);
  (void)rooftop::hwdb::apply_gpu_calibration(text, 0, db, &why_gpu);
  if (why.empty()) {  // accepted: predict SmolLM2-135M (its card; q8_0 weights) from the calibrated figures
    static const rooftop::ModelSpec m = *rooftop::models::load().find("smollm2-135m");
    rooftop::PrecisionPlan plan;
    plan.weights = "q8_0";
    plan.kv = "fp32";
    rooftop::SpeedOptions o;
    o.batches = {1, 4};
    o.prompt_tokens = 64;
    o.output_tokens = 16;
    try {
      (void)rooftop::speed(m, calibrated, plan, o);
    } catch (const rooftop::InputError&) {
    }
  }
  return 0;
}
