// Reading the calibration file: validate schema and fingerprint, then overlay measured ceilings and kernel rates.
#include "hwdb/calibration.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/files.h"
#include "base/json.h"
#include "base/text.h"
#include "hwdb/hwdb.h"
#include "hwdb/json_fields.h"

namespace rooftop::hwdb {
namespace {

using nlohmann::json;
using namespace json_fields;

void overlay(ChipSpec& c, const json& j, const std::string& fingerprint) {
  schema(j, calibration_schema);
  const json& machine = object(j, "machine", "");
  std::string theirs = text(machine, "fingerprint", "machine.");
  if (theirs != fingerprint)
    throw Rejected{"written on another machine (fingerprint '" + theirs + "', this machine '" + fingerprint + "')"};
  const std::string measured = measured_on(j);
  c.measured.measured_at = text(j, "date", "");

  auto set = [&](const std::string& key, double v) { measured_figure(c, key, v, measured); };
  c.memory_bandwidth_bytes_per_s = number(j, "memory_bandwidth_bytes_per_s", "", true);
  c.provenance["memory_bandwidth_bytes_per_s"] = measured;
  if (j.contains("memory_bandwidth_1thread_bytes_per_s"))
    set("memory_bandwidth_1thread_bytes_per_s", number(j, "memory_bandwidth_1thread_bytes_per_s", "", true));

  if (j.contains("peak_flops")) {
    for (const auto& [fmt, v] : object(j, "peak_flops", "").items()) {
      double x = number(j.at("peak_flops"), fmt, "peak_flops.", false);
      if (x == 0) continue;  // not measured
      c.peak_flops[fmt] = x;
      c.provenance["peak_flops." + fmt] = measured;
    }
    if (c.provenance.count("peak_flops.fp32")) c.provenance["peak_flops"] = c.provenance["peak_flops.fp32"];
  }
  if (j.contains("stream"))
    for (const auto& [name, v] : object(j, "stream", "").items()) {
      double x = number(j.at("stream"), name, "stream.", false);
      if (x > 0) set("stream_" + name + "_bytes_per_s", x);
    }
  if (j.contains("levels")) {
    if (!j.at("levels").is_array()) throw Rejected{"levels is not a list"};
    for (const auto& level : j.at("levels")) {
      if (!level.is_object()) throw Rejected{"levels[] holds a non-object"};
      std::string name = ascii_lower(text(level, "name", "levels[]."));
      double bw = number(level, "bandwidth_bytes_per_s", "levels[" + name + "].", false);
      if (bw > 0) set(name + "_bytes_per_s", bw);
    }
  }
  if (j.contains("kernels")) {
    if (!j.at("kernels").is_array()) throw Rejected{"kernels is not a list"};
    // A format whose GEMM model this file derives ("gemm_<fmt>_pack") replaces the stored model whole: a refresh
    // that could not derive a part (noise) must not leave the older run's part beside its new ones.
    for (const auto& k : j.at("kernels"))
      if (k.is_object() && k.contains("name") && k.at("name").is_string()) {
        const std::string name = k.at("name").get<std::string>();
        if (name.size() > 10 && name.rfind("gemm_", 0) == 0 && name.compare(name.size() - 5, 5, "_pack") == 0)
          c.measured.clear_gemm(std::string_view(name).substr(5, name.size() - 10));
      }
    for (const auto& k : j.at("kernels")) {
      if (!k.is_object()) throw Rejected{"kernels[] holds a non-object"};
      std::string name = text(k, "name", "kernels[].");
      std::string where = "kernels[" + name + "].";
      double bytes = k.contains("bytes_per_s") ? number(k, "bytes_per_s", where, false) : 0;
      double flops = k.contains("flops_per_s") ? number(k, "flops_per_s", where, false) : 0;
      if (bytes > 0) set(name + "_bytes_per_s", bytes);
      if (flops > 0) set(name + "_flops_per_s", flops);
      if (k.contains("fraction_of_ceiling")) {
        double f = number(k, "fraction_of_ceiling", where, false);
        if (f > 0) set(name + "_fraction_of_ceiling", f);
      }
    }
  }
  // {fmt: {k from: tokens}} (a step function of the row length); {fmt: tokens} in files before 2026-12-05's second
  // form (one threshold for every width, from k = 1).
  if (j.contains("gemm_min_tokens"))
    for (const auto& [fmt, v] : object(j, "gemm_min_tokens", "").items()) {
      auto step = [&, fmt = fmt](const json& holder, const std::string& field, const std::string& where, const std::string& k) {
        const double n = number(holder, field, where, false);
        if (!(n >= 1 && n <= 1e6 && n == std::floor(n)))
          throw Rejected{where + field + " is " + std::to_string(n) + "; expected a whole number of tokens from 1"};
        set("gemm_" + fmt + "_min_tokens_k" + k, n);
      };
      if (!v.is_object()) {
        step(j.at("gemm_min_tokens"), fmt, "gemm_min_tokens.", "1");
        continue;
      }
      for (const auto& [k, n] : v.items()) {
        if (k.empty() || k.size() > 6 || k[0] == '0' || !std::all_of(k.begin(), k.end(), [](char c) { return c >= '0' && c <= '9'; }))
          throw Rejected{"gemm_min_tokens." + fmt + " has the row length \"" + k + "\"; expected a whole number of values from 1"};
        step(v, k, "gemm_min_tokens." + fmt + ".", k);
      }
    }
  if (j.contains("cache_resident_bytes")) {
    const double resident = number(j, "cache_resident_bytes", "", false);
    if (!(resident > 0)) throw Rejected{"cache_resident_bytes is " + std::to_string(resident) + "; expected a size above 0"};
    set("cache_resident_bytes", resident);
  }
  if (j.contains("overhead")) {
    const json& o = object(j, "overhead", "");
    if (o.contains("per_layer_s")) set("overhead_per_layer_s", number(o, "per_layer_s", "overhead.", false));
    if (o.contains("per_step_s")) set("overhead_per_step_s", number(o, "per_step_s", "overhead.", false));
    const double sync = o.contains("sync_per_layer_s") ? number(o, "sync_per_layer_s", "overhead.", false) : 0;
    const double value = o.contains("per_value_s") ? number(o, "per_value_s", "overhead.", false) : 0;
    if (sync > 0 && value > 0) {  // both or neither: the analyzer uses the split form only whole
      set("overhead_sync_per_layer_s", sync);
      set("overhead_per_value_s", value);
    }
    if (o.contains("region_start_s")) {  // 0 is a valid measurement (no start cost seen)
      const double start = number(o, "region_start_s", "overhead.", false);
      if (start >= 1e-3) throw Rejected{"overhead.region_start_s is " + std::to_string(start) + " s; expected under 1 ms"};
      set("overhead_region_start_s", start);
    }
    if (o.contains("attention_row_s")) {
      const double row = number(o, "attention_row_s", "overhead.", false);
      if (!(row > 0 && row < 1e-3)) throw Rejected{"overhead.attention_row_s is " + std::to_string(row) + " s; expected above 0 and under 1 ms"};
      set("overhead_attention_row_s", row);
    }
  }
  c.notes.push_back("calibrated: " + measured + " (rooftop calibrate" +
                    (j.value("quick", false) ? std::string(", quick") : std::string()) + ")");
}

}  // namespace

std::string machine_fingerprint(const ChipSpec& chip) {
  long long gb = std::llround(chip.memory_bytes / 1e9);
  return chip.name + "|" + std::to_string(chip.compute_units.value_or(0)) + "|" + std::to_string(gb);
}

ChipSpec apply_calibration(ChipSpec chip, const std::string& json_text, std::string* why_rejected) {
  ChipSpec calibrated = chip;
  const std::string why =
      refusal([&] { overlay(calibrated, parse_json(json_text, "calibration file"), machine_fingerprint(chip)); });
  if (why_rejected) *why_rejected = why;
  return why.empty() ? calibrated : chip;
}

ChipSpec calibrated_host_cpu() {
  ChipSpec cpu = detect_host_cpu();
  std::string path = calibration_path();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return cpu;
  std::string why, text;
  try {
    text = read_text_file(path, "calibration file");
  } catch (const InputError& e) {
    why = e.what();
  }
  ChipSpec out = why.empty() ? apply_calibration(cpu, text, &why) : cpu;
  if (!why.empty()) std::cerr << "rooftop: ignoring calibration file " << path << ": " << printable(why, 300) << "\n";
  return out;
}

}  // namespace rooftop::hwdb
