// speed: each operation of a pass takes max(FLOPs / attained FLOP/s, bytes / attained bandwidth);
// a pass is the sum of its operations plus interconnect time and fixed per-layer costs.
#include "analyzer/speed.h"
#include "analyzer/runtime.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>
#include <vector>

#include "base/suggest.h"

namespace rooftop {

double spec_tokens_per_pass(int64_t k, double a) {
  if (k < 0) throw InputError("--draft-len must be >= 0");
  if (!(a >= 0 && a <= 1)) throw InputError("--acceptance must be in [0, 1]");
  if (a == 1.0) return static_cast<double>(k + 1);  // the limit of the geometric sum
  return (1.0 - std::pow(a, static_cast<double>(k + 1))) / (1.0 - a);
}

double spec_speedup(int64_t k, double a, double c) {
  if (c < 0) throw InputError("--draft-cost must be >= 0");
  return spec_tokens_per_pass(k, a) / (1.0 + static_cast<double>(k) * c);
}

std::string compute_format_for(const ChipSpec& chip, const NumberFormat& weights) {
  // A format the chip runs slower than fp32 is skipped: an engine computes in fp32 there instead (GP102's fp16 at
  // 1/64 of its fp32 rate: llama.cpp runs a Tesla P40's fp16 matmuls and attention in fp32; the card says so). Priced
  // at the fp16 rate, the P40's prompt processing came out 3-12x too slow (docs/runtime-profiles.md, stop 47).
  const std::optional<double> fp32 = chip.peak("fp32");
  bool slow = false;
  for (const auto& c : weights.compute) {
    const auto peak = chip.peak(c);
    if (peak && c != "fp32" && fp32 && *peak < *fp32) slow = true;
    else if (peak) return c;
  }
  if (slow) return "fp32";  // a list without fp32 (mxfp4: fp4, bf16, fp16) on a chip whose only match is slow
  std::string have;
  for (const auto& [k, v] : chip.peak_flops) have += (have.empty() ? "" : ", ") + k;
  throw InputError("chip '" + chip.id + "' has no peak rate for " + weights.name + " compute (tried " +
                   [&] { std::string s; for (auto& c : weights.compute) s += (s.empty() ? "" : "/") + c; return s; }() +
                   "); it has: " + (have.empty() ? "none" : have));
}

double ring_allreduce_s(double bytes, int64_t n, double link, double latency) {
  if (n <= 1) return 0;
  return 2.0 * static_cast<double>(n - 1) / static_cast<double>(n) * bytes / link + latency * allreduce_latency_steps(n);
}

namespace {

// A figure to three significant digits ("8.35", "1.41", "1e+03").
std::string three_digits(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

struct Rates {
  double bw = 0;       // attained bytes/s for weights and activations
  double flops = 0;    // attained FLOP/s
  const ChipSpec* chip = nullptr;
  bool use_measured = false;
  double per_layer_s = 0, per_step_s = 0;
  double per_value_s = 0;  // seconds per value of a token's small ops (PassWork::elementwise_values)
  double per_region_s = 0; // DRAM start of each matmul region (calibrated CPUs; see kMatmulRegionsPerLayer)
  // The share of the pass's weights and KV beyond the calibrated cache-resident size (1 when no size was measured,
  // 0 when the pass fits). Prefill GEMMs pay the DRAM cost of this share of their weights; decode GEMVs run at the
  // in-cache rate only when it is 0. Set per pass (pass_time).
  double dram_share = 1;
};

// The matmul regions of a decoder layer: q/k/v (one region), o, gate/up (one region), down. Each stage reads
// the previous one's output, so no decoder runs a layer's matrices in fewer parallel regions; the LM head is one
// more per pass. Each region's threads start streaming cold (see calibrate's "DRAM start of a GEMV region").
constexpr double kMatmulRegionsPerLayer = 4;

// A batch kind (`&FormatRates::batch4` or `::batch16`) that calibrate did not time for this format (a quick calibration
// times gemv_batch for f32, f16, q8_0, q4_1, q4_k and q5_0 only). The batched kernel reads each weight once for all its tokens, so
// what batching buys is a property of the kernel's structure more than of the format: the format's own one-token
// rates, at each of the op's widths, times the speed-up (batched rate over one-token rate at that width) of the
// measured formats of its family (legacy q4_0/q4_1/q5_0/q5_1, k-quants, float ...), the smallest of them. Without it
// each token was priced as its own GEMV: q4_0 prompts of 4-16 tokens came out 45-150% slow (docs/engine-speed.md,
// stop 42). Across families the speed-up does not carry: q4_1's priced q4_k prompts of 4-8 tokens 28-39% fast. Nor
// among the float formats, whose kernels differ in what they convert per weight: f32 batches 3-3.9x, f16 1.7-1.9x.
// nullopt: a float format, no measured format of the family has both rates, or this one has no one-token rates.
std::optional<GemvRates> borrowed_batch(const CalibratedRates& cal, const std::string& format, const FormatRates& f,
                                        GemvRates FormatRates::*kind, const std::vector<double>& widths) {
  const FormatFamily family = format_family(format);
  if (family == FormatFamily::float_) return std::nullopt;
  std::optional<double> arith_best, big_bytes, big_flops;  // the smallest speed-ups
  std::vector<std::optional<double>> arith_w(widths.size()), stream_w(widths.size());
  auto lower = [](std::optional<double>& into, double one, double batched) {
    if (one > 0 && batched > 0) into = std::min(into.value_or(batched / one), batched / one);
  };
  for (const auto& [name, d] : cal.formats) {
    const GemvRates& b = d.*kind;
    if (name == format || !b.measured() || format_family(name) != family) continue;
    lower(arith_best, d.gemv.arith_flops_per_s, b.arith_flops_per_s);
    lower(big_bytes, d.gemv.bytes_per_s, b.bytes_per_s);
    lower(big_flops, d.gemv.flops_per_s, b.flops_per_s);
    for (size_t i = 0; i < widths.size(); ++i) {
      if (!d.gemv.arith_flops.empty() && !b.arith_flops.empty())
        lower(arith_w[i], rate_at_width(d.gemv.arith_flops, widths[i]), rate_at_width(b.arith_flops, widths[i]));
      if (!d.gemv.stream_bytes_per_s.empty() && !b.stream_bytes_per_s.empty())
        lower(stream_w[i], rate_at_width(d.gemv.stream_bytes_per_s, widths[i]), rate_at_width(b.stream_bytes_per_s, widths[i]));
    }
  }
  GemvRates out;
  if (arith_best) out.arith_flops_per_s = f.gemv.arith_flops_per_s * *arith_best;
  if (big_bytes) out.bytes_per_s = f.gemv.bytes_per_s * *big_bytes;
  if (big_flops) out.flops_per_s = f.gemv.flops_per_s * *big_flops;
  for (size_t i = 0; i < widths.size(); ++i) {
    if (arith_w[i] && !f.gemv.arith_flops.empty())
      out.arith_flops.emplace_back(widths[i], rate_at_width(f.gemv.arith_flops, widths[i]) * *arith_w[i]);
    if (stream_w[i] && !f.gemv.stream_bytes_per_s.empty())
      out.stream_bytes_per_s.emplace_back(widths[i], rate_at_width(f.gemv.stream_bytes_per_s, widths[i]) * *stream_w[i]);
  }
  if (!out.measured()) return std::nullopt;  // (the widths come sorted: so are the rates)
  return out;
}

double op_time(const OpCost& op, const Rates& r, bool decode, double tokens, std::string* bound);

// An op priced as parts (its formats, or its GEMV and GEMM widths): the parts' times add; the op is compute-bound when
// most of its time is.
double parts_time(const std::vector<OpCost>& parts, const Rates& r, bool decode, double tokens, std::string* bound) {
  double total = 0, compute = 0;
  for (const OpCost& part : parts) {
    std::string part_bound;
    const double t = op_time(part, r, decode, tokens, &part_bound);
    total += t;
    if (part_bound == "compute") compute += t;
  }
  if (bound) *bound = 2 * compute > total ? "compute" : "memory";
  return total;
}

// Attained rate for an op: calibrated kernel rates where the chip has them (decode GEMV bytes/s,
// prefill GEMM FLOP/s per format), else the efficiency-scaled datasheet figures.
double op_time(const OpCost& op, const Rates& r, bool decode, double tokens, std::string* bound) {
  // A file's class that mixes formats (a Q4_K_M file: q4_k, q6_k on some ffn_down, q5_0 on rows of odd width):
  // each format's matrices are priced at that format's own rates and widths, and their times add.
  if (op.kind == "matmul" && !op.parts.empty()) {
    double values = 0, bytes = 0;
    std::map<std::string, std::vector<const StoredMatrices*>> by_format;
    for (const auto& m : op.parts) {
      values += m.values, bytes += m.bytes;
      by_format[m.format].push_back(&m);
    }
    std::vector<OpCost> parts;
    for (const auto& [format, matrices] : by_format) {
      OpCost& part = parts.emplace_back(op);
      part.parts.clear();
      part.weight_format = format;
      double v = 0, b = 0;
      for (const auto* m : matrices) v += m->values, b += m->bytes;
      part.flops = op.flops * v / values;
      part.weight_bytes = op.weight_bytes * b / bytes;
      part.act_bytes = op.act_bytes * v / values;
      part.widths.clear();
      for (const auto* m : matrices) part.widths.emplace_back(m->width, m->values / v);
    }
    return parts_time(parts, r, decode, tokens, bound);
  }
  double bw = r.bw, fl = r.flops;
  if (r.use_measured && r.chip) {
    const CalibratedRates& cal = r.chip->measured;
    static const FormatRates kNone;
    const FormatRates* own = cal.format(op.weight_format);
    const FormatRates& f = own ? *own : kNone;
    // The op's own token count (its FLOPs over 2 per weight): a prefill's LM head computes one token's logits.
    const double values = op.kind == "matmul" ? op.weight_bytes / find_format(op.weight_format).bytes_per_value() : 0.0;
    const double op_tokens = values > 0 ? op.flops / (2.0 * values) : tokens;
    // The engine runs a matmul of fewer tokens than its kernels' GEMM threshold for the format and row length as
    // GEMVs, inside a prefill too: the threshold calibrate recorded, else kCpuGemvMaxTokens + 1.
    auto runs_gemv = [&](double k) {
      const double min_tokens = f.gemm.min_tokens_at(k);
      return op_tokens <= (min_tokens > 0 ? min_tokens - 1 : kCpuGemvMaxTokens) + 1e-9;
    };
    // An op whose matrices' row lengths fall on both sides of the threshold (an FFN's up at k = hidden, its down at
    // k = ffn) is priced as two: its GEMV widths and its GEMM widths, each with its share of the work.
    if (!decode && op.kind == "matmul" && op.widths.size() > 1 && !f.gemm.min_tokens.empty()) {
      double gemv_share = 0;
      for (const auto& [k, share] : op.widths) gemv_share += runs_gemv(k) ? share : 0.0;
      if (gemv_share > 0 && gemv_share < 1) {
        std::vector<OpCost> parts;
        for (const bool as_gemv : {true, false}) {
          OpCost& part = parts.emplace_back(op);
          const double share = as_gemv ? gemv_share : 1 - gemv_share;
          part.widths.clear();
          for (const auto& [k, s] : op.widths)
            if (runs_gemv(k) == as_gemv) part.widths.emplace_back(k, s / share);
          part.flops *= share, part.weight_bytes *= share, part.act_bytes *= share;
        }
        return parts_time(parts, r, decode, tokens, bound);
      }
    }
    const bool gemv = decode || (op.kind == "matmul" && runs_gemv(op.widths.empty() ? 0.0 : op.widths.front().first));
    if (op.kind == "matmul" && gemv) {
      if (!decode) tokens = std::max(1.0, std::round(op_tokens));
      // Two measured ceilings per format: the GEMV's streaming rate on a matrix far larger than the
      // caches (bytes/s), and its arithmetic rate on a cache-resident one (FLOP/s: dequantization and
      // dot products with no memory stall), so a 4-bit GEMV on 2 cores can be compute-bound.
      // Without per-width rates (an older calibration file): the single-token streaming rate at 14336x4096
      // as the memory roof, else the batched one, and the best in-cache arithmetic rate.
      const WidthRates& single = f.gemv.stream_bytes_per_s;
      // The op's time with kernel `kind` (measured at `n` tokens), its FLOPs and activations scaled to n tokens.
      auto kind_time = [&](const GemvRates& kind, double n, std::string* kind_bound) -> std::optional<double> {
        const bool batched = &kind != &f.gemv;
        const double kbw = f.gemv.bytes_per_s > 0 ? f.gemv.bytes_per_s : kind.bytes_per_s > 0 ? kind.bytes_per_s : bw;
        const double kfl = kind.arith_flops_per_s > 0                 ? kind.arith_flops_per_s
                           : kind.flops_per_s > 0 && batched ? kind.flops_per_s  // its streaming run's rate
                                                             : fl;
        const double scale = tokens > 0 ? n / tokens : 1.0, flops = op.flops * scale, bytes = op.bytes() + op.act_bytes * (scale - 1);
        // Both rates depend on the row length k (per-row reductions, partial SIMD groups, the prefetchers
        // restarting every row), so with rates measured at several widths each of the op's widths gets its own
        // memory and compute roof and its own max(); the widths' times add.
        // Several tokens: the batched kernel's own DRAM rate per width where measured (it stays below the
        // single-token one when the arithmetic per byte grows and overlaps the loads worse), else the
        // single-token rates. The single-token rate is what DRAM delivers; an op that takes over 10% longer
        // than that is called compute-bound.
        const WidthRates& streams = batched && !kind.stream_bytes_per_s.empty() ? kind.stream_bytes_per_s : single;
        const WidthRates& ariths = kind.arith_flops;
        if ((streams.empty() && ariths.empty()) || op.widths.empty()) return std::nullopt;
        double total = 0, memory = 0, compute = 0;
        for (const auto& [width, share] : op.widths) {
          const double t_dram = share * bytes / (single.empty() ? kbw : rate_at_width(single, width));
          const double t_stream = share * bytes / (streams.empty() ? kbw : rate_at_width(streams, width));
          const double tc = share * flops / (ariths.empty() ? kfl : rate_at_width(ariths, width));
          // A pass held whole in the cache takes the in-cache GEMV's time (its arithmetic rate). One that does not
          // fit streams every weight from DRAM: each step sweeps the weights in the same order, which leaves a cache
          // nothing to reuse (held out on this VM: a blend by share priced 0.25-0.8 GB files' decode 15-32% too
          // fast, all-DRAM within 1-7%; docs/serving.md).
          const double t = r.dram_share == 0 && !ariths.empty() ? tc : std::max(t_stream, tc);
          total += t;
          (t > 1.1 * t_dram ? compute : memory) += t;
        }
        if (kind_bound) *kind_bound = compute > memory ? "compute" : "memory";
        return total;
      };
      // The kernels are measured at 1, 4 and 16 tokens. A token count between two measured ones is priced on the
      // line between their times: the batched kernel reads each weight once and adds each token's arithmetic, so
      // its time grows about linearly in the tokens (this VM, q4_1 1536 x 576: 19.4, 28.2, 34.4, 46.1 us at 1-4
      // tokens, 80.5 at 8, 153.6 at 16; the line gives 28.3, 37.2 and 81.9). Beyond 16: the 16-token kernel's
      // rates, scaled by the tokens' FLOPs.
      // A batch size calibrate did not time for this format: borrowed_batch's rates.
      std::vector<double> widths;  // the op's row lengths, each once
      for (const auto& w : op.widths) widths.push_back(w.first);
      std::sort(widths.begin(), widths.end());
      widths.erase(std::unique(widths.begin(), widths.end()), widths.end());
      std::optional<GemvRates> borrowed4, borrowed16;
      if (!f.batch4.measured()) borrowed4 = borrowed_batch(cal, op.weight_format, f, &FormatRates::batch4, widths);
      if (!f.batch16.measured()) borrowed16 = borrowed_batch(cal, op.weight_format, f, &FormatRates::batch16, widths);
      const GemvRates* b4 = f.batch4.measured() ? &f.batch4 : borrowed4 ? &*borrowed4 : nullptr;
      const GemvRates* b16 = f.batch16.measured() ? &f.batch16 : borrowed16 ? &*borrowed16 : nullptr;
      struct Point { const GemvRates* kind; double n; };
      std::vector<Point> points = {{&f.gemv, 1}};
      if (b4) points.push_back({b4, 4});
      if (b16) points.push_back({b16, 16});
      for (size_t i = 0; i + 1 < points.size(); ++i) {
        const Point lo = points[i], hi = points[i + 1];
        if (!(tokens > lo.n && tokens < hi.n)) continue;
        const auto t_lo = kind_time(*lo.kind, lo.n, nullptr), t_hi = kind_time(*hi.kind, hi.n, bound);
        if (t_lo && t_hi && std::isfinite(*t_lo) && std::isfinite(*t_hi)) return *t_lo + (*t_hi - *t_lo) * (tokens - lo.n) / (hi.n - lo.n);
      }
      // The nearest measured (or borrowed) batch at or below the tokens: 16, 4, else one token.
      const GemvRates& kind = tokens >= 16 && b16 ? *b16 : tokens >= 2 && b4 ? *b4 : f.gemv;
      if (const auto t = kind_time(kind, tokens, bound)) return *t;
      // No per-width rates: the generic roofline below at the kind's rates.
      if (f.gemv.bytes_per_s > 0) bw = f.gemv.bytes_per_s;
      else if (kind.bytes_per_s > 0) bw = kind.bytes_per_s;
      if (kind.arith_flops_per_s > 0) fl = kind.arith_flops_per_s;
      else if (kind.flops_per_s > 0 && &kind != &f.gemv) fl = kind.flops_per_s;
    }
    if (op.kind == "matmul" && !gemv) {
      const GemmRates& g = f.gemm;
      if (g.flops_per_s > 0) fl = g.flops_per_s;
      // Calibrated as t(n) = A + B n: dequantize-and-pack every weight once per pass, then the FLOPs. `pack_bytes` is
      // the op's weights counted in the bytes of the format whose rates `m` are (another one's, below).
      auto pack_model_time = [&](const GemmRates& m, double pack_bytes) {
        if (bound) *bound = "compute";
        // The activations in and out (fp32) at their measured rate, where calibrate could separate it; and, with
        // the weights beyond the cache, the extra time of reading them from DRAM.
        const double act_s = (m.act_bytes_per_s > 0 ? op.act_bytes / m.act_bytes_per_s : 0.0) +
                             (m.dram_bytes_per_s > 0 ? r.dram_share * op.weight_bytes / m.dram_bytes_per_s : 0.0);
        // Dequantize-and-pack at each of the op's row lengths: the rate measured at the shorter rows where calibrate
        // filed one, interpolated in log k up to the wide shape's (k = 4096), whose rate serves longer rows.
        double pack_s = pack_bytes / m.pack_bytes_per_s;
        if (!m.pack_widths.empty() && !op.widths.empty()) {
          WidthRates rates = m.pack_widths;  // sorted by k; the wide shape's rate at its k unless filed there
          if (std::none_of(rates.begin(), rates.end(), [](const auto& p) { return p.first == kCalibratedGemmWideK; }))
            rates.insert(std::upper_bound(rates.begin(), rates.end(), std::make_pair(kCalibratedGemmWideK, 0.0)),
                         {kCalibratedGemmWideK, m.pack_bytes_per_s});
          pack_s = 0;
          for (const auto& [width, share] : op.widths) pack_s += share * pack_bytes / rate_at_width(rates, width);
        }
        // Past the knot, the tokens beyond it at the slope measured there.
        if (m.marginal_large_flops_per_s > 0 && op_tokens > kCalibratedGemmKnotTokens) {
          const double below = op.flops * kCalibratedGemmKnotTokens / op_tokens;
          return pack_s + below / m.marginal_flops_per_s + (op.flops - below) / m.marginal_large_flops_per_s + act_s;
        }
        return pack_s + op.flops / m.marginal_flops_per_s + act_s;
      };
      if (g.has_pack_model()) return pack_model_time(g, op.weight_bytes);
      // A format without its own pair (a quick calibration measures f32, q8_0 and q4_1 only) is priced with the
      // slowest of each rate among the measured formats of its own kind (pack rates counted in weights per second, at
      // each row length): integer-quantized formats share one GEMM (int8 operands where the CPU has VNNI, else fp32
      // panels of dequantized weights) and float formats another. Without this the op fell back to the peak: a
      // Q4_K_M file's prefill was predicted 3-10x too fast (docs/validate-files.md); priced at the fp32 GEMM's rate, a
      // q4_k prefill on the int8 GEMM was predicted 2x too slow. One format's whole model (the slowest packing one)
      // priced Gemma 3's q4_k FFN 39% fast where q8_0's FLOPs came out nearly free (docs/validate-files.md, stop 39).
      const bool op_integer = is_integer_quantized(format_family(op.weight_format));
      for (bool same_kind : {true, false}) {
        // Pack rates in weights per second (priced against the op's weight count); the activation and DRAM rates
        // stay in bytes per second (priced against the op's own activation and weight bytes). A slowest FLOP rate
        // from a format whose slope was not split (no activation rate) already holds its activations: with another
        // format's activation rate beside it they count twice, on the slow side.
        GemmRates slowest;
        bool any = false;
        auto lower = [](double& into, double v) { if (v > 0) into = into > 0 ? std::min(into, v) : v; };
        std::vector<double> widths;  // the op's own row lengths: each takes the slowest format's rate at that length
        for (const auto& w : op.widths) widths.push_back(w.first);
        for (const auto& entry : cal.formats) {  // not a structured binding: clang 14 cannot capture one
          const GemmRates& o = entry.second.gemm;
          if (!o.has_pack_model() || (same_kind && is_integer_quantized(format_family(entry.first)) != op_integer)) continue;
          const double bpv = find_format(entry.first).bytes_per_value();
          WidthRates own = o.pack_widths;
          if (std::none_of(own.begin(), own.end(), [](const auto& p) { return p.first == kCalibratedGemmWideK; }))
            own.insert(std::upper_bound(own.begin(), own.end(), std::make_pair(kCalibratedGemmWideK, 0.0)),
                       {kCalibratedGemmWideK, o.pack_bytes_per_s});
          lower(slowest.pack_bytes_per_s, o.pack_bytes_per_s / bpv);
          for (double k : widths) {
            const double v = rate_at_width(own, k) / bpv;
            auto it = std::find_if(slowest.pack_widths.begin(), slowest.pack_widths.end(), [&](const auto& p) { return p.first == k; });
            if (it == slowest.pack_widths.end()) slowest.pack_widths.emplace_back(k, v);
            else it->second = std::min(it->second, v);
          }
          lower(slowest.marginal_flops_per_s, o.marginal_flops_per_s);
          lower(slowest.marginal_large_flops_per_s, o.marginal_large_flops_per_s);
          lower(slowest.act_bytes_per_s, o.act_bytes_per_s);
          lower(slowest.dram_bytes_per_s, o.dram_bytes_per_s);
          any = true;
        }
        std::sort(slowest.pack_widths.begin(), slowest.pack_widths.end());
        if (any && g.flops_per_s <= 0) return pack_model_time(slowest, values);  // its own rate first
      }
    }
    if (op.kind == "attention") {
      if (auto it = cal.attention_bytes_per_s.find(op.weight_format == "fp32" ? "fp32" : "fp16");
          it != cal.attention_bytes_per_s.end() && it->second > 0)
        bw = it->second;
      // Causal prefill attention is arithmetic (QK^T and PV over P(P+1)/2 pairs): its measured FLOP/s
      // (fp32 scores whatever the KV format) is the compute ceiling, not the GEMM's or the peak.
      if (!decode && cal.attention_prefill_flops_per_s > 0) fl = cal.attention_prefill_flops_per_s;
      // With the row cost measured: each (token, head) row's fixed work plus the FLOPs at the marginal rate. A
      // 64-token prompt then costs 1.5-2.5x what the 256-token rate alone says (docs/serving.md, stop 37).
      if (!decode && cal.attention_prefill_marginal_flops_per_s > 0 && cal.overhead.attention_row_s) {
        const double tc = op.flops / cal.attention_prefill_marginal_flops_per_s + op.query_rows * *cal.overhead.attention_row_s;
        const double tm = op.bytes() / bw;
        if (bound) *bound = tc > tm ? "compute" : "memory";
        return std::max(tm, tc);
      }
    }
  }
  const double tm = op.bytes() / bw, tc = op.flops / fl;
  if (bound) *bound = tc > tm ? "compute" : "memory";
  return std::max(tm, tc);
}

struct PassTime {
  double s = 0, memory_s = 0, compute_s = 0, comm_s = 0;
  std::string bound;
  std::vector<double> op_s;
  FixedByStage fixed;  // the costs outside the ops, by the engine's stage (calibrated CPUs; else all small_ops)
};

PassTime pass_time(const PassWork& w, const Rates& r, bool decode, double devices_split, double layers, bool simple,
                   double tokens = 1) {
  PassTime t;
  if (simple) {  // the seeds: one roofline for the whole step
    const double tm = w.bytes() / r.bw, tc = w.flops / r.flops;
    t.s = std::max(tm, tc);
    t.bound = tc > tm ? "compute" : "memory";
    t.op_s.push_back(t.s);
    return t;
  }
  // How much of the pass's weights and KV exceeds what the read sweep found resident in a calibrated CPU's cache.
  // A prefill pays the DRAM cost of that share (held out on this VM, files of 0.38-0.8 GB beside its 190 MB share:
  // TTFT median error 20% -> 8%, docs/serving.md).
  Rates rr = r;
  const double resident_bytes = r.chip && r.use_measured ? r.chip->measured.cache_resident_bytes : 0.0;
  const double pass_bytes = w.weight_bytes + w.kv_read_bytes;
  if (resident_bytes > 0 && pass_bytes > 0) rr.dram_share = std::max(0.0, 1.0 - resident_bytes / pass_bytes);
  for (const auto& op : w.ops) {
    std::string b;
    const double s = op_time(op, rr, decode, tokens, &b) / devices_split;
    t.op_s.push_back(s);
    t.s += s;
    (b == "compute" ? t.compute_s : t.memory_s) += s;
  }
  // Calibrated CPU: the layer's barriers, plus every token's small ops (norms, RoPE, SwiGLU) at the
  // measured cost per value, so a small model's layer and a batch's or a prompt's tokens pay their own size.
  const double values_s = r.per_value_s * w.tokens * layers, ops_s = t.s;
  t.s += (r.per_layer_s + r.per_value_s * w.elementwise_values * w.tokens) * layers + r.per_step_s;
  t.s += r.per_region_s * (kMatmulRegionsPerLayer * layers + 1);
  // The same costs by the engine's stages: each matmul region's start with its stage (q/k/v and the output
  // projection, gate/up and down, the head), the input norms' values with the norms; the barriers, the step's
  // cost and the other small ops' values (RoPE, residual adds, SwiGLU, Gemma's post- and q/k-norms) as small_ops.
  t.fixed.attn_proj = r.per_region_s * 2 * layers;
  t.fixed.ffn = r.per_region_s * 2 * layers;
  t.fixed.lm_head = r.per_region_s;
  t.fixed.norms = values_s * w.norm_values;
  t.fixed.small_ops = t.s - ops_s - t.fixed.attn_proj - t.fixed.ffn - t.fixed.lm_head - t.fixed.norms;
  t.bound = t.compute_s > t.memory_s ? "compute" : "memory";
  return t;
}

// A calibrated chip's measured fixed costs of a pass.
void set_calibrated_fixed_costs(const ChipSpec& chip, Rates& rates) {
  const OverheadRates& fixed = chip.measured.overhead;
  if (fixed.per_layer_s) rates.per_layer_s = *fixed.per_layer_s;
  if (fixed.per_step_s) rates.per_step_s = *fixed.per_step_s;
  // Split form: the 5 barriers of a layer alone, plus the small ops per value they touch. Measured
  // together at Llama-3.1-8B's shape they are 66 µs, of which the barriers are 1.2 µs (workers spin
  // between regions): at SmolLM2-135M's width the same layer's small ops take a seventh of that.
  if (fixed.sync_per_layer_s && fixed.per_value_s) {
    rates.per_layer_s = *fixed.sync_per_layer_s;
    rates.per_value_s = *fixed.per_value_s;
  }
  if (fixed.region_start_s) rates.per_region_s = *fixed.region_start_s;
}

}  // namespace

struct CalibratedPricer::Impl {
  ChipSpec chip;  // its own copy: rates.chip points at it
  Rates rates;
  double layers = 0;
};

CalibratedPricer::CalibratedPricer(const ModelSpec& m, const ChipSpec& chip, const PrecisionPlan& p) {
  if (chip.measured.empty()) throw InternalError("CalibratedPricer: chip '" + chip.id + "' has no calibration");
  auto impl = std::make_shared<Impl>();
  impl->chip = chip;
  Rates& r = impl->rates;
  r.chip = &impl->chip;
  r.use_measured = true;
  // Formats the calibration lacks fall back to the datasheet at full efficiency, as speed() does.
  r.bw = chip.memory_bandwidth_bytes_per_s;
  r.flops = chip.peak(compute_format_for(chip, p.format_of(ParamClass::attention))).value_or(0);
  set_calibrated_fixed_costs(chip, r);
  impl->layers = static_cast<double>(m.layers);
  impl_ = std::move(impl);
}

double CalibratedPricer::seconds(const PassWork& w, bool decode, double tokens) const {
  return pass_time(w, impl_->rates, decode, 1, impl_->layers, false, tokens).s;
}

SpeedResult speed(const ModelSpec& m, const ChipSpec& chip, const PrecisionPlan& p, const SpeedOptions& o) {
  check_positive("prompt-tokens", o.prompt_tokens, 100'000'000);
  check_positive("output-tokens", o.output_tokens, 100'000'000);
  check_positive("tp", o.tp, 4096);
  check_positive("pp", o.pp, 4096);
  check_positive("ep", o.ep, 4096);
  if (o.batches.empty()) throw InputError("--batch needs at least one value");
  for (auto b : o.batches) check_positive("batch", b, 10'000'000);
  if (o.context) check_positive("context", *o.context, 100'000'000);
  if (o.prefill_chunk < 0) throw InputError("--prefill-chunk must be >= 0");
  if (o.ep > 1 && !m.moe) throw InputError("--ep " + std::to_string(o.ep) + " needs a mixture-of-experts model; " + m.id + " is dense");
  if (m.moe && o.ep > m.moe->experts) throw InputError("--ep exceeds the model's " + std::to_string(m.moe->experts) + " experts");
  if (chip.memory_bandwidth_bytes_per_s <= 0) throw InputError("chip '" + chip.id + "' has no memory bandwidth figure");

  SpeedResult r;
  r.model = m.id;
  r.hw = chip.id;
  r.precision = p.describe();
  r.kv_precision = p.kv_format().name;
  r.prompt_tokens = o.prompt_tokens;
  r.output_tokens = o.output_tokens;
  r.context = o.context.value_or(o.prompt_tokens + o.output_tokens / 2);
  r.tp = o.tp;
  r.pp = o.pp;
  r.ep = o.ep;
  r.devices = o.tp * o.pp;
  r.compute_format = o.compute_format ? find_format(*o.compute_format).name : compute_format_for(chip, p.format_of(ParamClass::attention));
  if (r.compute_format == "fp8_e5m2") r.compute_format = "fp8";
  auto peak = chip.peak(r.compute_format);
  if (!peak) throw InputError("chip '" + chip.id + "' has no " + r.compute_format + " peak rate; choose --compute-format from its rates");
  r.peak_flops = *peak;
  r.memory_bandwidth_bytes_per_s = chip.memory_bandwidth_bytes_per_s;

  const bool cpu = chip.kind == "cpu";
  const bool calibrated = !chip.measured.empty();
  // The runtime profile (generic unless given), with any efficiency the options state put over it. Calibrated
  // chips use their measured kernel rates unless a profile other than `rooftop` is asked for.
  RuntimeProfile prof = o.runtime ? *o.runtime : generic_profile(cpu);
  if (o.bandwidth_efficiency) {  // the attained fraction, as stated: no per-unit limit on top
    prof.decode_bandwidth_fraction = {{"*/*", *o.bandwidth_efficiency}};
    prof.unit_stream_bytes_per_cycle = 0;
  }
  if (o.flops_efficiency) prof.gemm_fraction = {{"*/*", *o.flops_efficiency}};
  if (o.layer_overhead_s) prof.per_layer_s = *o.layer_overhead_s;
  if (o.allreduce_latency_s) prof.collective_latency_s = *o.allreduce_latency_s;
  const bool use_profile = !o.simple && !(calibrated && (!o.runtime || o.runtime->use_calibration));
  r.runtime = use_profile ? prof.id : (o.simple ? "simple" : "calibrated");
  if (use_profile) r.runtime_notes = prof.notes;
  bool other_backend = false;  // the chip's vendor has no record in the profile's fit
  if (use_profile && !prof.records_by_chip.empty()) {
    auto count = [](const std::map<std::string, int64_t>& t, const std::string& k) {
      const auto it = t.find(k);
      return it == t.end() ? int64_t{0} : it->second;
    };
    const std::string card = chip.card_id.empty() ? chip.id : chip.card_id;  // a measured device counts as its card
    const int64_t on_chip = count(prof.records_by_chip, card), on_arch = count(prof.records_by_architecture, chip.architecture);
    r.runtime_records = std::make_pair(on_chip, on_arch);
    const std::string arch = chip.architecture.empty() ? "unknown-architecture" : chip.architecture;
    // The vendors the fit saw: one software backend each (CUDA, Metal, ROCm; a CPU is the engine's CPU backend). A
    // chip of another vendor runs another backend of the engine (MLX on CUDA measured 2.2x slower in decode and 4-5x
    // in prefill than the Metal-fitted profile predicts: mlx PR 3077, validate/heldout), so its prediction carries no
    // band drawn from the other vendors' records. A chip whose architecture (so vendor) is not known is not judged.
    std::set<std::string> vendors;
    for (const auto& [a, n] : prof.records_by_architecture)
      if (n > 0) vendors.insert(vendor_of(a));
    const std::string vendor = vendor_of(chip.architecture);
    other_backend = !vendor.empty() && !vendors.empty() && vendors.count(vendor) == 0;
    r.band_withheld = other_backend;
    std::string seen;
    for (const auto& v : vendors) seen += (seen.empty() ? "" : ", ") + v;
    r.runtime_notes.push_back(
        on_chip > 0 ? "fitted on " + std::to_string(on_chip) + " published records of " + card + " (" +
                          std::to_string(on_arch) + " of " + arch + " chips)"
        : on_arch > 0 ? "no published record of " + card + " in this profile's fit: its terms come from " +
                            std::to_string(on_arch) + " records of other " + arch + " chips"
        : other_backend ? "no published record of any " + (vendor.empty() ? arch : vendor) +
                              " chip in this profile's fit (fitted on " + seen + " chips only): this engine runs " +
                              "another backend here, so these figures are the profile's terms applied to this " +
                              "chip, with no error band"
                      : "no published record of " + card + " or of any " + arch +
                            " chip in this profile's fit: its terms come from records of other architectures");
  }
  const std::string family = format_family_name(format_family(p.format_of(ParamClass::dense_ffn).name));
  r.bandwidth_efficiency = o.simple ? 1.0 : use_profile ? prof.decode_fraction(family, chip, 0.8)
                                                        : o.bandwidth_efficiency.value_or(1.0);
  r.flops_efficiency = o.simple ? 1.0 : use_profile ? RuntimeProfile::lookup(prof.gemm_fraction, family, chip.architecture, 0.7)
                                                    : o.flops_efficiency.value_or(1.0);
  for (double e : {r.bandwidth_efficiency, r.flops_efficiency})
    if (!(e > 0 && e <= 1)) throw InputError("efficiency factors must be in (0, 1]");
  if (use_profile) {
    for (const char* k : {"decode_bandwidth_fraction", "unit_stream_bytes_per_cycle", "gemm_fraction", "per_layer_s", "collective_latency_s"})
      if (auto it = prof.provenance.find(k); it != prof.provenance.end()) r.provenance["runtime." + std::string(k)] = it->second;
    // Only a band of the same kind of prediction (not the all-records fallback). A chip the fit has no record of
    // takes the band of held-out records whose chip no other source measured, where the profile has one.
    const bool unseen = r.runtime_records && r.runtime_records->first == 0;
    auto band = [&](const char* cls) -> std::optional<ErrorBand> {
      if (other_backend) return std::nullopt;
      const ErrorBand* b = unseen ? prof.band(cls, kUnseenChip) : nullptr;
      if (!b || b->key != std::string(cls) + "/" + kUnseenChip) b = prof.band(cls, chip.architecture);
      if (b && b->key.rfind(std::string(cls) + "/", 0) == 0) return *b;
      return std::nullopt;
    };
    r.decode_band = band("decode");
    r.batched_band = band("batched");
    r.prefill_band = band("prefill");
  }
  auto prov = [&](const std::string& k) {
    auto it = chip.provenance.find(k);
    return it != chip.provenance.end() ? it->second : std::string(cpu ? "derived" : "datasheet");
  };
  r.provenance["memory_bandwidth_bytes_per_s"] = prov("memory_bandwidth_bytes_per_s");
  r.provenance["peak_flops." + r.compute_format] = prov("peak_flops." + r.compute_format);
  auto efficiency_source = [&](bool given, const char* term) -> std::string {
    if (given) return "given";
    if (!use_profile) return "measured (calibrated kernel rates)";
    auto it = prof.provenance.find(term);
    return prof.id == "generic" ? "assumed" : "runtime " + prof.id + (it != prof.provenance.end() ? " (" + it->second + ")" : "");
  };
  r.provenance["bandwidth_efficiency"] = efficiency_source(o.bandwidth_efficiency.has_value(), "decode_bandwidth_fraction");
  r.provenance["flops_efficiency"] = efficiency_source(o.flops_efficiency.has_value(), "gemm_fraction");

  Rates rates;
  rates.bw = chip.memory_bandwidth_bytes_per_s * r.bandwidth_efficiency;
  rates.flops = r.peak_flops * r.flops_efficiency;
  rates.chip = &chip;
  rates.use_measured = calibrated && !o.simple && !use_profile;
  // Fixed costs of a pass that no byte or FLOP count sees: kernel launches and gaps on a GPU (about
  // 10 kernels per layer at ~1.5 µs each under CUDA graphs), thread synchronization on a CPU. Measured
  // by calibrate where it ran; otherwise assumed; the seeds' model has none.
  if (!o.simple) {
    rates.per_layer_s = prof.per_layer_s;
    r.provenance["overhead_per_layer_s"] = o.layer_overhead_s ? "given" : use_profile ? efficiency_source(false, "per_layer_s") : "assumed";
    if (rates.use_measured && !o.layer_overhead_s) {
      set_calibrated_fixed_costs(chip, rates);
      if (chip.measured.overhead.per_layer_s) r.provenance["overhead_per_layer_s"] = prov("overhead_per_layer_s");
    }
    if (!(rates.per_layer_s >= 0 && rates.per_layer_s < 1)) throw InputError("--layer-overhead must be in [0, 1) seconds");
  }
  // What one decode token's layer pays (barriers + its small ops), as reported.
  r.overhead_per_layer_s = rates.per_layer_s + kMatmulRegionsPerLayer * rates.per_region_s;
  if (rates.per_value_s > 0) r.overhead_per_layer_s += rates.per_value_s * pass_work(m, p, PassShape{1, 1, 0, false}).elementwise_values;

  // Price and power.
  if (o.usd_per_hour || chip.usd_per_hour) {
    r.has_price = true;
    r.usd_per_hour = o.usd_per_hour.value_or(*chip.usd_per_hour) * static_cast<double>(r.devices);
    if (!(r.usd_per_hour > 0)) throw InputError("--usd-per-hour must be > 0");
    r.provenance["usd_per_hour"] = o.usd_per_hour ? "given" : "card (" + chip.usd_per_hour_date + ")";
  }
  if (o.watts || chip.tdp_watts) {
    r.has_power = true;
    r.watts = o.watts.value_or(*chip.tdp_watts) * static_cast<double>(r.devices);
    if (!(r.watts > 0)) throw InputError("--watts must be > 0");
    r.provenance["watts"] = o.watts ? "given" : "card TDP (board power at full load, assumed drawn)";
  }

  // Interconnect: per-direction link bandwidth (cards store the vendor's bidirectional aggregate).
  DeviceLink link;
  if (r.devices > 1 || o.ep > 1) {
    link = device_link(chip, std::max(r.devices, o.ep), o.pcie);
    if (!link.scaleup && chip.scaleup_bandwidth_bytes_per_s)
      r.assumptions.push_back(std::to_string(std::max(r.devices, o.ep)) + " devices " +
                              (o.pcie ? std::string("over PCIe (--pcie)") : "exceed the scale-up domain of " + std::to_string(*chip.scaleup_domain_size)) +
                              ": collectives over the card's scale-out link");
  }
  const double act_bytes = chip.activation_value_bytes();
  // Tensor parallelism divides each pass's time by tp; pipeline stages run one after another for a
  // given microbatch, so they do not shorten it (they let pp microbatches overlap).
  const double split = static_cast<double>(o.tp);
  // Collectives of a pass carrying `tokens` tokens of hidden state (see add_collectives).
  const RuntimeRates profile_rates = resolve_rates(prof, chip, link.bytes_per_s, link.scaleup);
  auto comm = [&](double tokens) {
    CompactPass c;
    add_collectives(c, m, tokens, o.tp, o.pp, o.ep, act_bytes);
    return c.collectives * profile_rates.collective_latency_s + (c.collective_bytes > 0 ? c.collective_bytes / profile_rates.link_bw : 0.0);
  };

  auto work = [&](PassShape s) {
    s.moe_expert_fraction = prof.moe_expert_fraction;
    return o.simple ? pass_work_simple(m, p, s) : pass_work(m, p, s, act_bytes);
  };
  const double layers = static_cast<double>(m.layers);
  const double peak_override = o.compute_format ? r.peak_flops : 0.0;
  // One pass's time: the profile's terms, or (calibrated chips, the seeds' model) the measured kernel rates.
  auto timed = [&](const PassWork& w, bool decode, double tokens) {
    PassTime t;
    if (!use_profile) t = pass_time(w, rates, decode, split, layers, o.simple, tokens);
    else t.s = pass_seconds(compact_pass(w, chip, layers, split, peak_override), profile_rates, &t.bound, &t.op_s);
    t.comm_s = comm(tokens);
    t.s += t.comm_s;
    return t;
  };

  // Prefill of one prompt (chunked if asked): the time to first token.
  double prefill_s = 0;
  std::string prefill_bound;
  // The runtime's own prefill chunk (llama.cpp's 512-token ubatch) unless --prefill-chunk says otherwise.
  const int64_t chunk_used = o.prefill_chunk > 0 ? o.prefill_chunk : (use_profile ? prof.prefill_chunk : 0);
  {
    const int64_t chunk = chunk_used > 0 ? chunk_used : o.prompt_tokens;
    double compute_s = 0, memory_s = 0;
    for (int64_t done = 0; done < o.prompt_tokens; done += chunk) {
      PassShape s{1, std::min(chunk, o.prompt_tokens - done), done, false};
      const PassWork pw = work(s);
      const PassTime t = timed(pw, false, static_cast<double>(s.new_tokens));
      prefill_s += t.s;
      if (r.prefill_ops.empty()) {
        r.prefill_ops = pw.ops;
        r.prefill_op_s.assign(pw.ops.size(), 0.0);
      } else {
        for (size_t i = 0; i < pw.ops.size() && i < r.prefill_ops.size(); ++i) {
          r.prefill_ops[i].flops += pw.ops[i].flops;
          r.prefill_ops[i].weight_bytes += pw.ops[i].weight_bytes;
          r.prefill_ops[i].kv_read_bytes += pw.ops[i].kv_read_bytes;
          r.prefill_ops[i].kv_write_bytes += pw.ops[i].kv_write_bytes;
          r.prefill_ops[i].act_bytes += pw.ops[i].act_bytes;
        }
      }
      double ops_s = 0;
      for (size_t i = 0; i < t.op_s.size() && i < r.prefill_op_s.size(); ++i) {
        r.prefill_op_s[i] += t.op_s[i];
        ops_s += t.op_s[i];
      }
      r.prefill_fixed_s += t.s - ops_s;
      r.prefill_fixed += t.fixed;
      (t.bound == "compute" ? compute_s : memory_s) += t.s;
    }
    prefill_bound = compute_s > memory_s ? "compute" : "memory";
  }

  FitOptions fo;
  fo.context = r.context;
  fo.tp = o.tp;
  fo.pp = o.pp;
  fo.simple = o.simple;
  if (o.runtime && use_profile) fo.usable_fraction = prof.memory_fraction;  // the engine's share of memory
  const ParamCounts pc = count_params(m);
  const double weight_bytes_all = weight_bytes(m, p).total;

  for (int64_t b : o.batches) {
    SpeedPoint pt;
    pt.batch = b;
    // pp with fewer sequences than stages leaves stages idle: microbatches = min(batch, pp).
    const int64_t micro = std::min<int64_t>(b, o.pp);
    const int64_t per_micro = (b + micro - 1) / micro;
    PassShape s{per_micro, 1, r.context - 1, false};
    const PassWork w = work(s);
    const PassTime t = timed(w, true, static_cast<double>(per_micro));
    double step_s = t.s;  // one decode step of one microbatch through all stages
    pt.comm_s = t.comm_s;
    pt.bound = t.bound;
    pt.tpot_s = step_s;
    double tokens_per_step = static_cast<double>(b);
    // Speculative decoding: one target pass verifies k + 1 tokens per sequence.
    if (o.draft_len > 0 || o.draft) {
      SpecResult sr;
      sr.tokens_per_pass = spec_tokens_per_pass(o.draft_len, o.acceptance);
      double verify_s = step_s, draft_s = 0;
      if (!o.simple) {
        PassShape v{per_micro, o.draft_len + 1, r.context - 1, true};
        verify_s = timed(work(v), true, static_cast<double>(per_micro * (o.draft_len + 1))).s;
      }
      if (o.draft_cost_ratio) {
        sr.draft_cost_ratio = *o.draft_cost_ratio;
      } else if (o.draft) {
        PassShape ds{per_micro, 1, r.context - 1, false};
        const PassWork dw = o.simple ? pass_work_simple(*o.draft, p, ds) : pass_work(*o.draft, p, ds, act_bytes);
        // The draft runs on one device, without collectives.
        const double draft_layers = static_cast<double>(o.draft->layers);
        draft_s = use_profile ? pass_seconds(compact_pass(dw, chip, draft_layers, 1.0, peak_override), profile_rates)
                              : pass_time(dw, rates, true, 1.0, draft_layers, o.simple, static_cast<double>(per_micro)).s;
        sr.draft_cost_ratio = draft_s / step_s;
      } else {
        throw InputError("--draft-len needs --draft MODEL or --draft-cost RATIO");
      }
      draft_s = sr.draft_cost_ratio * step_s;
      const double pass_s = verify_s + static_cast<double>(o.draft_len) * draft_s;
      sr.speedup = sr.tokens_per_pass * step_s / pass_s;
      pt.tpot_s = pass_s / sr.tokens_per_pass;
      pt.spec_speedup = sr.speedup;
      if (!r.spec) r.spec = sr;
    }
    // Every sequence advances one token per round; a microbatch crosses the pp stages one after another.
    pt.decode_tokens_per_s_per_stream = 1.0 / pt.tpot_s;
    pt.decode_tokens_per_s = tokens_per_step / pt.tpot_s;
    pt.bytes_per_step = w.bytes();
    pt.flops_per_step = w.flops;
    pt.intensity = w.intensity();
    pt.weight_bytes_per_step = w.weight_bytes;
    pt.kv_read_bytes_per_step = w.kv_read_bytes;
    pt.decode_ops = w.ops;
    pt.decode_op_s = t.op_s;
    pt.decode_fixed = t.fixed;
    // The bandwidth law on weights alone (seed 002: bandwidth / bytes read per token) and the compute roof.
    const double wb = m.moe ? weight_bytes_all * pc.active / pc.total : weight_bytes_all;
    const double devices = static_cast<double>(r.devices);
    pt.weights_only_tokens_per_s = chip.memory_bandwidth_bytes_per_s * devices / wb * static_cast<double>(b);
    pt.compute_roof_tokens_per_s = r.peak_flops * devices / (2.0 * pc.active);
    pt.prefill_s = prefill_s;
    pt.ttft_s = prefill_s + (use_profile ? prof.served.at(static_cast<double>(b)) : 0.0);  // a served runtime's delay
    pt.prefill_bound = prefill_bound;
    pt.request_s = pt.ttft_s + static_cast<double>(o.output_tokens - 1) * pt.tpot_s;
    if (r.has_price) {
      pt.usd_per_mtok_output = r.usd_per_hour / 3600.0 / pt.decode_tokens_per_s * 1e6;
      // Input tokens: the prefill rate of one prompt (prefill batches of many prompts are compute-bound too).
      pt.usd_per_mtok_input = r.usd_per_hour / 3600.0 / (static_cast<double>(o.prompt_tokens) / prefill_s) * 1e6;
    }
    if (r.has_power) {
      pt.joules_per_token = r.watts / pt.decode_tokens_per_s;
      pt.joules_per_input_token = r.watts * prefill_s / static_cast<double>(o.prompt_tokens);
      pt.decode_to_prefill_energy_ratio = pt.joules_per_token / pt.joules_per_input_token;
    }
    fo.batch = b;
    pt.fits = fit(m, chip, p, fo).fits;
    r.points.push_back(pt);
  }
  // Plateau: the batch where decode reaches the compute roof (seed 002's flattening of $/Mtok).
  {
    PassShape one{1, 1, r.context - 1, false};
    const PassWork w1 = work(one);
    const double per_token_flops = w1.flops;
    const double weights = w1.weight_bytes;
    r.plateau_batch = static_cast<int64_t>(std::ceil(r.peak_flops * r.flops_efficiency / per_token_flops * weights /
                                                     (chip.memory_bandwidth_bytes_per_s * r.bandwidth_efficiency)));
  }
  if (o.simple) {
    r.assumptions.push_back("simple (the seeds' model): decode reads the weights once per step, FLOPs = 2 x active parameters "
                            "per token, step time = max(bytes / bandwidth, FLOPs / peak), datasheet figures at 100%");
  } else {
    r.assumptions.push_back("each operation takes max(bytes / attained bandwidth, FLOPs / attained FLOP/s); the pass is their sum");
    r.assumptions.push_back("decode step at context " + std::to_string(r.context) + " (default: prompt + output / 2, the request's average)");
    r.assumptions.push_back("KV read for every sequence every step; MoE layers read the experts the batch's tokens touch");
    r.assumptions.push_back("fixed cost per layer per pass: " + std::to_string(static_cast<int>(std::lround(rates.per_layer_s * 1e6))) +
                            " µs (" + r.provenance["overhead_per_layer_s"] + ": " + (cpu ? "thread synchronization" : "kernel launches and gaps") +
                            "; --layer-overhead)" +
                            (rates.per_value_s > 0 ? ", plus each token's norms, RoPE and SwiGLU at " +
                                                         std::to_string(rates.per_value_s * 1e9).substr(0, 4) + " ns per value (measured)"
                                                   : std::string()) +
                            (rates.per_region_s > 0 ? ", plus " + std::to_string(rates.per_region_s * 1e6).substr(0, 4) +
                                                          " µs to start each matmul region from DRAM (4 per layer + the LM head; measured)"
                                                    : std::string()));
    if (use_profile && prof.id == "generic")
      r.assumptions.push_back("efficiency: " + std::to_string(static_cast<int>(std::lround(r.bandwidth_efficiency * 100))) +
                              "% of bandwidth, " + std::to_string(static_cast<int>(std::lround(r.flops_efficiency * 100))) +
                              "% of peak FLOP/s (assumed; --runtime picks an engine's fitted profile; calibrate measures this machine)");
    else if (use_profile)
      r.assumptions.push_back("runtime " + prof.id + " (" + prof.file + "): " + std::to_string(static_cast<int>(std::lround(r.bandwidth_efficiency * 100))) +
                              "% of bandwidth in decode" +
                              (prof.unit_stream_limit(chip) > 0 && prof.unit_stream_limit(chip) < 2 * chip.memory_bandwidth_bytes_per_s  // binds
                                   ? " (at most " + std::to_string(*chip.compute_units) + " compute units x " +
                                         three_digits(prof.unit_stream_bytes_per_cycle) + " B/cycle x " +
                                         three_digits(*chip.boost_clock_hz / 1e9) + " GHz)"
                                   : std::string()) +
                              " and " + std::to_string(static_cast<int>(std::lround(r.flops_efficiency * 100))) +
                              "% of peak in matmuls over many tokens for " + family + " weights on " +
                              (chip.architecture.empty() ? "this chip" : chip.architecture) +
                              (prof.small_batch_tokens > 0 ? "; up to " + std::to_string(prof.small_batch_tokens) +
                                                                 " tokens per pass, quantized matmuls run on the vector units"
                                                           : std::string()) +
                              (prof.per_step_s > 0 ? "; fixed cost per pass " + std::to_string(prof.per_step_s * 1e6).substr(0, 6) + " µs"
                                                   : std::string()) +
                              (prof.fp16_accumulate && chip.peak("fp16_acc16") && p.format_of(ParamClass::attention).name == "fp16"
                                   ? "; f16 matmuls accumulate in fp16, at the card's fp16-accumulate peak (" +
                                         std::to_string(static_cast<int>(std::lround(*chip.peak("fp16_acc16") / 1e12))) + " TFLOP/s)"
                                   : std::string()));
    else
      r.assumptions.push_back("calibrated: measured kernel rates and fixed per-layer/per-step costs from rooftop calibrate");
  }
  r.assumptions.push_back("TTFT = " +
                          (use_profile && prof.served.any()
                               ? "the server's delay per request (" + std::to_string(prof.served.per_request_s * 1e3).substr(0, 5) +
                                     " ms + " + std::to_string(prof.served.per_stream_s * 1e3).substr(0, 5) +
                                     " ms per request in flight up to " + std::to_string(std::lround(prof.served.stream_limit)) +
                                     ", runtime " + prof.id + ") + "
                               : std::string()) +
                          "prefill of one prompt of " + std::to_string(o.prompt_tokens) + " tokens" +
                          (chunk_used > 0 ? " in chunks of " + std::to_string(chunk_used) : "") + ", no queueing");
  if (r.devices > 1 || o.ep > 1)
    r.assumptions.push_back("interconnect: ring all-reduce 2(n-1)/n x bytes / link + " + std::to_string(static_cast<int>(std::lround(profile_rates.collective_latency_s * 1e6))) +
                            " µs latency x log2(n) each; link = " +
                            (link.scaleup ? "half the card's bidirectional scale-up figure" : "the card's scale-out figure (PCIe or a NIC, one direction)") +
                            (use_profile && prof.bus_bandwidth_fraction < 1
                                 ? " x " + std::to_string(prof.bus_bandwidth_fraction).substr(0, 4) + " (the runtime's bus fraction)"
                                 : std::string()));
  if (r.has_power) r.assumptions.push_back("energy: board power (TDP) x devices / tok/s; excludes host and cooling (PUE 1.1-1.3 adds 10-30%)");
  return r;
}

}  // namespace rooftop
