// ChipSpec: one device's capacity, bandwidth, dense peak rates, power and price, each with a source.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/calibrated_rates.h"

namespace rooftop {

struct ChipSpec {
  std::string id;                       // e.g. "h100-sxm"
  std::string card_id;                  // a measured device ("cuda:0"): the card it was matched to; "" = id is the card
  std::string name;                     // "NVIDIA H100 SXM5 80GB"
  std::string vendor;
  std::string kind;                     // "gpu", "accelerator", "cpu", "soc"
  std::string architecture;             // "ampere", "hopper", "apple-m2" ... (runtime profiles key on it); "" unknown
  double memory_bytes = 0;              // device memory capacity, decimal bytes
  double memory_bandwidth_bytes_per_s = 0;
  // Dense (never 2:4 sparse) peak FLOP/s by compute format name: "fp32", "tf32", "fp16", "bf16",
  // "fp8", "int8", "fp4". Absent format = the chip has no such rate.
  std::map<std::string, double> peak_flops;
  std::optional<double> tdp_watts;
  std::optional<double> usd_per_hour;
  std::string usd_per_hour_date;        // e.g. "2026-01"
  std::string usd_per_hour_source;
  std::optional<double> scaleup_bandwidth_bytes_per_s;  // per device, the vendor's bidirectional aggregate (NVLink 900 GB/s); the analyzer halves it
  std::optional<int64_t> scaleup_domain_size;           // devices in one scale-up domain
  std::optional<double> scaleout_bandwidth_bytes_per_s; // per device NIC (InfiniBand/Ethernet)
  std::optional<double> l2_bytes;
  std::optional<double> sram_bytes;     // on-chip SRAM (shared memory/L1 total, or SRAM of an ASIC)
  std::optional<int64_t> compute_units; // SMs, CUs, cores
  std::optional<double> boost_clock_hz; // the compute units' boost (peak) clock, as the vendor states it
  std::vector<std::string> sources;     // datasheets and vendor pages
  std::vector<std::string> notes;       // "illustrative" remarks, caveats
  // Where each figure came from: key -> "datasheet", "measured 2026-11-29", "derived", "assumed".
  std::map<std::string, std::string> provenance;
  // What `rooftop calibrate` measured on this chip (empty for a datasheet card): kernel rates and fixed costs.
  CalibratedRates measured;
  std::string file;                     // the YAML file this card came from ("" = built in / detected)
  // Bytes of one activation value in a pass's traffic: CPU engines (llama.cpp's, this project's) keep activations
  // in fp32; GPU and accelerator runtimes in 16 bits.
  double activation_value_bytes() const { return kind == "cpu" ? 4.0 : 2.0; }

  // Compute-unit cycles per second (units x boost clock); 0 when the card states either not. Runtime profiles price
  // per-unit limits on it (bytes streamed, vector-lane FLOPs per unit and cycle).
  double unit_cycles_per_s() const {
    if (compute_units.value_or(0) <= 0 || !(boost_clock_hz.value_or(0) > 0)) return 0;
    return static_cast<double>(*compute_units) * *boost_clock_hz;
  }

  // Peak for a compute format, or nullopt when the chip has none.
  std::optional<double> peak(const std::string& format) const {
    auto it = peak_flops.find(format);
    if (it == peak_flops.end()) return std::nullopt;
    return it->second;
  }
};

}  // namespace rooftop
