// A calibrated GPU as a chip ("cuda:0"): the database card matching the measured device name, with the
// figures of cache_dir()/calibration/cuda<N>.json (written by `rooftop calibrate --device cuda:N`) overlaid.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "analyzer/chip_spec.h"
#include "hwdb/hwdb.h"

namespace rooftop::hwdb {

inline constexpr const char* gpu_calibration_schema = "rooftop-gpu-calibration-1";

// "cuda:0" or "cuda0" -> 0; anything else (including "cuda:", "cuda:-1", "cuda:x") -> nullopt.
std::optional<int> gpu_device_id(std::string_view id);
// cache_dir()/calibration/cuda<N>.json
std::string gpu_calibration_path(int device);
// Id of the card for a CUDA device name ("NVIDIA H200" -> "h200", "NVIDIA H100 80GB HBM3" -> "h100-sxm"):
// a small table first, else the one card whose name contains the device name without "NVIDIA ".
// "" when nothing (or more than one card) matches.
std::string match_gpu_card(const std::string& device_name, const Database& db);

// The matched card with the calibration (JSON text) overlaid, id "cuda:<device>", every measured figure
// with provenance "measured <date>". nullopt and one line in *why on a damaged file, another schema or
// device, or a device name that matches no card; on success *why is cleared.
std::optional<ChipSpec> apply_gpu_calibration(const std::string& json_text, int device, const Database& db,
                                              std::string* why);
// Same, read from gpu_calibration_path(device); nullopt with *why when the file is absent or unreadable.
std::optional<ChipSpec> calibrated_gpu(int device, const Database& db, std::string* why);
// calibrated_gpu, or InputError naming the file and `rooftop calibrate --device cuda:N`.
ChipSpec require_calibrated_gpu(int device, const Database& db);

}  // namespace rooftop::hwdb
