// The calibration key grammar, read (`set`) and written (`entries`) in one place.
#include "analyzer/calibrated_rates.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "formats/formats.h"

namespace rooftop {

double rate_at_width(const WidthRates& rates, double k) {
  if (k <= rates.front().first) return rates.front().second;
  if (k >= rates.back().first) return rates.back().second;
  auto hi = std::lower_bound(rates.begin(), rates.end(), std::make_pair(k, 0.0));
  auto lo = hi - 1;
  const double f = std::log(k / lo->first) / std::log(hi->first / lo->first);
  return lo->second + f * (hi->second - lo->second);
}

double GemmRates::min_tokens_at(double k) const {
  if (min_tokens.empty()) return 0;
  auto it = std::upper_bound(min_tokens.begin(), min_tokens.end(), std::make_pair(k, HUGE_VAL));
  return it == min_tokens.begin() ? it->second : std::prev(it)->second;
}

namespace {

constexpr std::string_view kBytes = "_bytes_per_s", kFlops = "_flops_per_s", kFraction = "_fraction_of_ceiling";
constexpr const char* kGemvKinds[] = {"gemv_batch16_", "gemv_batch4_", "gemv_"};  // longest first

bool starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends(std::string_view s, std::string_view p) { return s.size() >= p.size() && s.substr(s.size() - p.size()) == p; }

// A width of 1 to 9 digits (under 1e9: the keys come from a file), or nullopt.
std::optional<double> width(std::string_view digits) {
  if (digits.empty() || digits.size() > 9 || digits[0] == '0') return std::nullopt;
  for (char c : digits)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  return std::stod(std::string(digits));
}
// "_m<d>_k<d>": one kernel run at its own shape.
bool is_shape(std::string_view v) {
  if (!starts(v, "_m")) return false;
  const auto k = v.find("_k", 2);
  return k != std::string_view::npos && width(v.substr(2, k - 2)) && width(v.substr(k + 2));
}

// The format a kernel name's stem starts with ("q4_k" in "q4_k_arith_k1536"), the longest known name or alias
// that is the whole stem or is followed by '_'. Empty when none.
std::string_view format_prefix(std::string_view stem) {
  std::string_view best;
  for (const auto& f : all_formats()) {
    auto consider = [&](const std::string& n) {
      if (n.size() > best.size() && starts(stem, n) && (stem.size() == n.size() || stem[n.size()] == '_'))
        best = stem.substr(0, n.size());
    };
    consider(f.name);
    for (const auto& a : f.aliases) consider(a);
  }
  return best;
}

// The key spelling of a format: ggml's name where the format table ties it to a ggml type ("f32" for fp32), else
// the analyzer's.
std::string key_format(const std::string& name) {
  for (const auto& f : all_formats())
    if (f.name == name) return f.ggml_name();
  return name;
}

void put_width(WidthRates& rates, double k, double v) {
  auto it = std::lower_bound(rates.begin(), rates.end(), std::make_pair(k, 0.0),
                             [](const auto& a, const auto& b) { return a.first < b.first; });
  if (it != rates.end() && it->first == k) it->second = v;
  else rates.insert(it, {k, v});
}

}  // namespace

bool CalibratedRates::set(std::string_view key, double value) {
  if (!std::isfinite(value) || value < 0) return false;
  // Fixed costs.
  const std::pair<std::string_view, std::optional<double> OverheadRates::*> fixed[] = {
      {"overhead_per_layer_s", &OverheadRates::per_layer_s},
      {"overhead_per_step_s", &OverheadRates::per_step_s},
      {"overhead_sync_per_layer_s", &OverheadRates::sync_per_layer_s},
      {"overhead_per_value_s", &OverheadRates::per_value_s},
      {"overhead_region_start_s", &OverheadRates::region_start_s},
      {"overhead_attention_row_s", &OverheadRates::attention_row_s}};
  for (const auto& [name, member] : fixed)
    if (key == name) return overhead.*member = value, true;
  if (value == 0) return false;  // a rate of 0 is no measurement (a fixed cost of 0 is one: no cost seen)
  if (key == "cache_resident_bytes") return cache_resident_bytes = value, true;
  if (constexpr std::string_view kMinTokens = "_min_tokens_k"; starts(key, "gemm_") && key.find(kMinTokens) != std::string_view::npos) {
    const size_t at = key.rfind(kMinTokens);
    const std::string_view fmt = key.substr(5, at - 5);
    const auto k = width(key.substr(at + kMinTokens.size()));
    if (fmt.empty() || format_prefix(fmt) != fmt || !k || value != std::floor(value)) return false;
    return put_width(formats[find_format(fmt).name].gemm.min_tokens, *k, value), true;
  }
  auto report = [&] { return reported[std::string(key)] = value, true; };
  // Figures shown only: whole-machine bandwidths and GPU power.
  for (std::string_view k : {"memory_bandwidth_1thread_bytes_per_s", "device_memory_bytes", "power_watts_during_decode",
                             "joules_per_token"})
    if (key == k) return report();
  if (ends(key, kBytes) && !key.substr(0, key.size() - kBytes.size()).empty()) {
    const std::string_view level = key.substr(0, key.size() - kBytes.size());
    if (level == "dram" || (level.size() == 2 && level[0] == 'l' && std::isdigit(static_cast<unsigned char>(level[1]))))
      return report();  // a cache level's read bandwidth
    if (starts(level, "stream_") && level.size() > 7 &&
        std::all_of(level.begin() + 7, level.end(), [](char c) { return std::islower(static_cast<unsigned char>(c)) || c == '_' || std::isdigit(static_cast<unsigned char>(c)); }))
      return report();  // STREAM's copy/scale/add/triad/read
  }
  // A kernel's figure: <name>_bytes_per_s, <name>_flops_per_s or <name>_fraction_of_ceiling.
  const bool bytes = ends(key, kBytes), flops = ends(key, kFlops), fraction = ends(key, kFraction);
  if (!bytes && !flops && !fraction) return false;
  const std::string_view name = key.substr(0, key.size() - (bytes ? kBytes : flops ? kFlops : kFraction).size());
  // A GPU's copy and read kernels (its DRAM roof); OpenBLAS's fp32 GEMM, timed beside ours as a reference.
  if (name == "copy" || name == "read") return report();
  if (starts(name, "sgemm_openblas") && (name.size() == 14 || is_shape(name.substr(14)))) return report();
  if (starts(name, "attention_")) {
    const bool prefill = starts(name, "attention_prefill_");
    std::string_view fmt = name.substr(prefill ? 18 : 10);
    // A prefill run at another prompt length ("_p64": shown) and the marginal FLOP rate fitted beside the row cost.
    bool marginal = false, other_length = false;
    if (prefill && ends(fmt, "_marginal")) marginal = true, fmt.remove_suffix(9);
    if (const size_t at = fmt.rfind("_p"); prefill && !marginal && at != std::string_view::npos && at + 2 < fmt.size() &&
        std::all_of(fmt.begin() + static_cast<std::ptrdiff_t>(at + 2), fmt.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      other_length = true, fmt = fmt.substr(0, at);
    if (fmt.empty() || format_prefix(fmt) != fmt) return false;
    const std::string canonical = find_format(fmt).name;
    if (fraction || other_length) return report();
    if (marginal) return flops && canonical == "fp32" ? (attention_prefill_marginal_flops_per_s = value, true) : report();
    if (prefill && flops && canonical == "fp32") return attention_prefill_flops_per_s = value, true;
    if (!prefill && bytes) return attention_bytes_per_s[canonical] = value, true;
    return report();
  }
  const bool gemm = starts(name, "gemm_");
  const char* kind = "gemm_";
  if (!gemm) {
    kind = nullptr;
    for (const char* k : kGemvKinds)
      if (starts(name, k)) { kind = k; break; }
    if (!kind) return false;
  }
  const std::string_view stem = name.substr(std::string_view(kind).size());
  const std::string_view fmt = format_prefix(stem);
  if (fmt.empty()) return false;
  const std::string_view variant = stem.substr(fmt.size());
  const std::string canonical = find_format(fmt).name;
  if (gemm) {
    // The format's entry is created only when a priced figure is filed.
    auto file = [&](double GemmRates::*member) { return (formats[canonical].gemm.*member) = value, true; };
    if (variant.empty() && flops) return file(&GemmRates::flops_per_s);
    if (variant == "_pack" && bytes) return file(&GemmRates::pack_bytes_per_s);
    if (starts(variant, "_pack_k") && bytes)
      if (auto k = width(variant.substr(7))) return put_width(formats[canonical].gemm.pack_widths, *k, value), true;
    if (variant == "_marginal" && flops) return file(&GemmRates::marginal_flops_per_s);
    if (variant == "_marginal_large" && flops) return file(&GemmRates::marginal_large_flops_per_s);
    if (variant == "_act" && bytes) return file(&GemmRates::act_bytes_per_s);
    if (variant == "_dram" && bytes) return file(&GemmRates::dram_bytes_per_s);
    // "_n16": another token count; "_n16_dram": the same with the weights cycled through DRAM; a shape's
    // ("_m1536_k576_n16") the same at that shape
    std::string_view tokens = variant;
    if (ends(tokens, "_dram")) tokens.remove_suffix(5);
    if (const size_t at = tokens.rfind("_n"); at != std::string_view::npos && at > 0 && is_shape(tokens.substr(0, at)))
      tokens.remove_prefix(at);
    const bool shown = variant.empty() || variant == "_pack" || variant == "_marginal" || variant == "_marginal_large" ||
                       variant == "_act" || variant == "_dram" || variant == "_dequant_sgemm_openblas" || is_shape(variant) ||
                       (starts(variant, "_pack_k") && width(variant.substr(7))) ||
                       (starts(tokens, "_n") && width(tokens.substr(2)));
    return shown && report();
  }
  auto rates = [&]() -> GemvRates& {
    FormatRates& f = formats[canonical];
    return std::string_view(kind) == "gemv_" ? f.gemv : std::string_view(kind) == "gemv_batch4_" ? f.batch4 : f.batch16;
  };
  if (variant.empty() && bytes) return rates().bytes_per_s = value, true;
  if (variant.empty() && flops) return rates().flops_per_s = value, true;
  if (variant == "_arith" && flops) return rates().arith_flops_per_s = value, true;
  if (starts(variant, "_arith_k") && flops)
    if (auto k = width(variant.substr(8))) return put_width(rates().arith_flops, *k, value), true;
  if (starts(variant, "_stream_k") && bytes)
    if (auto k = width(variant.substr(9))) return put_width(rates().stream_bytes_per_s, *k, value), true;
  const bool shown = variant.empty() || variant == "_arith" || is_shape(variant) ||
                     (starts(variant, "_arith_k") && width(variant.substr(8))) ||
                     (starts(variant, "_stream_k") && width(variant.substr(9)));
  return shown && report();
}

std::map<std::string, double> CalibratedRates::entries() const {
  std::map<std::string, double> out = reported;
  auto put = [&](const std::string& key, double v) {
    if (v > 0) out[key] = v;
  };
  for (const auto& [name, f] : formats) {
    const std::string fmt = key_format(name);
    const std::pair<const char*, const GemvRates*> kinds[] = {{"gemv_", &f.gemv}, {"gemv_batch4_", &f.batch4}, {"gemv_batch16_", &f.batch16}};
    for (const auto& [kind, g] : kinds) {
      const std::string base = kind + fmt;
      put(base + "_bytes_per_s", g->bytes_per_s);
      put(base + "_flops_per_s", g->flops_per_s);
      put(base + "_arith_flops_per_s", g->arith_flops_per_s);
      for (const auto& [k, v] : g->stream_bytes_per_s) put(base + "_stream_k" + std::to_string(static_cast<long long>(k)) + "_bytes_per_s", v);
      for (const auto& [k, v] : g->arith_flops) put(base + "_arith_k" + std::to_string(static_cast<long long>(k)) + "_flops_per_s", v);
    }
    const std::string base = "gemm_" + fmt;
    put(base + "_flops_per_s", f.gemm.flops_per_s);
    put(base + "_pack_bytes_per_s", f.gemm.pack_bytes_per_s);
    for (const auto& [k, v] : f.gemm.pack_widths) put(base + "_pack_k" + std::to_string(static_cast<long long>(k)) + "_bytes_per_s", v);
    put(base + "_marginal_flops_per_s", f.gemm.marginal_flops_per_s);
    put(base + "_marginal_large_flops_per_s", f.gemm.marginal_large_flops_per_s);
    put(base + "_act_bytes_per_s", f.gemm.act_bytes_per_s);
    put(base + "_dram_bytes_per_s", f.gemm.dram_bytes_per_s);
    for (const auto& [k, n] : f.gemm.min_tokens) put(base + "_min_tokens_k" + std::to_string(static_cast<long long>(k)), n);
  }
  for (const auto& [name, v] : attention_bytes_per_s) put("attention_" + key_format(name) + "_bytes_per_s", v);
  put("attention_prefill_f32_flops_per_s", attention_prefill_flops_per_s);
  put("attention_prefill_f32_marginal_flops_per_s", attention_prefill_marginal_flops_per_s);
  put("cache_resident_bytes", cache_resident_bytes);
  const std::pair<const char*, const std::optional<double>*> fixed[] = {
      {"overhead_per_layer_s", &overhead.per_layer_s},         {"overhead_per_step_s", &overhead.per_step_s},
      {"overhead_sync_per_layer_s", &overhead.sync_per_layer_s}, {"overhead_per_value_s", &overhead.per_value_s},
      {"overhead_region_start_s", &overhead.region_start_s}, {"overhead_attention_row_s", &overhead.attention_row_s}};
  for (const auto& [key, v] : fixed)
    if (*v) out[key] = **v;  // 0 is a measurement here (no start cost seen)
  return out;
}

std::optional<double> CalibratedRates::get(std::string_view key) const {
  const auto all = entries();
  auto it = all.find(std::string(key));
  if (it == all.end()) return std::nullopt;
  return it->second;
}

bool CalibratedRates::empty() const {
  const OverheadRates& o = overhead;
  return formats.empty() && attention_bytes_per_s.empty() && attention_prefill_flops_per_s == 0 &&
         attention_prefill_marginal_flops_per_s == 0 && cache_resident_bytes == 0 && reported.empty() && !o.per_layer_s && !o.per_step_s &&
         !o.sync_per_layer_s && !o.per_value_s && !o.region_start_s && !o.attention_row_s;
}

const FormatRates* CalibratedRates::format(std::string_view name) const {
  const std::string_view fmt = format_prefix(name);
  if (fmt.size() != name.size()) return nullptr;
  auto it = formats.find(find_format(fmt).name);
  return it == formats.end() ? nullptr : &it->second;
}

void CalibratedRates::clear_gemm(std::string_view name) {
  const std::string_view fmt = format_prefix(name);
  if (fmt.size() != name.size()) return;
  if (auto it = formats.find(find_format(fmt).name); it != formats.end()) it->second.gemm = {};
}

void CalibratedRates::clear_kernel_rates() {
  formats.clear();
  attention_bytes_per_s.clear();
  attention_prefill_flops_per_s = 0;
  attention_prefill_marginal_flops_per_s = 0;
}

}  // namespace rooftop
