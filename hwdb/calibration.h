// The calibration file (measure/calibration_schema.md): this machine's fingerprint and the overlay of
// measured figures onto a ChipSpec. The calibrate writer and the hwdb reader share these two functions.
#pragma once
#include <string>

#include "analyzer/chip_spec.h"

namespace rooftop::hwdb {

inline constexpr const char* calibration_schema = "rooftop-calibration-1";

// "<cpu_model>|<cores>|<memory_bytes rounded to GB>", from the chip's name, compute_units and memory_bytes.
// Write it as machine.fingerprint, computed from detect_host_cpu().
std::string machine_fingerprint(const ChipSpec& chip);

// `chip` with the measured figures of a calibration file overlaid (provenance "measured <date>").
// All or nothing: a damaged file, another schema, or another machine's fingerprint returns `chip`
// unchanged and, when why_rejected is given, one line saying why; on success *why_rejected is cleared.
ChipSpec apply_calibration(ChipSpec chip, const std::string& json_text, std::string* why_rejected);

// detect_host_cpu() overlaid with calibration_path() when that file exists and is valid; a rejected
// file is reported with one line on stderr and ignored.
ChipSpec calibrated_host_cpu();

}  // namespace rooftop::hwdb
