// The table of chip-card keys: names match ChipSpec's fields, units in the names.
#include "hwdb/card_keys.h"

namespace rooftop::hwdb {

const std::vector<CardKey>& card_keys() {
  static const std::vector<CardKey> keys = {
      {"id", CardValue::text, true, "a lowercase id such as 'h100-sxm'"},
      {"name", CardValue::text, true, "a display name"},
      {"vendor", CardValue::text, true, "the vendor's name"},
      {"kind", CardValue::text, true, "one of gpu, accelerator, cpu, soc"},
      {"architecture", CardValue::text, false, "the chip's architecture, one of `architectures()` (ampere, hopper, apple-m2 ...)"},
      {"memory_bytes", CardValue::positive, true, "a positive number of bytes (decimal, e.g. 80.0e9)"},
      {"memory_bandwidth_bytes_per_s", CardValue::positive, true, "a positive number of bytes/s (e.g. 3.35e12)"},
      {"peak_flops", CardValue::flops_map, true, "a map of format -> dense FLOP/s (e.g. bf16: 989.4e12)"},
      {"tdp_watts", CardValue::positive, false, "a positive number of watts"},
      {"usd_per_hour", CardValue::positive, false, "a positive number of US dollars per hour"},
      {"usd_per_hour_date", CardValue::text, false, "the price's date, e.g. \"2026-05\""},
      {"usd_per_hour_source", CardValue::text, false, "where the price comes from"},
      {"scaleup_bandwidth_bytes_per_s", CardValue::positive, false, "a positive number of bytes/s"},
      {"scaleup_domain_size", CardValue::count, false, "a positive integer number of devices"},
      {"scaleout_bandwidth_bytes_per_s", CardValue::positive, false, "a positive number of bytes/s"},
      {"l2_bytes", CardValue::positive, false, "a positive number of bytes"},
      {"sram_bytes", CardValue::positive, false, "a positive number of bytes"},
      {"compute_units", CardValue::count, false, "a positive integer (SMs, CUs, cores)"},
      {"boost_clock_hz", CardValue::positive, false, "a positive clock rate in Hz (e.g. 1.41e9)"},
      {"provenance", CardValue::provenance_map, false, "a map of figure key -> datasheet|derived|assumed"},
      {"sources", CardValue::text_list, true, "a non-empty list of URLs"},
      {"notes", CardValue::text_list, false, "a list of strings"},
  };
  return keys;
}

const std::vector<std::string>& architectures() {
  // Runtime profiles key their fitted efficiencies by architecture: one generation's chips share kernels.
  static const std::vector<std::string> names = {
      "pascal", "volta", "turing", "ampere", "ada", "hopper", "blackwell",              // NVIDIA
      "apple-m1", "apple-m2", "apple-m3", "apple-m4",                                   // Apple GPUs
      "rdna1", "rdna2", "rdna3", "rdna4", "cdna2", "cdna3", "cdna4",                    // AMD
      "tpu", "trainium", "zen4", "armv9", "x86", "arm"};                                // others, CPUs
  return names;
}

const std::vector<std::string>& flops_formats() {
  static const std::vector<std::string> formats = {"fp32", "tf32", "fp16", "fp16_acc16", "bf16", "fp8", "int8", "fp4"};
  return formats;
}

std::vector<std::string> provenance_keys() {
  std::vector<std::string> out;
  for (const auto& k : card_keys())
    if (k.value == CardValue::positive || k.value == CardValue::count) out.push_back(k.name);
  for (const auto& f : flops_formats()) out.push_back("peak_flops." + f);
  return out;
}

}  // namespace rooftop::hwdb
