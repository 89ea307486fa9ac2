// roofline: where prefill and decode passes sit against a chip's compute and memory roofs.
#include "analyzer/roofline.h"

#include <algorithm>

#include "base/suggest.h"
#include "analyzer/speed.h"
#include "analyzer/work.h"

namespace rooftop {

double attainable_flops(double intensity, double peak, double bandwidth) { return std::min(peak, intensity * bandwidth); }

RooflineResult roofline(const ModelSpec& m, const ChipSpec& chip, const PrecisionPlan& p, const RooflineOptions& o) {
  check_positive("prompt-tokens", o.prompt_tokens, 100'000'000);
  check_positive("context", o.context, 100'000'000);
  for (auto b : o.decode_batches) check_positive("batch", b, 10'000'000);
  if (chip.memory_bandwidth_bytes_per_s <= 0) throw InputError("chip '" + chip.id + "' has no memory bandwidth figure");
  RooflineResult r;
  r.model = m.id;
  r.hw = chip.id;
  r.precision = p.describe();
  r.compute_format = o.compute_format.empty() ? compute_format_for(chip, p.format_of(ParamClass::attention))
                                              : find_format(o.compute_format).name;
  auto peak = chip.peak(r.compute_format);
  if (!peak) throw InputError("chip '" + chip.id + "' has no " + r.compute_format + " peak rate");
  r.peak_flops = *peak;
  r.memory_bandwidth_bytes_per_s = chip.memory_bandwidth_bytes_per_s;
  r.ridge_flops_per_byte = r.peak_flops / r.memory_bandwidth_bytes_per_s;
  const double act = chip.activation_value_bytes();
  auto add = [&](std::string name, std::string phase, int64_t batch, const PassShape& s) {
    const PassWork w = o.simple ? pass_work_simple(m, p, s) : pass_work(m, p, s, act);
    RooflinePoint pt;
    pt.name = std::move(name);
    pt.phase = std::move(phase);
    pt.batch = batch;
    pt.flops = w.flops;
    pt.bytes = w.bytes();
    pt.arithmetic_intensity = w.intensity();
    pt.attainable_flops = attainable_flops(pt.arithmetic_intensity, r.peak_flops, r.memory_bandwidth_bytes_per_s);
    pt.bound = pt.arithmetic_intensity >= r.ridge_flops_per_byte ? "compute" : "memory";
    r.points.push_back(pt);
  };
  add("prefill " + std::to_string(o.prompt_tokens), "prefill", 1, PassShape{1, o.prompt_tokens, 0, false});
  for (auto b : o.decode_batches) add("decode x" + std::to_string(b), "decode", b, PassShape{b, 1, o.context - 1, false});
  r.assumptions.push_back(o.simple ? "simple: weights only, FLOPs = 2 x active parameters per token (the seeds' points)"
                                   : "decode at context " + std::to_string(o.context) + ": bytes include the KV cache read and written");
  auto prov = [&](const std::string& k) {
    auto it = chip.provenance.find(k);
    return it != chip.provenance.end() ? it->second : std::string(chip.kind == "cpu" ? "derived" : "datasheet");
  };
  r.provenance["memory_bandwidth_bytes_per_s"] = prov("memory_bandwidth_bytes_per_s");
  r.provenance["peak_flops." + r.compute_format] = prov("peak_flops." + r.compute_format);
  r.assumptions.push_back("compute roof: dense " + r.compute_format + " peak (" + r.provenance["peak_flops." + r.compute_format] +
                          "); memory roof: bandwidth (" + r.provenance["memory_bandwidth_bytes_per_s"] + ")");
  return r;
}

ChipRoofline chip_roofline(const ChipSpec& chip) {
  if (chip.memory_bandwidth_bytes_per_s <= 0) throw InputError("chip '" + chip.id + "' has no memory bandwidth figure");
  if (chip.peak_flops.empty()) throw InputError("chip '" + chip.id + "' has no peak rate for any format");
  ChipRoofline r;
  r.hw = chip.id;
  r.name = chip.name;
  r.memory_bandwidth_bytes_per_s = chip.memory_bandwidth_bytes_per_s;
  auto prov = [&](const std::string& k) {
    auto it = chip.provenance.find(k);
    return it != chip.provenance.end() ? it->second : std::string(chip.kind == "cpu" ? "derived" : "datasheet");
  };
  r.provenance["memory_bandwidth_bytes_per_s"] = prov("memory_bandwidth_bytes_per_s");
  for (const auto& [format, peak] : chip.peak_flops) {
    if (!(peak > 0)) continue;
    r.roofs.push_back({format, peak, peak / chip.memory_bandwidth_bytes_per_s});
    r.provenance["peak_flops." + format] = prov("peak_flops." + format);
  }
  std::stable_sort(r.roofs.begin(), r.roofs.end(), [](const ChipRoof& a, const ChipRoof& b) { return a.peak_flops > b.peak_flops; });
  // Formats with the same peak share one roof ("bf16/fp16"): the same line drawn twice would hide one.
  std::vector<ChipRoof> merged;
  for (const auto& f : r.roofs) {
    if (!merged.empty() && merged.back().peak_flops == f.peak_flops) merged.back().format += "/" + f.format;
    else merged.push_back(f);
  }
  r.roofs = std::move(merged);
  return r;
}

}  // namespace rooftop
