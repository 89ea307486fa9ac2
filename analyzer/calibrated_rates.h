// CalibratedRates: what `rooftop calibrate` measured on one chip, as typed fields the analyzer prices with.
//
// The calibration files (CPU and CUDA) name each figure by a key such as "gemv_q4_1_stream_k576_bytes_per_s" or
// "overhead_per_layer_s". That key grammar is read and written here and nowhere else: `set` files a key's value
// into its field and refuses a key it does not know (so a misspelt figure is an error, never a silent fall-back
// to datasheet rates), and `entries` writes the same keys back for `hw show`, reports and JSON.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rooftop {

// A rate at each measured input width k (row length), sorted by k: (k, rate).
using WidthRates = std::vector<std::pair<double, double>>;

// Rate at width k: linear in log k between the nearest measured widths, the end values beyond them.
double rate_at_width(const WidthRates& rates, double k);

// One matrix-vector kernel kind of one format: one token (`gemv_`), or a batch of 4 or 16 tokens sharing each
// weight read (`gemv_batch4_`, `gemv_batch16_`).
struct GemvRates {
  double bytes_per_s = 0;        // "<kind><fmt>_bytes_per_s": a 14336 x 4096 matrix streamed from DRAM
  double flops_per_s = 0;        // "<kind><fmt>_flops_per_s": the same run's FLOP/s
  double arith_flops_per_s = 0;  // "<kind><fmt>_arith_flops_per_s": the best cache-resident FLOP/s over widths
  WidthRates stream_bytes_per_s; // "<kind><fmt>_stream_k<k>_bytes_per_s": DRAM streaming at width k
  WidthRates arith_flops;        // "<kind><fmt>_arith_k<k>_flops_per_s": cache-resident arithmetic at width k
  bool measured() const { return bytes_per_s > 0 || arith_flops_per_s > 0 || !stream_bytes_per_s.empty() || !arith_flops.empty(); }
};

// The prefill GEMM of one format, calibrated as t(n) = weights / pack + FLOPs / marginal (+ activations).
struct GemmRates {
  double flops_per_s = 0;                 // "gemm_<fmt>_flops_per_s": one GEMM at n = 128, whole
  double pack_bytes_per_s = 0;            // "gemm_<fmt>_pack_bytes_per_s": dequantize-and-pack, weight bytes/s
  WidthRates pack_widths;                 // "gemm_<fmt>_pack_k<k>_bytes_per_s": the same at shorter rows (width k)
  double marginal_flops_per_s = 0;        // "gemm_<fmt>_marginal_flops_per_s": the slope from n = 16 to 128
  double marginal_large_flops_per_s = 0;  // "gemm_<fmt>_marginal_large_flops_per_s": the slope past 128 tokens
  double act_bytes_per_s = 0;             // "gemm_<fmt>_act_bytes_per_s": fp32 activations in and out
  // "gemm_<fmt>_dram_bytes_per_s": weight bytes/s of the extra time a GEMM takes when its weights come from DRAM
  // rather than the cache the other figures were measured in (n = 16, cycled copies against one matrix)
  double dram_bytes_per_s = 0;
  // "gemm_<fmt>_min_tokens_k<k>": the fewest tokens the engine's kernels run this format's matmul of rows of k values
  // or more as the GEMM (kernels::gemm_min_tokens on the calibrated machine); fewer run as GEMV rows. A step function
  // of the row length: (k from, tokens), sorted. Empty: not recorded (kCpuGemvMaxTokens + 1).
  WidthRates min_tokens;
  bool has_pack_model() const { return pack_bytes_per_s > 0 && marginal_flops_per_s > 0; }
  // The threshold at row length k: the step at or below k (the first step below every one); 0 when not recorded.
  double min_tokens_at(double k) const;
};

struct FormatRates {
  GemvRates gemv, batch4, batch16;
  GemmRates gemm;
};

// Fixed costs of a pass that no byte or FLOP count sees, as calibrate measured them. Unset: not measured.
struct OverheadRates {
  std::optional<double> per_layer_s;       // "overhead_per_layer_s": a layer's barriers and small ops at 8B's shape
  std::optional<double> per_step_s;        // "overhead_per_step_s"
  std::optional<double> sync_per_layer_s;  // "overhead_sync_per_layer_s": a layer's barriers alone (with per_value_s)
  std::optional<double> per_value_s;       // "overhead_per_value_s": a token's small ops, per value
  std::optional<double> region_start_s;    // "overhead_region_start_s": DRAM start of each matmul region
  // "overhead_attention_row_s": prefill attention's fixed work per (query token, head) row: loading q, the softmax
  // normalization, writing the output; with attention_prefill_marginal_flops_per_s it prices short prompts.
  std::optional<double> attention_row_s;
};

struct CalibratedRates {
  std::map<std::string, FormatRates> formats;  // by the analyzer's format name: "fp32", "fp16", "q4_1" ...
  std::map<std::string, double> attention_bytes_per_s;  // decode attention by KV format: "attention_f32_bytes_per_s"
  double attention_prefill_flops_per_s = 0;             // "attention_prefill_f32_flops_per_s": a 256-token prompt
  // "attention_prefill_f32_marginal_flops_per_s": the FLOP rate beside overhead.attention_row_s (from 64 and 256 tokens)
  double attention_prefill_marginal_flops_per_s = 0;
  // "cache_resident_bytes": the largest working set calibrate's read sweep still read clearly faster than DRAM
  // (above 1.25x the largest set's rate): that much of a pass's weights and KV is read from the cache.
  double cache_resident_bytes = 0;
  OverheadRates overhead;
  // Figures measured and shown but not priced by the analyzer: cache levels, STREAM, one-thread bandwidth, each
  // kernel run at its own shape or token count, fractions of a ceiling, GPU power. Keys as in the file.
  std::map<std::string, double> reported;
  // When the figures were measured (the calibration file's "date", UTC, ISO 8601; "" for none): the age a
  // prediction from them states, since a shared VM's speed moves over hours.
  std::string measured_at;

  // File `value` under `key`. False (nothing changed) when the key is not of the grammar above, names a format
  // the analyzer does not know, or the value is negative, not finite, or 0 for a rate (0 is a fixed cost's value).
  bool set(std::string_view key, double value);
  // Every figure as (key, value), keys as `set` reads them, sorted by key.
  std::map<std::string, double> entries() const;
  std::optional<double> get(std::string_view key) const;
  bool empty() const;
  // The format's rates, or null when calibrate measured none of its kernels. Accepts aliases ("f16").
  const FormatRates* format(std::string_view name) const;
  // Drop one format's GEMM model (a key spelling: "q4_1", "f32"): a newer calibration of it replaces the whole
  // model, so no part derived from an older run (a short-row pack rate, an activation rate) outlives it.
  void clear_gemm(std::string_view name);
  // Drop every kernel rate (formats and attention), or every fixed cost: the validate sweep's term sets.
  void clear_kernel_rates();
  void clear_overheads() { overhead = {}; }
};

}  // namespace rooftop
