// calibration_json: the record as the schema's JSON.
#include "measure/calibration_record.h"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/json.h"
#include "base/suggest.h"
#include "hwdb/calibration.h"

namespace rooftop::measure {
namespace {
using nlohmann::json;

json stats_json(const Stats& s) {
  return {{"count", s.count}, {"median", s.median}, {"min", s.min}, {"max", s.max}, {"q1", s.q1}, {"q3", s.q3},
          {"spread", s.spread}, {"iqr_relative", s.iqr_relative}, {"wide_spread", s.wide}};
}

json stream_json(const StreamResult& s) {
  json j = json::object();
  for (const auto& k : s.kernels) j[k.name] = k.bytes_per_s;
  return j;
}

json stream_detail_json(const StreamResult& s) {
  json j = {{"threads", s.threads}, {"array_bytes", s.array_bytes}};
  for (const auto& k : s.kernels)
    j[k.name] = {{"bytes_per_s", k.bytes_per_s}, {"best_bytes_per_s", k.best_bytes_per_s},
                 {"bytes_per_call", k.bytes_per_call}, {"seconds", stats_json(k.seconds)}};
  return j;
}
}  // namespace

std::string calibration_json(const CalibrationRecord& r) {
  json j;
  j["schema"] = hwdb::calibration_schema;
  ROOFTOP_JSON_FIELDS(j, r, date, quick, threads, duration_s);
  const auto& m = r.machine;
  j["machine"] = {{"cpu_model", m.model_name}, {"vendor", m.vendor}, {"cores", m.physical_cores},
                  {"threads", m.logical_cpus}, {"clock_hz", m.clock_hz}, {"isa", m.isa},
                  {"l1d_bytes", m.l1d_bytes}, {"l2_bytes", m.l2_bytes}, {"l3_bytes", m.l3_bytes},
                  {"memory_bytes", m.memory_bytes}, {"fingerprint", r.fingerprint}, {"isa_used", r.isa_used}};
  j["memory_bandwidth_bytes_per_s"] = r.memory_bandwidth_bytes_per_s;
  if (r.memory_bandwidth_1thread_bytes_per_s > 0)  // absent from a refresh (validate): no 1-thread STREAM
    j["memory_bandwidth_1thread_bytes_per_s"] = r.memory_bandwidth_1thread_bytes_per_s;
  j["stream"] = stream_json(r.stream);
  j["stream_1thread"] = stream_json(r.stream_1thread);
  j["stream_detail"] = {stream_detail_json(r.stream), stream_detail_json(r.stream_1thread)};
  json levels = json::array();
  for (const auto& l : r.levels)
    levels.push_back({{"name", l.name}, {"working_set_bytes", l.working_set_bytes},
                      {"bandwidth_bytes_per_s", l.bytes_per_s}, {"sweep_points", l.points}});
  j["levels"] = levels;
  json sweep = json::array();
  for (const auto& p : r.sweep)
    sweep.push_back({{"working_set_bytes", p.working_set_bytes}, {"bandwidth_bytes_per_s", p.bytes_per_s},
                     {"seconds", stats_json(p.seconds)}});
  j["sweep"] = sweep;
  json peaks = json::object();
  for (const auto& [fmt, v] : best_peaks(r.peaks)) peaks[fmt] = v;
  j["peak_flops"] = peaks;
  json peak_detail = json::array();
  for (const auto& p : r.peaks) {
    json e = {{"format", p.format}, {"variant", p.variant}, {"measured", p.measured}, {"threads", p.threads}};
    if (p.measured) {
      e["ops_per_s"] = p.ops_per_s;
      e["seconds"] = stats_json(p.seconds);
    } else {
      e["skipped_reason"] = p.skipped_reason;
    }
    peak_detail.push_back(e);
  }
  j["peak_detail"] = peak_detail;
  json kernels = json::array();
  for (const auto& k : r.kernels) {
    json e = {{"name", k.name}, {"op", k.op}, {"format", k.format}, {"m", k.m}, {"k", k.k}, {"n", k.n},
              {"seconds_median", k.seconds.median}, {"seconds_spread", k.seconds.spread},
              {"wide_spread", k.seconds.wide}, {"bytes_per_call", k.bytes_per_call},
              {"flops_per_call", k.flops_per_call}, {"working_set_bytes", k.working_set_bytes}, {"bytes_per_s", k.bytes_per_s}, {"flops_per_s", k.flops_per_s},
              {"ceiling", k.ceiling}, {"ceiling_value", k.ceiling_value}, {"fraction_of_ceiling", k.fraction_of_ceiling},
              {"seconds", stats_json(k.seconds)}};
    if (k.op == "attention")
      e.update({{"heads", k.heads}, {"kv_heads", k.kv_heads}, {"head_dim", k.head_dim}, {"t", k.t}});
    kernels.push_back(e);
  }
  j["kernels"] = kernels;
  if (!r.gemm_min_tokens.empty()) {
    nlohmann::json& t = j["gemm_min_tokens"];
    for (const auto& [fmt, steps] : r.gemm_min_tokens)
      for (const auto& [k, n] : steps) t[fmt][std::to_string(k)] = n;
  }
  nlohmann::json region_shapes = nlohmann::json::array();
  for (const auto& s : r.overhead.region_start.shapes)
    region_shapes.push_back({{"format", s.format}, {"m", s.m}, {"k", s.k}, {"chain_bytes_per_s", s.chain_bytes_per_s},
                             {"stream_bytes_per_s", s.stream_bytes_per_s}, {"excess_s", s.excess_s}});
  j["overhead"] = {{"per_layer_s", r.overhead.per_layer_s}, {"per_step_s", r.overhead.per_step_s},
                   {"sync_per_layer_s", r.overhead.sync_per_layer_s}, {"per_value_s", r.overhead.per_value_s},
                   {"region_start_s", r.overhead.region_start.per_region_s}, {"region_start_shapes", region_shapes},
                   {"layer_seconds", stats_json(r.overhead.layer_seconds)},
                   {"step_seconds", stats_json(r.overhead.step_seconds)}};
  if (r.overhead.attention_row_s > 0) j["overhead"]["attention_row_s"] = r.overhead.attention_row_s;
  if (r.cache_resident_bytes > 0) j["cache_resident_bytes"] = r.cache_resident_bytes;
  j["notes"] = r.notes;
  return j.dump(2) + "\n";
}

}  // namespace rooftop::measure
