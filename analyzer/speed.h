// Speed and cost: TTFT, TPOT, tok/s across batches, multi-device communication, speculative decoding,
// $ per million tokens and joules per token, each figure with its bound.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/chip_spec.h"
#include "analyzer/memory.h"
#include "analyzer/runtime.h"
#include "analyzer/work.h"

namespace rooftop {

struct SpeedOptions {
  std::vector<int64_t> batches = {1};
  int64_t prompt_tokens = 1024;
  int64_t output_tokens = 256;
  std::optional<int64_t> context;     // cached tokens at the decode step; default prompt + output / 2
  int64_t prefill_chunk = 0;          // 0 = the whole prompt in one pass
  int64_t tp = 1, pp = 1, ep = 1;
  bool simple = false;                // the seeds' model: weights only, FLOPs = 2 x params, no efficiency
  std::optional<double> bandwidth_efficiency;  // fraction of the bandwidth figure reached
  std::optional<double> flops_efficiency;      // fraction of the peak reached
  std::optional<std::string> compute_format;   // override the compute format (fp8, bf16 ...)
  std::optional<double> usd_per_hour;          // per device; default from the chip card
  std::optional<double> watts;                 // per device; default the card's TDP
  std::optional<double> allreduce_latency_s;   // per collective; default the runtime profile's (10 µs assumed)
  bool pcie = false;                           // the devices talk over PCIe, not the card's scale-up fabric
  // The engine's profile (hwdb/runtimes/): its fitted or stated terms replace the assumed efficiencies.
  // The options above, when given, override the profile's terms. Unset: `generic` (or calibrated rates).
  std::optional<RuntimeProfile> runtime;
  std::optional<double> layer_overhead_s;      // fixed cost per layer per pass; default measured or assumed
  // Speculative decoding: draft_len k tokens drafted per target pass, accepted with probability a each.
  std::optional<ModelSpec> draft;
  int64_t draft_len = 0;
  double acceptance = 0;
  std::optional<double> draft_cost_ratio;      // draft step time / target step time; default computed
};

// Tokens per pass at which a calibrated prefill GEMM's marginal rate changes: below, the slope between n = 16 and 128
// ("gemm_<fmt>_marginal_flops_per_s"); above, between 128 and 512 ("gemm_<fmt>_marginal_large_flops_per_s") where
// measured. rooftop calibrate times the GEMM at these n (measure/shapes.h).
inline constexpr double kCalibratedGemmKnotTokens = 128;
// The row length (k) of calibrate's wide GEMM shape (Llama-3.1-8B's FFN, 14336 x 4096): its pack rate's width.
inline constexpr double kCalibratedGemmWideK = 4096;
// The most tokens a CPU matmul of the engine runs as GEMVs (one pass over the weights for all of them) rather than as
// a tiled GEMM, where the calibration did not record the kernels' own threshold per format ("gemm_<fmt>_min_tokens_k<k>"):
// kernels::kSmallGemmMaxN, the default of kernels::gemm_min_tokens (tests/analyzer/test_width_rates.cpp holds them equal).
inline constexpr double kCpuGemvMaxTokens = 8;

// A pass's costs outside its ops (a calibrated CPU's barriers, small ops priced per value and matmul region
// starts), split by the engine's stage names (`rooftop run --explain` sets them beside the measured stages).
struct FixedByStage {
  double norms = 0, attn_proj = 0, ffn = 0, small_ops = 0, lm_head = 0;
  FixedByStage& operator+=(const FixedByStage& o) {
    norms += o.norms, attn_proj += o.attn_proj, ffn += o.ffn, small_ops += o.small_ops, lm_head += o.lm_head;
    return *this;
  }
  double total() const { return norms + attn_proj + ffn + small_ops + lm_head; }
};

struct SpeedPoint {
  int64_t batch = 1;
  double prefill_s = 0, ttft_s = 0, tpot_s = 0, request_s = 0;
  double decode_tokens_per_s = 0;              // aggregate over the batch
  double decode_tokens_per_s_per_stream = 0;
  double weights_only_tokens_per_s = 0;        // the bandwidth law: bandwidth / weight bytes per step x batch
  double compute_roof_tokens_per_s = 0;        // peak / FLOPs per token
  std::string bound;                           // "memory" or "compute" (the decode step)
  std::string prefill_bound;
  double bytes_per_step = 0, flops_per_step = 0, intensity = 0;
  double weight_bytes_per_step = 0, kv_read_bytes_per_step = 0;
  double comm_s = 0;                           // interconnect time inside one decode step
  double spec_speedup = 1;                     // speculative decoding's speed-up at this batch (1 without)
  double usd_per_mtok_output = 0, usd_per_mtok_input = 0, joules_per_token = 0;
  // Energy per prompt token (the prefill of one prompt at the same power) and decode's energy per token over it
  // (seed 004 measured 20-35x on one machine).
  double joules_per_input_token = 0, decode_to_prefill_energy_ratio = 0;
  bool fits = true;
  std::vector<OpCost> decode_ops;              // per-op breakdown (for --explain)
  std::vector<double> decode_op_s;             // time of each op
  FixedByStage decode_fixed;                   // the step's costs outside the ops, by engine stage (calibrated CPUs)
};

struct SpecResult {
  double tokens_per_pass = 1;   // (1 - a^(k+1)) / (1 - a)
  double draft_cost_ratio = 0;
  double speedup = 1;           // tokens_per_pass / (1 + k x draft_cost_ratio)
};

struct SpeedResult {
  std::string model, hw, precision, kv_precision, compute_format;
  int64_t prompt_tokens = 0, output_tokens = 0, context = 0, tp = 1, pp = 1, ep = 1, devices = 1;
  double peak_flops = 0;                        // of the compute format, per device
  double memory_bandwidth_bytes_per_s = 0;      // per device
  double bandwidth_efficiency = 1, flops_efficiency = 1;
  double usd_per_hour = 0;                      // all devices
  double watts = 0;                             // all devices
  bool has_price = false, has_power = false;
  double overhead_per_layer_s = 0;              // fixed cost per layer per pass used
  int64_t plateau_batch = 0;                    // where the compute roof flattens tok/s and $/Mtok
  std::vector<SpeedPoint> points;
  // The prefill of one prompt (every chunk summed), per op, for --explain; prefill_fixed_s: the per-layer, per-value
  // and per-region costs outside the ops.
  std::vector<OpCost> prefill_ops;
  std::vector<double> prefill_op_s;
  double prefill_fixed_s = 0;
  FixedByStage prefill_fixed;  // the same, by engine stage
  std::optional<SpecResult> spec;               // at the first batch of the sweep; each point has its own speed-up
  std::vector<std::string> assumptions;
  std::map<std::string, std::string> provenance;  // figure -> "datasheet" / "measured <date>" / ...
  std::string runtime = "generic";              // the profile used ("calibrated" when calibrated rates were)
  std::vector<std::string> runtime_notes;       // the profile's notes (RuntimeProfile::notes) when it was used
  // Published records of this chip and of its architecture in the profile's fit (when the profile counts them).
  std::optional<std::pair<int64_t, int64_t>> runtime_records;
  bool band_withheld = false;  // the profile's fit has no record of this chip's vendor (another backend): no band
  std::optional<ErrorBand> decode_band, batched_band, prefill_band;  // the profile's expected errors on this architecture
};

SpeedResult speed(const ModelSpec& m, const ChipSpec& chip, const PrecisionPlan& p, const SpeedOptions& o);

// Prices passes on a calibrated chip (one device) the way speed() does with the `rooftop` runtime: each op at
// the measured kernel rates of its format (GEMV for decode and for matmuls of at most kCpuGemvMaxTokens tokens,
// GEMM above), plus the measured fixed costs.
class CalibratedPricer {
 public:
  CalibratedPricer(const ModelSpec& m, const ChipSpec& chip, const PrecisionPlan& p);
  // decode: every sequence adds one token (tokens = sequences); else a pass of `tokens` new tokens.
  double seconds(const PassWork& w, bool decode, double tokens) const;

 private:
  struct Impl;
  std::shared_ptr<const Impl> impl_;
};

// Seed 002: expected tokens per target pass with k drafted tokens accepted with probability a.
double spec_tokens_per_pass(int64_t k, double a);
double spec_speedup(int64_t k, double a, double draft_cost_ratio);

// The compute format a chip uses for a weight format: the first of the format's preferences that the chip has and
// runs at least at its fp32 rate.
std::string compute_format_for(const ChipSpec& chip, const NumberFormat& weights);

// All-reduce of `bytes` over n devices with per-direction link bandwidth: 2 (n-1)/n x bytes / bw (ring) + latency x
// log2(n) (allreduce_latency_steps).
double ring_allreduce_s(double bytes, int64_t n, double link_bytes_per_s, double latency_s);

}  // namespace rooftop
