// Memory: weight bytes per class, KV cache bytes, activations and overhead; `fit` against a chip.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/chip_spec.h"
#include "formats/formats.h"
#include "analyzer/model_spec.h"
#include "analyzer/params.h"

namespace rooftop {

// Matrices of one class that a file stores in one format at one input width k: a Q4_K_M file keeps most of
// its FFN in q4_k but ffn_down in q6_k on some layers, and rows whose k is not a multiple of 256 in q5_0.
struct StoredMatrices {
  std::string format;  // the analyzer's format name
  double width = 0;    // input features k (the dimension a block runs along)
  double values = 0;   // weights
  double bytes = 0;    // as stored
};

// Which format each class of weights is stored in, and the KV cache's format.
struct PrecisionPlan {
  std::string weights = "bf16";                    // default for every class
  std::map<ParamClass, std::string> per_class;     // overrides, e.g. experts -> mxfp4
  std::string kv = "bf16";
  // Bytes of a class as a file stores them (a GGUF's tensor table: mixed formats, fallbacks and all). A class
  // listed here weighs these bytes instead of its format's arithmetic; its format (per_class) still sets the
  // rates. `stored` names the file's formats with their bytes ("q4_k 60.2 MB, q6_k 20.1 MB").
  std::map<ParamClass, double> stored_bytes;
  // A file's matrices by (format, width) per class. Where a class mixes formats, each format's share is priced
  // at its own kernel rates instead of all at the class's largest format's.
  std::map<ParamClass, std::vector<StoredMatrices>> stored_matrices;
  std::string stored;
  const NumberFormat& format_of(ParamClass c) const;
  const NumberFormat& kv_format() const { return find_format(kv); }
  std::string describe() const;  // "bf16 (experts mxfp4)"
};

struct WeightBytes {
  std::array<double, kParamClassCount> by_class{};
  double total = 0;
  double of(ParamClass c) const { return by_class[static_cast<int>(c)]; }
};
// Exact bytes of every tensor in its class's format (blocks rounded up per row).
WeightBytes weight_bytes(const ModelSpec& m, const PrecisionPlan& p);
WeightBytes weight_bytes(const std::vector<TensorGroup>& groups, const PrecisionPlan& p);  // groups of tensor_groups(m)

// KV bytes one token adds to the cache over all attention layers, with every layer's full attention:
// 2 x layers x kv_heads x head_dim x bytes (MLA: layers x (kv_lora_rank + rope dims) x bytes).
double kv_bytes_per_token(const ModelSpec& m, const NumberFormat& kv);
// KV bytes for `batch` sequences of `context` tokens; sliding-window layers hold at most the window.
double kv_bytes(const ModelSpec& m, const NumberFormat& kv, int64_t context, int64_t batch);
// Sparse attention's indexer keys, per token per attention layer: index_head_dim fp8 values and an fp32
// scale (DeepSeek-V3.2's reference and vLLM keep them so), whatever the KV format. 0 without an indexer.
double index_key_bytes_per_token_layer(const ModelSpec& m);
// Memory-side KV dims for one layer of one token (elements): 2 x kv_heads x head_dim, or MLA latent.
double kv_elements_per_token_layer(const ModelSpec& m);
// Recurrent state of the state-space / linear-attention layers (hybrid models): one fixed-size state per
// sequence, whatever the context. Values per layer: the SSM state (mamba: inner x state_dim; mamba2:
// heads x head_dim x state_dim; gated DeltaNet: heads x key_head_dim x head_dim) plus the convolution's
// last conv_kernel - 1 inputs. Both in 16 bits (vLLM's default "auto": the model's dtype), the SSM state
// in fp32 where the model says so (StateSpec::ssm_state_fp32: Nemotron-H).
double state_values_per_layer(const StateSpec& s);
double state_bytes_per_layer(const StateSpec& s);
double state_bytes_per_sequence(const ModelSpec& m);  // all state layers; 0 without them
// FLOPs of the recurrence itself per token per state layer (the projections are counted as weights).
double state_flops_per_token_layer(const StateSpec& s);
// Activation bytes live at once: `tokens` in flight through one layer, plus the batch's fp32 logits.
double activation_bytes(const ModelSpec& m, int64_t tokens_in_flight, int64_t batch, double bytes_per_value);

struct FitOptions {
  int64_t context = 4096;      // tokens per sequence (prompt + output)
  int64_t batch = 1;           // concurrent sequences
  int64_t tp = 1;              // tensor parallel degree
  int64_t pp = 1;              // pipeline stages
  int64_t prefill_chunk = 512; // tokens in flight during chunked prefill (activation sizing)
  std::optional<double> usable_fraction;   // of memory_bytes; default 0.95 (1.0 with simple)
  std::optional<double> overhead_bytes;    // runtime overhead; default 1 GB on GPUs, 0.3 GB on CPUs
  std::optional<double> activation_bytes;  // override the activation estimate
  bool simple = false;         // the seeds' budget: weights + KV only, full memory usable
};

struct FitResult {
  // Inputs echoed.
  std::string model, hw, precision, kv_precision;
  int64_t context = 0, batch = 0, tp = 1, pp = 1, devices = 1;
  // Whole model.
  double params_total = 0, params_active = 0;
  WeightBytes weights;
  double kv_bytes_per_token = 0;     // all layers, at kv_precision
  double kv_bytes = 0;               // context x batch (windows applied)
  double state_bytes_per_sequence = 0;  // hybrid models' recurrent state, fixed per sequence
  double state_bytes = 0;            // x batch
  double activation_bytes = 0;
  double overhead_bytes = 0;
  // Per device (equal to the whole when tp = pp = 1).
  double weights_bytes_per_device = 0, kv_bytes_per_device = 0, state_bytes_per_device = 0, total_bytes = 0;  // total = per device
  double memory_bytes = 0;           // chip's memory
  double usable_fraction = 1;
  double capacity_bytes = 0;         // memory x usable fraction
  bool fits = false;
  double headroom_bytes = 0;         // capacity - total (negative when over)
  int64_t max_batch = 0;             // at this context (0: not even one sequence)
  int64_t max_context = 0;           // at this batch, capped by the model's trained maximum
  std::string max_context_limited_by;// "memory" or "model"
  double kv_equals_weights_at_tokens = 0;  // one sequence's KV passes the weights here
  std::vector<std::string> assumptions;    // stated defaults, one per line
  std::vector<std::string> notes;          // warnings (context beyond the model's maximum ...)
};

FitResult fit(const ModelSpec& m, const ChipSpec& chip, const PrecisionPlan& p, const FitOptions& o);

// The seeds' budget arithmetic on its own (tested against seed 002's RTX 5060 Ti example).
struct SimpleBudget {
  double weights_bytes, kv_bytes, total_bytes, capacity_bytes, headroom_bytes;
  bool fits;
};
SimpleBudget simple_budget(double params, double bytes_per_param, double kv_bytes_per_token, int64_t tokens,
                           int64_t batch, double capacity_bytes);

// Bounds shared by every command (batch, context, tp, pp): InputError when outside.
void check_positive(const char* name, int64_t value, int64_t max);

}  // namespace rooftop
