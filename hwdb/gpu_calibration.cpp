// Reading a GPU calibration file: check schema and device, match the card by name, overlay measured figures.
#include "hwdb/gpu_calibration.h"

#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>
#include <vector>

#include "base/errors.h"
#include "base/files.h"
#include "base/text.h"
#include "hwdb/json_fields.h"

namespace rooftop::hwdb {
namespace {

using nlohmann::json;
using namespace json_fields;

bool has(const std::string& hay, const char* needle) { return hay.find(needle) != std::string::npos; }

// GPU kernel name -> the analyzer's measured-rate stem: "gemv_fp8_e4m3" -> "gemv_fp8",
// "gemm_bf16_cublaslt" -> "gemm_bf16" (analyzer/speed.cpp looks up gemv_<fmt>, gemm_<fmt>, attention_f16).
std::string rate_stem(std::string name) {
  if (auto p = name.find("_cublaslt"); p != std::string::npos) name.erase(p, 9);
  if (auto p = name.find("fp8_e4m3"); p != std::string::npos) name.replace(p, 8, "fp8");
  return name;
}

ChipSpec overlay(const json& j, int device, const Database& db) {
  schema(j, gpu_calibration_schema);
  const json& machine = object(j, "machine", "");
  const std::string name = text(machine, "name", "machine.");
  if (machine.contains("device") && (!machine.at("device").is_number_integer() || machine.at("device").get<int>() != device))
    throw Rejected{"machine.device is " + describe_json(machine.at("device")) + "; expected " + std::to_string(device)};
  const std::string card_id = match_gpu_card(name, db);
  if (card_id.empty())
    throw Rejected{"cuda:" + std::to_string(device) + " is '" + name + "', which matches no chip card; expected a "
                   "card whose name contains it (add one with --hwdb DIR)"};
  ChipSpec c = *db.find(card_id);
  const std::string measured = measured_on(j);
  auto set = [&](const std::string& key, double v) { measured_figure(c, key, v, measured); };

  c.id = "cuda:" + std::to_string(device);
  c.card_id = card_id;
  c.memory_bandwidth_bytes_per_s = number(j, "memory_bandwidth_bytes_per_s", "", true);
  c.provenance["memory_bandwidth_bytes_per_s"] = measured;
  if (machine.contains("sm_count")) {
    c.compute_units = int64_t(number(machine, "sm_count", "machine.", true));
    c.provenance["compute_units"] = measured;
  }
  if (machine.contains("memory_bytes")) set("device_memory_bytes", number(machine, "memory_bytes", "machine.", true));
  if (j.contains("stream")) {
    if (!j.at("stream").is_object()) throw Rejected{"stream is not an object"};
    for (const auto& [k, v] : j.at("stream").items()) {
      const double x = number(j.at("stream"), k, "stream.", false);
      if (x > 0) set("stream_" + k + "_bytes_per_s", x);
    }
  }
  if (j.contains("peak_flops")) {
    if (!j.at("peak_flops").is_object()) throw Rejected{"peak_flops is not an object"};
    for (const auto& [fmt, v] : j.at("peak_flops").items()) {
      const double x = number(j.at("peak_flops"), fmt, "peak_flops.", false);
      if (x == 0) continue;
      c.peak_flops[fmt] = x;
      c.provenance["peak_flops." + fmt] = measured;
    }
  }
  if (j.contains("kernels")) {
    if (!j.at("kernels").is_array()) throw Rejected{"kernels is not a list"};
    for (const auto& k : j.at("kernels")) {
      if (!k.is_object()) throw Rejected{"kernels[] holds a non-object"};
      const std::string kname = text(k, "name", "kernels[].");
      const std::string where = "kernels[" + kname + "].";
      const std::string stem = rate_stem(kname);
      const bool gemm = k.value("op", std::string()) == "gemm";
      if (!gemm && k.contains("bytes_per_s"))
        if (double x = number(k, "bytes_per_s", where, false); x > 0) set(stem + "_bytes_per_s", x);
      if (gemm && k.contains("flops_per_s"))
        if (double x = number(k, "flops_per_s", where, false); x > 0) set(stem + "_flops_per_s", x);
      if (k.contains("fraction_of_ceiling"))
        if (double x = number(k, "fraction_of_ceiling", where, false); x > 0) set(stem + "_fraction_of_ceiling", x);
    }
  }
  for (const char* key : {"power_watts_during_decode", "joules_per_token"})
    if (j.contains(key) && !j.at(key).is_null()) set(key, number(j, key, "", true));
  c.file = "";
  c.notes.push_back("cuda:" + std::to_string(device) + " is '" + name + "' (card " + card_id + "), calibrated: " +
                    measured + " (rooftop calibrate --device cuda:" + std::to_string(device) +
                    (j.value("quick", false) ? std::string(", quick") : std::string()) + ")");
  return c;
}

}  // namespace

std::optional<int> gpu_device_id(std::string_view id) {
  std::string_view rest;
  if (id.rfind("cuda:", 0) == 0) rest = id.substr(5);
  else if (id.rfind("cuda", 0) == 0) rest = id.substr(4);
  else return std::nullopt;
  if (rest.empty() || rest.size() > 3) return std::nullopt;
  int n = 0;
  for (char ch : rest) {
    if (ch < '0' || ch > '9') return std::nullopt;
    n = n * 10 + (ch - '0');
  }
  return n;
}

std::string gpu_calibration_path(int device) {
  return cache_dir() + "/calibration/cuda" + std::to_string(device) + ".json";
}

std::string match_gpu_card(const std::string& device_name, const Database& db) {
  const std::string n = ascii_upper(device_name);
  // CUDA device names (cudaDeviceProp::name) seen per card; the database ids they mean.
  static const std::vector<std::pair<std::vector<const char*>, const char*>> table = {
      {{"H200"}, "h200"},
      {{"H100", "HBM3"}, "h100-sxm"},   // "NVIDIA H100 80GB HBM3" (SXM5)
      {{"H100", "SXM"}, "h100-sxm"},
      {{"A100", "80GB"}, "a100-80g"},   // "NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB PCIe"
      {{"A100", "40GB"}, "a100-40g"},   // "NVIDIA A100-SXM4-40GB"
      {{"H100", "PCIE"}, "h100-pcie"},  // "NVIDIA H100 PCIe"
      {{"A10G"}, "a10g"},
      {{"RTX A6000"}, "rtx-a6000"},
      {{"RTX 3090"}, "rtx-3090"},
      {{"RTX 4080"}, "rtx-4080"},
      {{"B200"}, "b200"},
      {{"B300"}, "b300"},
      {{"L40S"}, "l40s"},
      {{"RTX 4090"}, "rtx-4090"},
      {{"RTX 5090"}, "rtx-5090"},
      {{"RTX 5060 TI"}, "rtx-5060-ti"},
  };
  for (const auto& [words, id] : table) {
    bool all = true;
    for (const char* w : words) all = all && has(n, w);
    if (all && db.find(id)) return id;
  }
  std::string core = n.rfind("NVIDIA ", 0) == 0 ? n.substr(7) : n;
  if (core.size() < 3) return "";
  std::string found;
  for (const auto& c : db.chips) {
    if (c.kind != "gpu" || !has(ascii_upper(c.name), core.c_str())) continue;
    if (!found.empty()) return "";  // ambiguous
    found = c.id;
  }
  return found;
}

std::optional<ChipSpec> apply_gpu_calibration(const std::string& json_text, int device, const Database& db,
                                              std::string* why) {
  std::optional<ChipSpec> c;
  const std::string reason =
      refusal([&] { c = overlay(parse_json(json_text, "GPU calibration file"), device, db); });
  if (why) *why = reason;
  return c;
}

std::optional<ChipSpec> calibrated_gpu(int device, const Database& db, std::string* why) {
  const std::string path = gpu_calibration_path(device);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    if (why) *why = "no calibration file " + path;
    return std::nullopt;
  }
  std::string text;
  try {
    text = read_text_file(path, "GPU calibration file");
  } catch (const InputError& e) {
    if (why) *why = e.what();
    return std::nullopt;
  }
  std::string reason;
  auto c = apply_gpu_calibration(text, device, db, &reason);
  if (!c && why) *why = path + ": " + reason;
  if (c && why) why->clear();
  return c;
}

ChipSpec require_calibrated_gpu(int device, const Database& db) {
  std::string why;
  if (auto c = calibrated_gpu(device, db, &why)) return *c;
  const std::string cmd = "rooftop calibrate --device cuda:" + std::to_string(device);
  throw InputError("chip cuda:" + std::to_string(device) + ": " + why + "; expected a GPU calibration (run '" + cmd +
                   "' on that machine) or a card id such as h200");
}

}  // namespace rooftop::hwdb
