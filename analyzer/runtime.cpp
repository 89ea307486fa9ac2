// Runtime profiles' terms applied to a pass: see runtime.h.
#include "analyzer/runtime.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "base/suggest.h"
#include "formats/formats.h"
#include "analyzer/speed.h"
#include "base/text.h"

namespace rooftop {

FormatFamily format_family(std::string_view f) {
  auto starts = [&](std::string_view p) { return f.substr(0, p.size()) == p; };
  if (f == "fp32" || f == "fp16" || f == "bf16" || f == "f32" || f == "f16") return FormatFamily::float_;
  if (starts("fp8")) return FormatFamily::fp8;
  if (f == "mxfp4" || f == "nvfp4" || f == "fp4") return FormatFamily::fp4;
  if (f == "int8" || starts("q8_0")) return FormatFamily::int8;
  if (f == "q4_0" || f == "q4_1" || f == "q5_0" || f == "q5_1") return FormatFamily::legacy;
  if (starts("int4") || starts("mlx_")) return FormatFamily::int4;
  if (starts("q2_k") || starts("q3_k") || starts("iq1") || starts("iq2") || starts("iq3")) return FormatFamily::lowbit;
  if ((starts("q") && f.find("_k") != std::string_view::npos) || starts("iq")) return FormatFamily::kquant;
  return FormatFamily::float_;
}

const std::vector<std::string>& format_family_names() {
  static const std::vector<std::string> names = {"float", "fp8", "fp4", "int8", "kquant", "legacy", "int4", "lowbit"};
  return names;
}

const char* format_family_name(FormatFamily f) { return format_family_names()[static_cast<int>(f)].c_str(); }

bool is_integer_quantized(FormatFamily f) {
  return f == FormatFamily::int8 || f == FormatFamily::kquant || f == FormatFamily::legacy || f == FormatFamily::int4 || f == FormatFamily::lowbit;
}

std::string vendor_of(std::string_view arch) {
  if (arch == "pascal" || arch == "volta" || arch == "turing" || arch == "ampere" || arch == "ada" || arch == "hopper" ||
      arch == "blackwell")
    return "nvidia";
  if (arch.substr(0, 6) == "apple-") return "apple";
  if (arch.substr(0, 4) == "rdna" || arch.substr(0, 4) == "cdna") return "amd";
  if (arch == "tpu") return "google";
  if (arch == "trainium") return "aws";
  if (arch == "zen4" || arch == "x86" || arch == "armv9" || arch == "arm") return "cpu";
  return "";
}

const std::vector<std::string>& vendor_names() {
  static const std::vector<std::string> names = {"nvidia", "apple", "amd", "google", "aws", "cpu"};
  return names;
}

double RuntimeProfile::lookup(const std::map<std::string, double>& table, std::string_view family,
                              std::string_view arch, double fallback) {
  const std::string f(family), a(arch.empty() ? "*" : arch), v(vendor_of(arch).empty() ? "*" : vendor_of(arch));
  auto get = [&](const std::string& key) -> const double* {
    auto it = table.find(key);
    return it == table.end() ? nullptr : &it->second;
  };
  // A cell of its own (family on this architecture, or on its vendor's chips) wins.
  for (const std::string& key : {f + "/" + a, f + "/" + v})
    if (const double* x = get(key)) return *x;
  // Otherwise the family's value times the chip's adjustment: how a format's kernel streams and how a chip's memory
  // system responds are separate effects, so a chip seen only with one family informs every family on it.
  const double* top = get("*/*");
  const double base = top ? *top : fallback;
  const double* fam = get(f + "/*");
  const double* chip = get("*/" + a);
  if (!chip) chip = get("*/" + v);
  double value = fam ? *fam : base;
  if (chip && base > 0) value *= *chip / base;
  return std::min(value, 1.0);
}

const std::vector<std::string>& RuntimeProfile::architecture_terms() {
  static const std::vector<std::string> terms = {"per_layer_s", "attention_fraction", "prefill_attention_fraction",
                                                 "small_batch_lane_multiple"};
  return terms;
}

Release parse_release(std::string_view text) {
  Release r;
  auto digit = [&](size_t i) { return i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); };
  auto number = [&](size_t& i) {
    int n = 0;
    for (; digit(i); ++i) n = std::min(n * 10 + (text[i] - '0'), 1000000);
    return n;
  };
  size_t i = 0;
  if (!text.empty() && text[0] == 'b' && digit(1)) {
    // llama.cpp's build tag: "b" and the count of commits on master, ended by the text's end or a non-alphanumeric
    // character ("b7315 (build: 4d3726278)"); "b828e18c7" is a commit hash, not a tag.
    i = 1;
    const int n = number(i);
    if (i == text.size() || !std::isalnum(static_cast<unsigned char>(text[i]))) {
      r.build_tag = true;
      r.parts = {n};
      r.length = i;
    }
    return r;
  }
  i = !text.empty() && (text[0] == 'v' || text[0] == 'V') ? 1 : 0;
  std::vector<int> v;
  while (digit(i)) {
    v.push_back(number(i));
    r.length = i;
    if (i + 1 < text.size() && text[i] == '.' && digit(i + 1)) ++i;
    else break;
  }
  // One bare number ("2024") is not a release: a release has a dot.
  if (v.size() < 2) return Release{};
  while (v.size() > 1 && v.back() == 0) v.pop_back();  // 0.8 == 0.8.0 when compared
  r.parts = std::move(v);
  return r;
}

bool RuntimeProfile::covers_build(std::string_view engine_version, std::string_view date) const {
  if (release_from.empty() && release_before.empty()) return true;
  const Release v = parse_release(engine_version);
  // true: the build is at or after the boundary release (by number where the build prints one of the boundary's kind,
  // else by date; neither: before).
  auto at_or_after = [&](const std::string& boundary) {
    const Release b = parse_release(boundary);
    if (!v.parts.empty() && v.build_tag == b.build_tag) return v.parts >= b.parts;
    return !date.empty() && !release_date.empty() && std::string(date) >= release_date;
  };
  if (!release_from.empty() && !at_or_after(release_from)) return false;
  if (!release_before.empty() && at_or_after(release_before)) return false;
  return true;
}

double RuntimeProfile::term_on(const std::string& term, double scalar, std::string_view arch) const {
  if (arch.empty()) return scalar;
  auto it = by_architecture.find(term + "/" + std::string(arch));
  return it == by_architecture.end() ? scalar : it->second;
}

const ErrorBand* RuntimeProfile::band(std::string_view metric_class, std::string_view arch) const {
  const std::string m(metric_class), a(arch.empty() ? "*" : arch);
  for (const std::string& key : {m + "/" + a, m + "/*", "*/" + a, std::string("*/*")})
    for (const auto& b : bands)
      if (b.key == key) return &b;
  return nullptr;
}

RuntimeProfile generic_profile(bool cpu) {
  RuntimeProfile p;
  p.id = "generic";
  p.name = "generic (stated defaults)";
  p.description = "the analyzer's assumed efficiencies, the same for every engine, chip and format";
  p.decode_bandwidth_fraction["*/*"] = cpu ? 0.6 : 0.8;
  p.gemm_fraction["*/*"] = cpu ? 0.5 : 0.7;
  p.per_layer_s = cpu ? 20e-6 : 15e-6;
  for (const char* k : {"decode_bandwidth_fraction", "gemm_fraction", "per_layer_s", "collective_latency_s"})
    p.provenance[k] = "assumed";
  return p;
}

double compute_peak(const ChipSpec& chip, std::string_view weight_format) {
  const NumberFormat& f = find_format(weight_format);
  std::string c = compute_format_for(chip, f.mix.empty() ? f : find_format(f.mix.front().format));
  if (c == "fp8_e5m2") c = "fp8";
  return *chip.peak(c);
}

double unit_limited(double bw, double cap) {
  // (bw^-k + cap^-k)^(-1/k): within a few percent of the smaller when they are 2x apart, 21% below both when equal.
  // k = 3 was chosen among 1, 2, 3 and 4 by the leave-one-source-out error of llama.cpp decode (16%, 12%, 10%, 11%;
  // docs/runtime-profiles.md).
  constexpr double k = 3;
  return std::pow(std::pow(bw, -k) + std::pow(cap, -k), -1.0 / k);
}

double RuntimeProfile::decode_fraction(std::string_view family, const ChipSpec& chip, double fallback) const {
  double f = lookup(decode_bandwidth_fraction, family, chip.architecture, fallback);
  // A low-bit k-quant (Q2_K, Q3_K) runs the same kind of dequantizing mat-vec as the 4-6-bit k-quants but unpacks
  // more weights, with more scales, per byte: it never streams faster than they do on the same chip (PR 4766: Q2_K
  // decoded slower than Q4_0 on an RTX 3090 and a Tesla P40). Without this bound a family cell fitted from two
  // chips' records set its fraction for every other chip (llama.cpp's lowbit/* went to 1.0 on 2026-12-07).
  if (family == "lowbit") f = std::min(f, lookup(decode_bandwidth_fraction, "kquant", chip.architecture, fallback));
  const double bw = chip.memory_bandwidth_bytes_per_s;
  const double cap = unit_stream_limit(chip);
  if (!(cap > 0) || !(bw > 0)) return f;
  return unit_limited(f * bw, cap) / bw;
}

double RuntimeProfile::unit_stream_limit(const ChipSpec& chip) const {
  return unit_stream_bytes_per_cycle > 0 ? unit_stream_bytes_per_cycle * chip.unit_cycles_per_s() : 0;
}

std::pair<int64_t, int64_t> RuntimeProfile::serving_limits(const ChipSpec& chip) const {
  const std::string name = ascii_lower(chip.name);
  for (const auto& d : serving_defaults) {
    if (chip.memory_bytes < d.min_memory_bytes) continue;
    if (!d.except_name.empty() && name.find(ascii_lower(d.except_name)) != std::string::npos) continue;
    return {d.max_seqs, d.token_budget};
  }
  return {max_batch, kDefaultTokenBudget};
}

DeviceLink device_link(const ChipSpec& chip, int64_t devices, bool stated_pcie) {
  const bool in_domain = !chip.scaleup_domain_size || devices <= *chip.scaleup_domain_size;
  if (chip.scaleup_bandwidth_bytes_per_s && in_domain && !stated_pcie) return {*chip.scaleup_bandwidth_bytes_per_s / 2.0, true};
  if (chip.scaleout_bandwidth_bytes_per_s) return {*chip.scaleout_bandwidth_bytes_per_s, false};
  if (chip.scaleup_bandwidth_bytes_per_s) return {*chip.scaleup_bandwidth_bytes_per_s / 2.0, true};  // no other figure
  throw InputError("chip '" + chip.id + "' has no interconnect bandwidth on its card; " + std::to_string(devices) +
                   " devices need one (scaleup_ or scaleout_bandwidth_bytes_per_s)");
}

RuntimeRates resolve_rates(const RuntimeProfile& p, const ChipSpec& chip, double link_bytes_per_s, bool scaleup) {
  RuntimeRates r;
  const double fallback_bw = p.lookup(p.decode_bandwidth_fraction, "*", "*", 0.8);
  const double fallback_gemm = p.lookup(p.gemm_fraction, "*", "*", 0.7);
  for (int i = 0; i < kFormatFamilies; ++i) {
    const std::string& fam = format_family_names()[static_cast<size_t>(i)];
    r.weight_bw[static_cast<size_t>(i)] = chip.memory_bandwidth_bytes_per_s * p.decode_fraction(fam, chip, fallback_bw);
    r.gemm_fraction[static_cast<size_t>(i)] = RuntimeProfile::lookup(p.gemm_fraction, fam, chip.architecture, fallback_gemm);
  }
  r.float_bw = r.weight_bw[0];
  r.small_batch_tokens = static_cast<double>(p.small_batch_tokens);
  if (p.small_batch_tokens > 0) {
    const double base = chip.unit_cycles_per_s() > 0 ? chip.unit_cycles_per_s() * 256 : chip.peak("fp32").value_or(0);
    r.small_batch_flops = p.term_on("small_batch_lane_multiple", p.small_batch_lane_multiple, chip.architecture) * base;
    if (!(r.small_batch_flops > 0)) r.small_batch_tokens = 0;  // no vector-unit rate on the card: the tensor path
  }
  r.attention_fraction = p.term_on("attention_fraction", p.attention_fraction, chip.architecture);
  r.prefill_attention_fraction = p.term_on("prefill_attention_fraction", p.prefill_attention_fraction, chip.architecture);
  r.per_layer_s = p.term_on("per_layer_s", p.per_layer_s, chip.architecture);
  r.per_step_s = p.per_step_s;
  r.served = p.served;
  r.collective_latency_s = scaleup ? p.collective_latency_s : p.scaleout_collective_latency_s.value_or(p.collective_latency_s);
  r.link_bw = link_bytes_per_s * p.bus_bandwidth_fraction;
  r.fp16_accumulate = p.fp16_accumulate;
  return r;
}

CompactPass compact_pass(const PassWork& w, const ChipSpec& chip, double layers, double tp, double peak_override) {
  CompactPass c;
  c.tokens = w.tokens;
  c.layers = layers;
  c.tp = tp;
  c.prefill = w.tokens > 0 && w.ops.size() > 0 && w.tokens > w.seqs;
  for (const auto& op : w.ops) {
    CompactOp o;
    o.kind = op.kind == "matmul" ? CompactOp::matmul : op.kind == "attention" ? CompactOp::attention : CompactOp::other;
    o.family = o.kind == CompactOp::matmul ? format_family(op.weight_format) : FormatFamily::float_;
    o.bytes = op.bytes();
    o.flops = op.flops;
    // Attention and the small ops compute in the activations' format: the chip's 16-bit rate.
    o.peak = peak_override > 0 ? peak_override
                               : compute_peak(chip, o.kind == CompactOp::matmul ? op.weight_format : std::string("bf16"));
    o.peak_acc16 = o.peak;
    if (peak_override <= 0 && o.kind == CompactOp::matmul && find_format(op.weight_format).name == "fp16")
      o.peak_acc16 = chip.peak("fp16_acc16").value_or(o.peak);
    c.ops.push_back(o);
  }
  return c;
}

double allreduce_latency_steps(int64_t n) { return n > 1 ? std::log2(static_cast<double>(n)) : 0.0; }

void add_collectives(CompactPass& p, const ModelSpec& m, double tokens, int64_t tp, int64_t pp, int64_t ep,
                     double act_bytes) {
  const double hidden_bytes = tokens * static_cast<double>(m.hidden) * act_bytes;
  const double layers = static_cast<double>(m.layers);
  if (tp > 1) {
    // A pass takes its tokens through every layer (each stage in turn): two all-reduces per layer.
    const double n = static_cast<double>(tp);
    p.collectives += 2.0 * layers * allreduce_latency_steps(tp);
    p.collective_bytes += 2.0 * layers * 2.0 * (n - 1) / n * hidden_bytes;
  }
  if (pp > 1) {
    p.collectives += static_cast<double>(pp - 1);
    p.collective_bytes += static_cast<double>(pp - 1) * hidden_bytes;
  }
  if (ep > 1 && m.moe) {
    const double moe_layers = static_cast<double>(rooftop::moe_layers(m));
    const double routed = hidden_bytes * static_cast<double>(m.moe->active_experts) * static_cast<double>(ep - 1) /
                          static_cast<double>(ep);
    p.collectives += 2.0 * moe_layers * allreduce_latency_steps(ep);
    p.collective_bytes += 2.0 * moe_layers * routed;
  }
}

double CompactOp::matmul_peak(const RuntimeRates& r) const { return r.fp16_accumulate && peak_acc16 > 0 ? peak_acc16 : peak; }

double pass_seconds(const CompactPass& p, const RuntimeRates& r, std::string* bound, std::vector<double>* op_s) {
  double memory_s = 0, compute_s = 0;
  const bool small = p.tokens <= r.small_batch_tokens;
  for (const auto& o : p.ops) {
    const auto f = static_cast<size_t>(o.family);
    double bw = r.float_bw, rate = o.peak * r.gemm_fraction[0];
    if (o.kind == CompactOp::matmul) {
      bw = r.weight_bw[f];
      rate = small && is_integer_quantized(o.family) ? r.small_batch_flops : o.matmul_peak(r) * r.gemm_fraction[f];
    } else if (o.kind == CompactOp::attention) {
      if (p.prefill) rate *= r.prefill_attention_fraction;
      else {
        bw *= r.attention_fraction;
        rate *= r.attention_fraction;
      }
    }
    const double tm = o.bytes / bw, tc = o.flops / rate;
    (tc > tm ? compute_s : memory_s) += std::max(tm, tc);
    if (op_s) op_s->push_back(std::max(tm, tc) / p.tp);
  }
  if (bound) *bound = compute_s > memory_s ? "compute" : "memory";
  double s = (memory_s + compute_s) / p.tp + r.per_layer_s * p.layers + r.per_step_s;
  if (p.collectives > 0) {
    if (!(r.link_bw > 0)) throw InputError("a multi-device pass needs an interconnect bandwidth on the chip card");
    s += p.collectives * r.collective_latency_s + p.collective_bytes / r.link_bw;
  }
  return s;
}

}  // namespace rooftop
