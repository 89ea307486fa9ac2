// Runtime profiles: how fast one inference engine's kernels run on a chip, as a few physical terms
// (fractions of the datasheet's bandwidth and peak, fixed costs, collective costs), each stated with its
// source or fitted to published measurements (validate/published/). The cards are hwdb/runtimes/*.yaml.
//
// A pass's time under a profile (pass_seconds): each operation takes
//   max(bytes / (datasheet bandwidth x fraction), FLOPs / (rate of its compute path))
// divided by the tensor-parallel degree, plus the fixed costs per layer and per step, plus collectives.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/chip_spec.h"
#include "analyzer/work.h"

namespace rooftop {

// Weight-format families the profiles key on: kernels of one family share their code path.
//   float: fp32 fp16 bf16 · fp8 · fp4: mxfp4 nvfp4 · int8: int8 q8_0 · kquant: q4_k q5_k q6_k and their file mixes ·
//   legacy: q4_0 q4_1 q5_0 q5_1 · int4: int4 and grouped int4 (AWQ/GPTQ/MLX-style) · lowbit: q2_k q3_k iq1-iq3 (their
//   unpacking costs more instructions per byte: llama.cpp's Q2_K decode is slower than its Q4_0 decode on the same
//   GPU, llamacpp-pr4766.yaml, so one kquant fraction cannot describe both)
enum class FormatFamily : uint8_t { float_, fp8, fp4, int8, kquant, legacy, int4, lowbit };
constexpr int kFormatFamilies = 8;
FormatFamily format_family(std::string_view format_name);
const char* format_family_name(FormatFamily f);
bool is_integer_quantized(FormatFamily f);  // int8, kquant, legacy, int4, lowbit: dequantized in the kernel
const std::vector<std::string>& format_family_names();

// The vendor of an architecture (nvidia, apple, amd, google, aws, cpu): one software stack (CUDA, Metal, ROCm)
// per vendor, so profiles key a level of their tables on it between the family and the architecture.
std::string vendor_of(std::string_view arch);
const std::vector<std::string>& vendor_names();

// The band key's second part for records whose chip no other source measured ("decode/unseen-chip"): the error a
// prediction for a chip outside the fit can expect.
inline constexpr const char* kUnseenChip = "unseen-chip";

// An expected error band: the spread of (predicted / measured - 1) over a runtime's records, from its fit's
// leave-one-source-out predictions.
struct ErrorBand {
  std::string key;            // "<metric class>/<architecture>": "decode/ampere", "decode/*", "*/*"; or "decode/unseen-chip"
  double p10 = 0, p50 = 0, p90 = 0;
  int64_t records = 0;
};

// A served request's delay from its arrival to its first token outside the engine's passes, in every TTFT (and the
// last token of every request) a client measures: per_request_s (HTTP, tokenizing, the hand-off to the engine and
// back) plus per_stream_s for each request in flight (one frontend process handles every stream's tokens in turn,
// so a new request waits behind them), counted up to stream_limit: the most requests in flight among the records
// the terms were fitted on (beyond them the growth is not known, so it is not extrapolated).
struct ServedDelay {
  double per_request_s = 0, per_stream_s = 0, stream_limit = 0;
  bool any() const { return per_request_s > 0 || per_stream_s > 0; }
  double at(double streams) const {
    return per_request_s + per_stream_s * (stream_limit > 0 ? std::min(streams, stream_limit) : streams);
  }
};

// A release as an engine prints it: dotted numbers ("0.8.5 (rocm)", "v0.23.0" -> {0, 8, 5}; trailing zeros dropped)
// or a llama.cpp build tag ("b3216", the count of commits on master -> {3216}, build_tag). Empty parts: neither.
// length: the characters of `text` the release took (a card's boundary must be the release alone).
struct Release {
  bool build_tag = false;
  std::vector<int> parts;
  size_t length = 0;
};
Release parse_release(std::string_view text);

struct RuntimeProfile {
  std::string id, name, description;
  std::vector<std::string> engines;  // engine names of published records this profile predicts
  // Which builds of those engines: releases in [release_from, release_before) ("" = no bound). A release series
  // whose engine was rewritten is another runtime (vLLM's V1 engine became the default in 0.8.0; llama.cpp's CUDA
  // backend moved prefill to int8 MMQ kernels in b3216). A source is placed by the leading release of its
  // engine_version ("0.8.5 (rocm image)", "v0.23.0", "b7315 (build: 4d37262)"; see parse_release) when it is of
  // the boundary's kind; one that prints none, by its date against release_date, the day the boundary release came
  // out (no date: the older series).
  std::string release_from, release_before, release_date;
  bool covers_build(std::string_view engine_version, std::string_view date) const;
  // What a user of the profile should know that no term says (which builds it was fitted on, where held-out
  // records disagree), each with the command or file that shows it. Stated, kept through refits.
  std::vector<std::string> notes;
  // Tables keyed "<format family>/<architecture or vendor>" with "*" wildcards; lookup() takes the cell
  // family/architecture or family/vendor when present, else family/* x (*/architecture or */vendor) / */*.
  std::map<std::string, double> decode_bandwidth_fraction;  // of datasheet bandwidth: weight streaming in decode
  std::map<std::string, double> gemm_fraction;              // of the tensor peak: matmuls over many tokens
  int64_t small_batch_tokens = 0;        // passes of at most this many tokens run quantized matmuls off the tensor cores
  // ... at this multiple of the chip's lane rate: units x boost clock x 256 FLOPs (a unit of 128 FMA lanes; the
  // card's fp32 peak where it states no units or clock). Not the fp32 peak itself: the small-batch kernels (MMVQ) run
  // integer dot products, and an A100 SM has as many INT32 lanes (64) as an RTX 3090's, with half its FP32 lanes
  // (NVIDIA Ampere whitepaper).
  double small_batch_lane_multiple = 0;
  double per_layer_s = 15e-6;            // fixed cost per layer per pass (launches, gaps, small ops)
  double per_step_s = 0;                 // fixed cost per pass (scheduler, sampling, host)
  ServedDelay served;                    // a served request's delay outside the passes (0 for in-process runs)
  // Bytes one compute unit (SM, CU, GPU core) streams per clock cycle under this runtime's decode kernels (0: no
  // limit). A dequantizing mat-vec issues a fixed number of instructions per weight byte, and a unit issues a bounded
  // number per cycle, so a chip streams at most units x boost clock x this rate: a chip with much bandwidth per unit
  // and cycle (HBM: A100, MI300X) reaches a smaller fraction of its datasheet than a GDDR chip of the same generation.
  // Per cycle, not per second: llama.cpp's A100 SXM and H100 PCIe (2.04 and 2.0 TB/s, 108 and 114 SMs) streamed
  // fp16 weights at 7.9 and 9.5 GB/s per SM, 5.6 and 5.4 bytes per cycle at 1.41 and 1.755 GHz (docs/runtime-profiles.md,
  // stop 52). Combined with the fraction as a soft minimum; a chip whose card states no clock or units has no limit.
  double unit_stream_bytes_per_cycle = 0;
  // The limit above on this chip, bytes/s (0: none).
  double unit_stream_limit(const ChipSpec& chip) const;
  double attention_fraction = 1;         // decode attention's KV streaming, relative to the weights' bandwidth
  double prefill_attention_fraction = 1; // prefill attention's score FLOPs, relative to the float matmuls' rate
  std::string multi_device = "tensor";   // how an unstated split uses several devices: tensor (tp) or pipeline (layers)
  double collective_latency_s = 10e-6;   // per all-reduce / hand-off, over the scale-up fabric (NVLink, Infinity Fabric)
  // The same over the card's scale-out link (PCIe between cards without a scale-up fabric or beyond its domain, or a
  // NIC between nodes): a step there crosses the host's PCIe root or a network; unset: collective_latency_s.
  std::optional<double> scaleout_collective_latency_s;
  double bus_bandwidth_fraction = 1;     // of a link's per-direction bandwidth a collective reaches
  int64_t prefill_chunk = 0;             // tokens per prefill pass (llama.cpp's ubatch); 0 = the whole prompt
  int64_t max_batch = 256;               // sequences in flight when a throughput run does not state them
  // The server's scheduler limits by device (`rooftop simulate` and `plan`): the first rule the chip meets gives
  // max_seqs and token_budget; none met (or no rules): max_batch sequences and 8192 tokens per step.
  struct ServingDefault {
    double min_memory_bytes = 0;  // the chip has at least this much memory
    std::string except_name;      // ... and its name does not contain this (case-insensitive); "" = no exception
    int64_t max_seqs = 0, token_budget = 0;
  };
  std::vector<ServingDefault> serving_defaults;
  static constexpr int64_t kDefaultTokenBudget = 8192;  // tokens per step when no rule applies
  // (max_seqs, token_budget) this runtime's server uses on `chip` when the user states neither.
  std::pair<int64_t, int64_t> serving_limits(const ChipSpec& chip) const;
  double memory_fraction = 0.9;          // of device memory given to weights + KV cache
  double moe_expert_fraction = 1;        // routed tokens land uniformly on this fraction of the experts (1 = uniform)
  std::string quantized_kv;              // KV format with fp8/fp4 weights when a run states none ("" = 16-bit)
  // f16 weights' GEMMs accumulate in fp16 (cuBLAS CUBLAS_COMPUTE_16F): on chips whose card states a faster
  // fp16-accumulate tensor rate (peak_flops.fp16_acc16: GeForce runs fp32 accumulation at half rate) they use it.
  bool fp16_accumulate = false;
  // One architecture's own value of a scalar term, keyed "<term>/<architecture>" (per_layer_s, attention_fraction,
  // prefill_attention_fraction): a backend's launch costs and attention kernels differ by GPU generation.
  std::map<std::string, double> by_architecture;
  static const std::vector<std::string>& architecture_terms();
  double term_on(const std::string& term, double scalar, std::string_view arch) const;
  bool use_calibration = false;          // `rooftop`: this project's calibrated kernel rates where the chip has them
  std::map<std::string, std::string> provenance;  // term -> "stated: <source>" or "fitted: <records, error>"
  std::vector<ErrorBand> bands;
  // Published records the fit used, per chip id and per architecture (written by the fit): a prediction for a chip
  // with none says so, as its terms then come from other chips.
  std::map<std::string, int64_t> records_by_chip, records_by_architecture;
  std::vector<std::string> sources;
  std::string file;

  // The table's value for (family, architecture): "fam/arch" or "fam/vendor" when present, else "fam/*" scaled by the
  // chip's "*/arch" (or "*/vendor") relative to "*/*"; at most 1; `fallback` stands for a missing "*/*".
  static double lookup(const std::map<std::string, double>& table, std::string_view family, std::string_view arch,
                       double fallback);
  // The fraction of the chip's datasheet bandwidth decode streams a family's weights at: the table's value
  // (lookup), lowered by the per-unit streaming limit where the chip states its compute units.
  double decode_fraction(std::string_view family, const ChipSpec& chip, double fallback) const;
  // The band of the most specific key present ("decode/ampere", "decode/*", "*/*"), nullptr when none.
  const ErrorBand* band(std::string_view metric_class, std::string_view arch) const;
};

// `generic`: the analyzer's stated defaults (80% of bandwidth, 70% of peak, 15 µs per layer, 10 µs per
// all-reduce; CPUs 60%, 50%, 20 µs) - what rooftop predicted before runtime profiles.
RuntimeProfile generic_profile(bool cpu);

// One operation of a pass, reduced to what a profile's terms act on (built once; evaluated many times by the fit).
struct RuntimeRates;
struct CompactOp {
  enum Kind : uint8_t { matmul, attention, other } kind = other;
  FormatFamily family = FormatFamily::float_;
  double bytes = 0;   // weights + activations (+ KV for attention)
  double flops = 0;
  double peak = 0;    // the chip's dense peak for this op's compute format
  double peak_acc16 = 0;  // f16-weight matmuls: the chip's fp16-accumulate peak (peak_flops.fp16_acc16, else peak)
  // The tensor peak a matmul runs at under these rates.
  double matmul_peak(const RuntimeRates& r) const;
};

struct CompactPass {
  std::vector<CompactOp> ops;
  double tokens = 0;          // tokens in the pass
  double layers = 0;
  double tp = 1;              // ops split over tp devices
  bool prefill = false;       // more than one new token per sequence (prompt processing)
  double collectives = 0;     // latency steps of the pass's collectives (allreduce_latency_steps each; a hand-off: 1)
  double collective_bytes = 0;// bytes each link carries over the pass (ring factor included)
};

// What a profile resolves to on one chip: absolute rates per format family.
struct RuntimeRates {
  std::array<double, kFormatFamilies> weight_bw{};   // bytes/s
  std::array<double, kFormatFamilies> gemm_fraction{};
  double small_batch_tokens = 0, small_batch_flops = 0;
  double attention_fraction = 1, prefill_attention_fraction = 1;
  double float_bw = 0;                               // other ops and attention stream at the float rate
  double per_layer_s = 0, per_step_s = 0;
  ServedDelay served;
  double collective_latency_s = 0, link_bw = 0;      // link_bw: per direction x bus fraction (0: no link)
  bool fp16_accumulate = false;                      // the profile's f16 GEMMs accumulate in fp16 (CompactOp::peak_acc16)
};

// A soft minimum of a bandwidth and a cap.
double unit_limited(double bw, double cap);
// scaleup: the collectives cross the scale-up fabric (collective_latency_s), else the scale-out link
// (scaleout_collective_latency_s); see device_link.
RuntimeRates resolve_rates(const RuntimeProfile& p, const ChipSpec& chip, double link_bytes_per_s, bool scaleup = true);

// The link a pass over `devices` devices sends its collectives over: the card's scale-up fabric (aggregate figure
// halved: one direction) when it has one, the devices fit its domain and the setup is not stated as PCIe; else the
// card's scale-out figure (PCIe on cards without NVLink, a NIC on the others). Throws InputError when the card has
// neither figure.
struct DeviceLink {
  double bytes_per_s = 0;  // one direction
  bool scaleup = false;
};
DeviceLink device_link(const ChipSpec& chip, int64_t devices, bool stated_pcie = false);

// The chip's peak for a weight format's compute path (the first of the format's compute formats it has).
double compute_peak(const ChipSpec& chip, std::string_view weight_format);

// peak_override > 0: every op computes at that rate (--compute-format).
CompactPass compact_pass(const PassWork& w, const ChipSpec& chip, double layers, double tp, double peak_override = 0);

// Latency steps of one all-reduce over n devices: log2(n), the depth of the reduction (NCCL's trees, recursive
// halving-doubling; NVLS on NVSwitch). The profile's collective_latency_s is one step, so an all-reduce over 2 devices
// costs it once, over 8 three times. Why not a constant: gpt-fast's batch-1 decode on 2 / 4 / 8 NVLink A100s (README,
// bf16 Llama-2-7B 168.8 / 254.0 / 328.4 tok/s) leaves, after the single-GPU miss scaled by 1/n, about 14 / 19 / 22 µs
// per all-reduce (64 per token): 10 µs + 4 µs x log2(n), not one figure.
double allreduce_latency_steps(int64_t n);

// The pass's collectives for `tokens` tokens of hidden state through all layers: tp: two ring all-reduces per layer
// (2 (n-1)/n x bytes each); pp: one hand-off per stage boundary; ep: dispatch and combine per MoE layer.
void add_collectives(CompactPass& p, const ModelSpec& m, double tokens, int64_t tp, int64_t pp, int64_t ep,
                     double act_bytes);

// Seconds of one pass: sum over ops of max(bytes / bandwidth, FLOPs / rate) / tp, plus the fixed costs and
// collectives. `bound` (optional) gets "memory" or "compute" (the larger share of the ops' time).
// op_s (optional) gets each op's time (after the tp split), in the pass's op order.
double pass_seconds(const CompactPass& p, const RuntimeRates& r, std::string* bound = nullptr,
                    std::vector<double>* op_s = nullptr);

}  // namespace rooftop
