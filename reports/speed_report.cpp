// speed/cost/roofline views: one record (JSON) and the tables a person reads.
#include "reports/speed_report.h"

#include <algorithm>
#include <cmath>

#include "base/json.h"
#include "reports/svg.h"
#include "reports/units.h"

namespace rooftop::reports {

nlohmann::json speed_json(const SpeedResult& r) {
  nlohmann::json j;
  ROOFTOP_JSON_FIELDS(j, r, model, hw, precision, kv_precision, compute_format, prompt_tokens, output_tokens, context,
                      tp, pp, ep, devices, peak_flops, memory_bandwidth_bytes_per_s, bandwidth_efficiency,
                      flops_efficiency);
  if (r.has_price) j["usd_per_hour"] = r.usd_per_hour;
  if (r.has_power) j["watts"] = r.watts;
  j["plateau_batch"] = r.plateau_batch;
  j["overhead_per_layer_s"] = r.overhead_per_layer_s;
  j["points"] = nlohmann::json::array();
  for (const auto& p : r.points) {
    nlohmann::json q;
    ROOFTOP_JSON_FIELDS(q, p, batch, prefill_s, ttft_s, tpot_s, request_s, decode_tokens_per_s,
                        decode_tokens_per_s_per_stream, weights_only_tokens_per_s, compute_roof_tokens_per_s, bound,
                        prefill_bound, bytes_per_step, weight_bytes_per_step, kv_read_bytes_per_step, flops_per_step);
    q["arithmetic_intensity"] = p.intensity;
    q["comm_s"] = p.comm_s;
    if (r.spec) q["spec_speedup"] = p.spec_speedup;
    q["fits"] = p.fits;
    if (r.has_price) {
      q["usd_per_mtok_output"] = p.usd_per_mtok_output;
      q["usd_per_mtok_input"] = p.usd_per_mtok_input;
    } else {
      q["usd_per_mtok_output"] = nullptr;
      q["usd_per_mtok_input"] = nullptr;
    }
    q["joules_per_token"] = r.has_power ? nlohmann::json(p.joules_per_token) : nlohmann::json(nullptr);
    q["joules_per_input_token"] = r.has_power ? nlohmann::json(p.joules_per_input_token) : nlohmann::json(nullptr);
    q["decode_to_prefill_energy_ratio"] = r.has_power ? nlohmann::json(p.decode_to_prefill_energy_ratio) : nlohmann::json(nullptr);
    j["points"].push_back(q);
  }
  if (r.spec) j["speculative"] = {{"tokens_per_pass", r.spec->tokens_per_pass}, {"draft_cost_ratio", r.spec->draft_cost_ratio}, {"speedup", r.spec->speedup}};
  ROOFTOP_JSON_FIELDS(j, r, assumptions, provenance, runtime);
  if (!r.runtime_notes.empty()) j["runtime_notes"] = r.runtime_notes;
  if (r.runtime_records)
    j["runtime_records"] = {{"chip", r.runtime_records->first}, {"architecture", r.runtime_records->second}};
  if (r.band_withheld) j["band_withheld"] = true;  // the fit has no record of the chip's vendor
  auto band = [](const std::optional<ErrorBand>& b) -> nlohmann::json {
    if (!b) return nullptr;
    return {{"key", b->key}, {"p10_error", b->p10}, {"median_error", b->p50}, {"p90_error", b->p90}, {"records", b->records}};
  };
  j["error_bands"] = {{"decode", band(r.decode_band)}, {"batched", band(r.batched_band)}, {"prefill", band(r.prefill_band)}};
  return j;
}

std::string expected_range(double predicted, const std::optional<ErrorBand>& b) {
  if (!b) return "-";
  return sig(predicted / (1 + b->p90)) + "-" + sig(predicted / (1 + b->p10));
}

namespace {
std::string band_line(const char* what, const std::optional<ErrorBand>& b) {
  if (!b) return "";
  auto pc = [](double e) { return (e >= 0 ? "+" : "") + sig(100 * e, 2) + "%"; };
  const bool unseen = b->key.ends_with(std::string("/") + kUnseenChip);
  return std::string(what) + " predictions err by " + pc(b->p10) + " to " + pc(b->p90) + " (p10-p90, median " + pc(b->p50) +
         ") on " + std::to_string(b->records) + " published records held out of the fit" +
         (unseen ? ", each on a chip no other source measured" : "") + " (" + b->key + ")";
}
std::string title_of(const SpeedResult& r, const char* what) {
  std::string t = std::string(what) + ": " + r.model + " on " + r.hw;
  if (r.devices > 1) t += " x" + std::to_string(r.devices) + " (tp " + std::to_string(r.tp) + ", pp " + std::to_string(r.pp) + ")";
  t += ", weights " + r.precision + ", compute " + r.compute_format + ", KV " + r.kv_precision + ", prompt " +
       std::to_string(r.prompt_tokens) + ", output " + std::to_string(r.output_tokens) + ", decode at context " + std::to_string(r.context);
  return t;
}
void footnotes(Table& t, const SpeedResult& r) {
  for (const auto& note : r.runtime_notes) t.footnotes.push_back("runtime " + r.runtime + ": " + note);
  for (const auto& a : r.assumptions) t.footnotes.push_back("assumption: " + a);
  std::string prov;
  for (const auto& [k, v] : r.provenance) prov += (prov.empty() ? "" : "; ") + k + ": " + v;
  t.footnotes.push_back("sources: " + prov);
  if (r.spec) {
    std::string per;
    for (const auto& p : r.points) per += (per.empty() ? "" : ", ") + sig(p.spec_speedup) + "x at batch " + std::to_string(p.batch);
    t.footnotes.push_back("speculative: " + sig(r.spec->tokens_per_pass) + " tokens per target pass, draft cost " +
                          sig(r.spec->draft_cost_ratio) + " of a target step (batch " + std::to_string(r.points.front().batch) +
                          "); speed-up " + per);
  }
}
}  // namespace

std::vector<Table> speed_tables(const SpeedResult& r, bool explain) {
  Table t;
  t.title = title_of(r, "speed");
  const bool banded = r.decode_band || r.batched_band;
  t.headers = {"batch", "TTFT", "TPOT", "tok/s/stream", "tok/s total", "law ceiling", "bound", "fits"};
  if (banded) t.headers.insert(t.headers.begin() + 5, "typical measured tok/s");
  for (const auto& p : r.points) {
    t.rows.push_back({std::to_string(p.batch), seconds(p.ttft_s), seconds(p.tpot_s), sig(p.decode_tokens_per_s_per_stream),
                      sig(p.decode_tokens_per_s), sig(p.weights_only_tokens_per_s), p.bound, p.fits ? "yes" : "no"});
    if (banded) t.rows.back().insert(t.rows.back().begin() + 5, expected_range(p.decode_tokens_per_s, p.batch == 1 ? r.decode_band : r.batched_band));
  }
  if (r.runtime != "generic" && r.runtime != "simple" && r.runtime != "calibrated") {
    bool fitted = false;
    for (const auto& [k, v] : r.provenance) fitted = fitted || (k.rfind("runtime.", 0) == 0 && v.rfind("fitted", 0) == 0);
    t.footnotes.push_back("runtime profile " + r.runtime + " (hwdb/runtimes/" + r.runtime + ".yaml): " +
                          (fitted ? "terms fitted to published measurements (rooftop validate --published --fit rebuilds them)"
                                  : "stated terms, not fitted"));
    for (const auto& line : {band_line("batch-1 decode", r.decode_band), band_line("batched", r.batched_band), band_line("prefill", r.prefill_band)})
      if (!line.empty()) t.footnotes.push_back(line);
    if (!banded)
      t.footnotes.push_back(r.band_withheld ? "no error band: the profile's fit has no record of this chip's vendor (see the runtime note)"
                                            : "no error band: the profile has no held-out records for this kind of chip");
  }
  t.footnotes.push_back("law ceiling = bandwidth / weight bytes per step x batch (seed 002's bandwidth law, weights only)");
  t.footnotes.push_back("TTFT is " + std::string(r.points.empty() ? "" : r.points[0].prefill_bound) + "-bound; plateau (compute roof) from batch " +
                        std::to_string(r.plateau_batch));
  footnotes(t, r);
  std::vector<Table> out{t};
  if (explain && !r.points.empty()) {
    const auto& p = r.points.front();
    Table e;
    e.title = "explain: one decode step at batch " + std::to_string(p.batch) + " (each op: max(bytes / bandwidth, FLOPs / peak))";
    e.headers = {"op", "format", "FLOPs", "weights", "KV read", "KV write", "activations", "time"};
    for (size_t i = 0; i < p.decode_ops.size(); ++i) {
      const auto& o = p.decode_ops[i];
      e.rows.push_back({o.name, o.weight_format, flops(o.flops), bytes(o.weight_bytes), bytes(o.kv_read_bytes), bytes(o.kv_write_bytes),
                        bytes(o.act_bytes), i < p.decode_op_s.size() ? seconds(p.decode_op_s[i]) : ""});
    }
    e.footnotes.push_back("bandwidth " + rate_bytes(r.memory_bandwidth_bytes_per_s) + " x " + sig(r.bandwidth_efficiency) + ", peak " +
                          flops_rate(r.peak_flops) + " x " + sig(r.flops_efficiency) + " (" + r.compute_format + ")");
    e.footnotes.push_back("step: " + bytes(p.bytes_per_step) + ", " + flops(p.flops_per_step) + ", intensity " + sig(p.intensity) +
                          " FLOPs/byte, interconnect " + seconds(p.comm_s));
    out.push_back(e);
    if (!r.prefill_ops.empty()) {
      Table f;
      f.title = "explain: the prefill of one prompt of " + std::to_string(r.prompt_tokens) + " tokens (TTFT " + seconds(p.ttft_s) + ")";
      f.headers = e.headers;
      for (size_t i = 0; i < r.prefill_ops.size(); ++i) {
        const auto& o = r.prefill_ops[i];
        f.rows.push_back({o.name, o.weight_format, flops(o.flops), bytes(o.weight_bytes), bytes(o.kv_read_bytes), bytes(o.kv_write_bytes),
                          bytes(o.act_bytes), i < r.prefill_op_s.size() ? seconds(r.prefill_op_s[i]) : ""});
      }
      f.rows.push_back({"fixed", "", "", "", "", "", "", seconds(r.prefill_fixed_s)});
      f.footnotes.push_back("fixed: costs outside the ops (per layer, per value of the small ops, per matmul region, per pass)");
      out.push_back(f);
    }
  }
  return out;
}

std::vector<Table> cost_tables(const SpeedResult& r, bool explain) {
  Table t;
  t.title = title_of(r, "cost");
  if (r.has_price) t.title += ", " + usd(r.usd_per_hour) + "/hour";
  t.headers = {"batch", "tok/s total", "$/Mtok out", "$/Mtok in", "J/token out", "J/token in", "out/in", "bound", "fits"};
  for (const auto& p : r.points)
    t.rows.push_back({std::to_string(p.batch), sig(p.decode_tokens_per_s), r.has_price ? usd(p.usd_per_mtok_output) : "n/a (no price)",
                      r.has_price ? usd(p.usd_per_mtok_input) : "n/a (no price)", r.has_power ? sig(p.joules_per_token) : "n/a (no TDP)",
                      r.has_power ? sig(p.joules_per_input_token) : "n/a", r.has_power ? sig(p.decode_to_prefill_energy_ratio) + "x" : "n/a",
                      p.bound, p.fits ? "yes" : "no"});
  if (r.has_power)
    t.footnotes.push_back("J/token in: the power over one prompt's prefill rate; out/in: decode's energy per token over "
                          "prefill's (seed 004 measured 20-35x on one machine; a batch-1 decode that streams the weights "
                          "for each token is far above that, a large batch approaches 1)");
  t.footnotes.push_back("$/Mtok = price per hour / 3600 / tok/s x 1e6; the curve flattens at the compute roof from batch " +
                        std::to_string(r.plateau_batch));
  footnotes(t, r);
  std::vector<Table> out{t};
  if (explain) {
    auto more = speed_tables(r, true);
    if (more.size() > 1) out.push_back(more[1]);
  }
  return out;
}

nlohmann::json roofline_json(const RooflineResult& r) {
  nlohmann::json j;
  ROOFTOP_JSON_FIELDS(j, r, model, hw, precision, compute_format, peak_flops, memory_bandwidth_bytes_per_s,
                      ridge_flops_per_byte);
  j["points"] = nlohmann::json::array();
  for (const auto& p : r.points)
    j["points"].push_back({{"name", p.name}, {"phase", p.phase}, {"batch", p.batch}, {"flops", p.flops}, {"bytes", p.bytes},
                           {"arithmetic_intensity", p.arithmetic_intensity}, {"attainable_flops", p.attainable_flops}, {"bound", p.bound}});
  j["assumptions"] = r.assumptions;
  j["provenance"] = r.provenance;
  return j;
}

std::vector<Table> roofline_tables(const RooflineResult& r) {
  Table t;
  t.title = "roofline: " + r.model + " on " + r.hw + ", weights " + r.precision + ", compute " + r.compute_format + ": peak " +
            flops_rate(r.peak_flops) + ", bandwidth " + rate_bytes(r.memory_bandwidth_bytes_per_s) + ", ridge " +
            sig(r.ridge_flops_per_byte) + " FLOPs/byte";
  t.headers = {"point", "FLOPs", "bytes", "FLOPs/byte", "attainable", "bound"};
  for (const auto& p : r.points)
    t.rows.push_back({p.name, flops(p.flops), bytes(p.bytes), sig(p.arithmetic_intensity), flops_rate(p.attainable_flops), p.bound});
  t.footnotes.push_back("attainable = min(peak, intensity x bandwidth); ridge = peak / bandwidth");
  for (const auto& a : r.assumptions) t.footnotes.push_back("assumption: " + a);
  return {t};
}

nlohmann::json chip_roofline_json(const ChipRoofline& r) {
  nlohmann::json j;
  ROOFTOP_JSON_FIELDS(j, r, hw, name, memory_bandwidth_bytes_per_s);
  j["roofs"] = nlohmann::json::array();
  for (const auto& f : r.roofs)
    j["roofs"].push_back({{"format", f.format}, {"peak_flops", f.peak_flops}, {"ridge_flops_per_byte", f.ridge_flops_per_byte}});
  j["provenance"] = r.provenance;
  return j;
}

// Intensities a reader compares against: decode of a dense model at batch 1 sits near 1 FLOP/byte (16-bit weights)
// and each doubling of the batch doubles it; prefill of long prompts sits in the hundreds.
constexpr double kSampleIntensities[] = {1, 10, 100, 1000};

std::vector<Table> chip_roofline_tables(const ChipRoofline& r) {
  Table t;
  t.title = "roofline: " + r.hw + " (" + r.name + "), memory bandwidth " + rate_bytes(r.memory_bandwidth_bytes_per_s) +
            " (" + r.provenance.at("memory_bandwidth_bytes_per_s") + ")";
  t.headers = {"compute", "dense peak", "ridge (FLOPs/byte)"};
  for (double x : kSampleIntensities) t.headers.push_back("at " + sig(x) + " FLOP/B");
  t.headers.push_back("peak from");
  for (const auto& f : r.roofs) {
    std::vector<std::string> row = {f.format, flops_rate(f.peak_flops), sig(f.ridge_flops_per_byte)};
    for (double x : kSampleIntensities) row.push_back(flops_rate(attainable_flops(x, f.peak_flops, r.memory_bandwidth_bytes_per_s)));
    row.push_back(r.provenance.at("peak_flops." + f.format.substr(0, f.format.find('/'))));
    t.rows.push_back(std::move(row));
  }
  t.footnotes.push_back("attainable = min(peak, intensity x bandwidth); ridge = peak / bandwidth: below it a pass is memory-bound");
  t.footnotes.push_back("add --model M to place a model's prefill and decode passes on the roof");
  return {t};
}

std::string chip_roofline_svg(const ChipRoofline& r) {
  svg::LineChart c;
  c.title = "Roofline: " + r.hw + " (" + rate_bytes(r.memory_bandwidth_bytes_per_s) + "), one roof per compute format";
  c.width_px = 960;
  c.height_px = 480;
  c.x = {"arithmetic intensity (FLOP/byte)", true, {}, {}};
  c.y = {"attainable (FLOP/s)", true, {}, {}};
  double lo = 1e9, hi = 0;
  for (const auto& f : r.roofs) lo = std::min(lo, f.ridge_flops_per_byte / 100), hi = std::max(hi, f.ridge_flops_per_byte * 10);
  lo = std::pow(10.0, std::floor(std::log10(lo)));
  hi = std::pow(10.0, std::ceil(std::log10(hi)));
  c.x.min = lo;
  c.x.max = hi;
  static const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
  size_t i = 0;
  for (const auto& f : r.roofs) {
    c.series.push_back({f.format + " " + flops_rate(f.peak_flops), kColors[i++ % 8],
                        {{lo, lo * r.memory_bandwidth_bytes_per_s}, {f.ridge_flops_per_byte, f.peak_flops}, {hi, f.peak_flops}}});
  }
  return svg::render(c);
}

}  // namespace rooftop::reports
