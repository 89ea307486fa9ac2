// Roofline: attainable = min(peak, intensity x bandwidth); ridge = peak / bandwidth (seed 002).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analyzer/chip_spec.h"
#include "analyzer/memory.h"

namespace rooftop {

struct RooflinePoint {
  std::string name;             // "prefill 1024", "decode x32"
  std::string phase;            // "prefill" or "decode"
  int64_t batch = 1;
  double flops = 0, bytes = 0;
  double arithmetic_intensity = 0;  // FLOPs per byte
  double attainable_flops = 0;      // FLOP/s
  std::string bound;                // "memory" or "compute"
};

struct RooflineResult {
  std::string model, hw, precision, compute_format;
  double peak_flops = 0, memory_bandwidth_bytes_per_s = 0, ridge_flops_per_byte = 0;
  std::vector<RooflinePoint> points;
  std::vector<std::string> assumptions;
  std::map<std::string, std::string> provenance;  // figure -> "datasheet" / "measured <date>" / "derived"
};

double attainable_flops(double intensity, double peak, double bandwidth);

struct RooflineOptions {
  std::vector<int64_t> decode_batches = {1, 8, 32, 256, 1024};
  int64_t prompt_tokens = 1024;
  int64_t context = 1024;
  bool simple = false;          // the seeds' points: weights only
  std::string compute_format;   // "" = the weight format's natural compute format on this chip
};

RooflineResult roofline(const ModelSpec& m, const ChipSpec& chip, const PrecisionPlan& p, const RooflineOptions& o);

// The chip's roofline alone (`rooftop roofline --hw X` without a model): one roof per compute format it has a
// dense peak for, all under the one memory bandwidth, each with its ridge point.
struct ChipRoof {
  std::string format;
  double peak_flops = 0, ridge_flops_per_byte = 0;
};
struct ChipRoofline {
  std::string hw, name;
  double memory_bandwidth_bytes_per_s = 0;
  std::vector<ChipRoof> roofs;                    // fastest peak first; formats of equal peak share one ("bf16/fp16")
  std::map<std::string, std::string> provenance;  // figure -> "datasheet" / "measured <date>" / "derived"
};
ChipRoofline chip_roofline(const ChipSpec& chip);

}  // namespace rooftop
