// The report's charts: memory budget, roofline, field of chips, tok/s and cost against batch, KV against context.
#include <algorithm>
#include <cmath>

#include "reports/report.h"
#include "reports/svg.h"
#include "reports/units.h"

namespace rooftop::reports {
namespace {

constexpr const char* kBlue = "#1f77b4";
constexpr const char* kOrange = "#e6730f";
constexpr const char* kGreen = "#2ca02c";
constexpr const char* kPurple = "#9467bd";
constexpr const char* kRed = "#c62828";
constexpr const char* kGrey = "#9e9e9e";

std::string bytes_label(double b) { return bytes(b); }

std::string memory_chart(const ReportData& d) {
  const auto& f = d.fit;
  svg::StackedBar c;
  c.title = "Memory: " + d.model.id + " (" + f.precision + ", KV " + f.kv_precision + ", context " + grouped(f.context) +
            ", batch " + grouped(f.batch) + ") on " + d.chip.id + (f.fits ? ": fits" : ": does NOT fit");
  c.value_title = "bytes per device (GB = 1e9 bytes)";
  c.width_px = kChartWidthPx;
  c.height_px = 300;
  c.segments = {{"weights", f.weights_bytes_per_device, kBlue},
                {"KV cache", f.kv_bytes_per_device, kOrange},
                {"activations", f.activation_bytes, kGreen},
                {"overhead", f.overhead_bytes, kPurple}};
  if (f.state_bytes_per_device > 0) c.segments.insert(c.segments.begin() + 2, {"recurrent state", f.state_bytes_per_device, kRed});
  c.capacity = f.capacity_bytes;
  c.capacity_label = "usable " + bytes(f.capacity_bytes) + " of " + bytes(f.memory_bytes);
  c.total_memory = f.memory_bytes;
  c.format = &bytes_label;
  return svg::render(c);
}

std::string roofline_chart(const ReportData& d) {
  const auto& r = d.roof;
  svg::LineChart c;
  c.title = "Roofline: " + d.chip.id + " (" + r.compute_format + " peak " + flops_rate(r.peak_flops) + ", " +
            rate_bytes(r.memory_bandwidth_bytes_per_s) + "), " + d.model.id;
  c.width_px = kChartWidthPx;
  c.height_px = kChartHeightPx;
  c.x = {"arithmetic intensity (FLOP/byte)", true, {}, {}};
  c.y = {"attainable (FLOP/s)", true, {}, {}};
  double lo = r.ridge_flops_per_byte / 100, hi = r.ridge_flops_per_byte * 10;
  for (const auto& p : r.points) {
    if (p.arithmetic_intensity > 0) lo = std::min(lo, p.arithmetic_intensity / 2);
    hi = std::max(hi, p.arithmetic_intensity * 2);
  }
  lo = std::pow(10.0, std::floor(std::log10(lo)));
  hi = std::pow(10.0, std::ceil(std::log10(hi)));
  c.x.min = lo;
  c.x.max = hi;
  c.series.push_back({"roof: min(peak, intensity x bandwidth)", "#333333",
                      {{lo, lo * r.memory_bandwidth_bytes_per_s}, {r.ridge_flops_per_byte, r.peak_flops}, {hi, r.peak_flops}}});
  c.series.push_back({"prefill", kRed, {}, false, true});
  c.series.push_back({"decode (batch)", kBlue, {}, false, true});
  c.refs.push_back({true, r.ridge_flops_per_byte, "ridge " + sig(r.ridge_flops_per_byte) + " FLOP/byte", "#555555"});
  for (const auto& p : r.points)
    c.labels.push_back({p.arithmetic_intensity, p.attainable_flops, p.name, p.phase == "prefill" ? kRed : kBlue, false});
  return svg::render(c);
}

std::string field_chart(const ReportData& d) {
  svg::BarChart c;
  c.title = "Decode speed across chips: " + d.model.id + " " + d.plan.weights + ", batch 1 (grey: won't fit)";
  c.value_title = "decode tokens/s (batch 1, modeled)";
  c.width_px = kChartWidthPx;
  c.height_px = kChartHeightPx;
  for (const auto& r : d.field) {
    svg::Bar b{r.hw, r.decode_tokens_per_s, r.hw == d.chip.id ? kOrange : kBlue, ""};
    if (!r.error.empty()) {
      b.value = 0;
      b.color = kGrey;
      b.note = "n/a (no rate for this format)";
    } else if (!r.fits) {
      b.color = "#c8c8c8";
      b.note = "won't fit";
    }
    c.bars.push_back(b);
  }
  return svg::render(c);
}

// Batch axis: the sweep's points; memory limit and compute plateau as reference lines.
void batch_refs(const ReportData& d, svg::LineChart& c) {
  if (d.sweep.plateau_batch > 0) c.refs.push_back({true, double(d.sweep.plateau_batch), "compute plateau from " + grouped(d.sweep.plateau_batch), kRed});
  int64_t last_fit = 0;
  for (const auto& p : d.sweep.points)
    if (p.fits) last_fit = p.batch;
  if (last_fit < d.sweep.points.back().batch)
    c.refs.push_back({true, double(std::max<int64_t>(last_fit, 1)), "memory full > " + grouped(last_fit), kPurple});
}

std::string batch_tokens_chart(const ReportData& d) {
  svg::LineChart c;
  c.title = "Tokens/s against batch (" + d.chip.id + ")";
  c.width_px = kChartWidthPx / 2 - 10;
  c.height_px = kChartHeightPx;
  c.x = {"batch (sequences)", true, {}, {}};
  c.y = {"decode tokens/s (all streams)", true, {}, {}};
  svg::Series fits{"fits", kBlue, {}, true, true}, over{"won't fit", kGrey, {}, false, true}, law{"bandwidth law", kGreen, {}, true, false, true};
  double mx = 0;
  for (const auto& p : d.sweep.points) {
    fits.points.push_back({double(p.batch), p.decode_tokens_per_s});
    if (!p.fits) over.points.push_back({double(p.batch), p.decode_tokens_per_s});
    mx = std::max(mx, p.decode_tokens_per_s);
  }
  for (const auto& p : d.sweep.points)
    if (p.weights_only_tokens_per_s <= mx * 3) law.points.push_back({double(p.batch), p.weights_only_tokens_per_s});
  c.series = {fits, law};
  if (!over.points.empty()) c.series.push_back(over);
  batch_refs(d, c);
  return svg::render(c);
}

std::string batch_cost_chart(const ReportData& d) {
  svg::LineChart c;
  c.width_px = kChartWidthPx / 2 - 10;
  c.height_px = kChartHeightPx;
  c.x = {"batch (sequences)", true, {}, {}};
  svg::Series s{"", kOrange, {}, true, true};
  if (d.sweep.has_price) {
    c.title = "$ per million output tokens (" + d.chip.id + ")";
    c.y = {"$ / Mtok output", true, {}, {}};
    s.name = "$/Mtok at " + usd(d.sweep.usd_per_hour) + "/h";
    for (const auto& p : d.sweep.points) s.points.push_back({double(p.batch), p.usd_per_mtok_output});
  } else if (d.sweep.has_power) {
    c.title = "Energy per token (" + d.chip.id + ", no price on the card)";
    c.y = {"joules / token", true, {}, {}};
    s.name = "J/token";
    for (const auto& p : d.sweep.points) s.points.push_back({double(p.batch), p.joules_per_token});
  } else {
    c.title = "Tokens/s per stream (" + d.chip.id + ", no price or power on the card)";
    c.y = {"tokens/s per stream", true, {}, {}};
    s.name = "tok/s per stream";
    for (const auto& p : d.sweep.points) s.points.push_back({double(p.batch), p.decode_tokens_per_s_per_stream});
  }
  c.series = {s};
  batch_refs(d, c);
  return svg::render(c);
}

std::string kv_chart(const ReportData& d) {
  const auto& f = d.fit;
  svg::LineChart c;
  c.title = std::string(f.state_bytes_per_sequence > 0 ? "KV cache and recurrent state" : "KV cache") + " against context: " + d.model.id + " (KV " + f.kv_precision + ") on " + d.chip.id;
  c.width_px = kChartWidthPx;
  c.height_px = kChartHeightPx;
  c.x = {"context (tokens per sequence)", true, {}, {}};
  c.y = {"bytes (GB = 1e9)", true, {}, {}};
  // Where one sequence's KV cache (sliding windows applied) passes the weights: doubling, then bisection.
  auto kv1 = [&](double t) { return kv_bytes(d.model, d.plan.kv_format(), int64_t(t), 1); };
  double cross = 0;
  if (kv1(1e9) >= f.weights_bytes_per_device) {
    double lo = 1, hi = 2;
    while (kv1(hi) < f.weights_bytes_per_device) hi *= 2;
    lo = hi / 2;
    for (int i = 0; i < 60 && hi - lo > 1; ++i) (kv1((lo + hi) / 2) < f.weights_bytes_per_device ? lo : hi) = (lo + hi) / 2;
    cross = hi;
  }
  double top = std::max<double>(d.model.max_context, 4096);
  if (cross > 0) top = std::max(top, cross * 2);
  top = std::min(top, 1e9);
  svg::Series one{"KV cache, 1 sequence", kOrange, {}, true, false};
  svg::Series many{"KV cache, batch " + grouped(f.batch), kRed, {}, true, false, true};
  for (double t = 128; t <= top * 1.0001; t *= 2) {
    one.points.push_back({t, kv_bytes(d.model, d.plan.kv_format(), int64_t(t), 1)});
    if (f.batch > 1) many.points.push_back({t, kv_bytes(d.model, d.plan.kv_format(), int64_t(t), f.batch)});
  }
  c.series = {one};
  if (f.batch > 1) c.series.push_back(many);
  if (f.state_bytes_per_sequence > 0) {  // hybrid models: the recurrent state does not grow with the context
    c.series.push_back({"recurrent state, batch " + grouped(f.batch), kGreen, {}, true, false, true});
    c.series.back().points = {{128, f.state_bytes}, {one.points.back().x, f.state_bytes}};
  }
  c.series.push_back({"weights", kBlue, {}, true, false});
  c.series.back().points = {{128, f.weights_bytes_per_device}, {one.points.back().x, f.weights_bytes_per_device}};
  c.refs.push_back({false, f.capacity_bytes, "usable memory " + bytes(f.capacity_bytes), kPurple});
  if (d.model.max_context > 0) c.refs.push_back({true, double(d.model.max_context), "model max " + grouped(d.model.max_context), "#777777"});
  if (cross > 0)
    c.labels.push_back({cross, f.weights_bytes_per_device, "KV = weights at " + grouped(int64_t(std::llround(cross))) + " tokens", kRed, true});
  return svg::render(c);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> report_charts(const ReportData& d) {
  std::vector<std::pair<std::string, std::string>> charts = {
      {"memory", memory_chart(d)},           {"roofline", roofline_chart(d)},       {"field", field_chart(d)},
      {"batch-tokens", batch_tokens_chart(d)}, {"batch-cost", batch_cost_chart(d)}, {"kv-context", kv_chart(d)}};
  if (!d.validation.is_null()) charts.push_back({"law", validation_chart(d.validation)});
  return charts;
}

}  // namespace rooftop::reports
