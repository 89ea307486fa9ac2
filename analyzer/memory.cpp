// fit: weights + KV cache + activations + overhead against a chip's memory, and the limits that follow.
#include "analyzer/memory.h"

#include <algorithm>
#include <cmath>

#include "base/suggest.h"

namespace rooftop {

const NumberFormat& PrecisionPlan::format_of(ParamClass c) const {
  auto it = per_class.find(c);
  return find_format(it != per_class.end() ? it->second : weights);
}

std::string PrecisionPlan::describe() const {
  if (!stored.empty()) return "file formats (" + stored + ")";
  std::string out = weights;
  bool first = true;
  for (const auto& [cls, f] : per_class) {
    out += std::string(first ? " (" : ", ") + param_class_name(cls) + " " + f;
    first = false;
  }
  return per_class.empty() ? out : out + ")";
}

void check_positive(const char* name, int64_t value, int64_t max) {
  if (value < 1 || value > max)
    throw InputError(std::string("--") + name + " " + std::to_string(value) + " is out of range; expected 1 to " +
                     std::to_string(max));
}

WeightBytes weight_bytes(const ModelSpec& m, const PrecisionPlan& p) { return weight_bytes(tensor_groups(m), p); }

WeightBytes weight_bytes(const std::vector<TensorGroup>& groups, const PrecisionPlan& p) {
  WeightBytes w;
  for (const auto& t : groups) {
    // Norm vectors and biases stay in fp32/bf16 in every real file; they are tiny either way.
    const NumberFormat& f = t.rows == 1 ? find_format("fp32") : p.format_of(t.cls);
    w.by_class[static_cast<int>(t.cls)] += f.bytes_for(t.rows * t.count, t.cols);
  }
  for (const auto& [cls, bytes] : p.stored_bytes) w.by_class[static_cast<int>(cls)] = bytes;
  for (double b : w.by_class) w.total += b;
  return w;
}

double kv_elements_per_token_layer(const ModelSpec& m) {
  if (m.mla) return static_cast<double>(m.mla->kv_lora_rank + m.mla->qk_rope_head_dim);
  return 2.0 * static_cast<double>(m.kv_heads) * static_cast<double>(m.head_dim);
}

double index_key_bytes_per_token_layer(const ModelSpec& m) {
  return m.sparse ? static_cast<double>(m.sparse->index_head_dim) + 4.0 : 0.0;
}

double kv_bytes_per_token(const ModelSpec& m, const NumberFormat& kv) {
  // Seed 000: 2 x 30 layers x 3 KV heads x 64 = 11,520 numbers per token; 46,080 bytes in fp32.
  return static_cast<double>(attention_layers(m)) *
         (kv_elements_per_token_layer(m) * kv.bytes_per_value() + index_key_bytes_per_token_layer(m));
}

namespace {
// A state layer's SSM state values and the channels its convolution runs over (it keeps the last
// conv_kernel - 1 inputs of each).
struct StateShape {
  double ssm_values = 0, conv_channels = 0;
};
StateShape state_shape(const StateSpec& s) {
  auto v = [](int64_t a, int64_t b, int64_t c) { return static_cast<double>(a) * static_cast<double>(b) * static_cast<double>(c); };
  switch (s.kind) {
    case StateKind::mamba: return {v(s.inner, s.state_dim, 1), static_cast<double>(s.inner)};
    case StateKind::mamba2: return {v(s.heads, s.head_dim, s.state_dim), static_cast<double>(s.inner + 2 * s.groups * s.state_dim)};
    case StateKind::gated_deltanet:
      return {v(s.heads, s.key_head_dim, s.head_dim), static_cast<double>(2 * s.key_heads * s.key_head_dim + s.heads * s.head_dim)};
  }
  return {};
}
}  // namespace

double state_values_per_layer(const StateSpec& s) {
  const StateShape sh = state_shape(s);
  return sh.ssm_values + static_cast<double>(s.conv_kernel - 1) * sh.conv_channels;
}

double state_bytes_per_layer(const StateSpec& s) {
  const StateShape sh = state_shape(s);
  return sh.ssm_values * (s.ssm_state_fp32 ? 4.0 : 2.0) + static_cast<double>(s.conv_kernel - 1) * sh.conv_channels * 2.0;
}

double state_bytes_per_sequence(const ModelSpec& m) {
  if (!m.state) return 0;
  return static_cast<double>(m.state->layers) * state_bytes_per_layer(*m.state);
}

double state_flops_per_token_layer(const StateSpec& s) {
  // Per SSM state value and token: Mamba decays it, adds dt x B x x and takes C . h (about 6 FLOPs);
  // gated DeltaNet decays it, takes S^T k, adds the rank-1 delta update and takes S^T q (about 8).
  // The convolution: one multiply-add per tap per channel.
  const StateShape sh = state_shape(s);
  return (s.kind == StateKind::gated_deltanet ? 8.0 : 6.0) * sh.ssm_values + 2.0 * static_cast<double>(s.conv_kernel) * sh.conv_channels;
}

double kv_bytes(const ModelSpec& m, const NumberFormat& kv, int64_t context, int64_t batch) {
  const int64_t windowed = m.sliding_window > 0 ? m.sliding_window_layers : 0;
  const double held_windowed = static_cast<double>(std::min(context, m.sliding_window > 0 ? m.sliding_window : context));
  const double token_layers = static_cast<double>(attention_layers(m) - windowed) * static_cast<double>(context) +
                              static_cast<double>(windowed) * held_windowed;
  return token_layers * (kv_elements_per_token_layer(m) * kv.bytes_per_value() + index_key_bytes_per_token_layer(m)) *
         static_cast<double>(batch);
}

double activation_bytes(const ModelSpec& m, int64_t tokens_in_flight, int64_t batch, double bytes_per_value) {
  // Live at once inside one layer, per token: the residual, the normed input and the projection back to
  // the residual (3 x hidden); q, k and v before they go to the cache (heads x head_dim + 2 x kv_heads x
  // head_dim) and the attention result (heads x head_dim); the FFN's gate and up intermediates (2 x width,
  // the activation written over the gate). FlashAttention-style kernels never hold the score matrix. This
  // is the engine's own set of buffers (engine/forward.cpp, Forward::pass).
  double ffn_width = static_cast<double>(m.ffn);
  if (m.moe) {
    const auto& e = *m.moe;
    const double shared = static_cast<double>(e.shared_experts) *
                          static_cast<double>(e.shared_expert_ffn > 0 ? e.shared_expert_ffn : e.expert_ffn);
    ffn_width = std::max(ffn_width, static_cast<double>(e.active_experts * e.expert_ffn) + shared);
  }
  const double qdim = m.mla ? static_cast<double>(m.heads * (m.mla->qk_nope_head_dim + m.mla->qk_rope_head_dim))
                            : static_cast<double>(m.heads * m.head_dim);
  const double kvdim = static_cast<double>(kv_elements_per_token_layer(m));  // k and v (MLA: its latent)
  const double per_token = 3.0 * static_cast<double>(m.hidden) + 2.0 * qdim + kvdim + 2.0 * ffn_width;
  return static_cast<double>(tokens_in_flight) * per_token * bytes_per_value +
         static_cast<double>(batch) * static_cast<double>(m.vocab) * 4.0;  // fp32 logits of the batch
}

SimpleBudget simple_budget(double params, double bytes_per_param, double kv_per_token, int64_t tokens, int64_t batch,
                           double capacity) {
  SimpleBudget b;
  b.weights_bytes = params * bytes_per_param;
  b.kv_bytes = kv_per_token * static_cast<double>(tokens) * static_cast<double>(batch);
  b.total_bytes = b.weights_bytes + b.kv_bytes;
  b.capacity_bytes = capacity;
  b.headroom_bytes = capacity - b.total_bytes;
  b.fits = b.headroom_bytes >= 0;
  return b;
}

namespace {

struct DeviceShare {
  double weights_fraction;  // of all weights, per device
  double kv_fraction;       // of the whole KV cache, per device
  double state_fraction;    // of the recurrent state, per device (its heads split by tp, its layers by pp)
};

DeviceShare device_share(const ModelSpec& m, int64_t tp, int64_t pp) {
  // Tensor parallelism splits every matrix tp ways; pipeline stages hold layers / pp each.
  // KV heads split across tp ranks; with more ranks than KV heads each rank keeps one head (replicas).
  // MLA's latent is shared by all heads, so every tp rank holds all of it.
  DeviceShare s;
  s.weights_fraction = 1.0 / static_cast<double>(tp * pp);
  double kv_tp = 1.0;
  if (!m.mla) {
    const int64_t heads_per_rank = std::max<int64_t>(1, (m.kv_heads + tp - 1) / tp);
    kv_tp = static_cast<double>(heads_per_rank) / static_cast<double>(m.kv_heads);
  }
  const double layers_per_stage = std::ceil(static_cast<double>(m.layers) / static_cast<double>(pp));
  s.kv_fraction = kv_tp * layers_per_stage / static_cast<double>(m.layers);
  s.state_fraction = layers_per_stage / static_cast<double>(m.layers) / static_cast<double>(tp);
  return s;
}

}  // namespace

FitResult fit(const ModelSpec& m, const ChipSpec& chip, const PrecisionPlan& p, const FitOptions& o) {
  check_positive("batch", o.batch, 10'000'000);
  check_positive("context", o.context, 100'000'000);
  check_positive("tp", o.tp, 4096);
  check_positive("pp", o.pp, 4096);
  check_positive("prefill-chunk", o.prefill_chunk, 10'000'000);
  if (m.heads % o.tp != 0)
    throw InputError("--tp " + std::to_string(o.tp) + " does not divide the model's " + std::to_string(m.heads) +
                     " attention heads; valid --tp values divide " + std::to_string(m.heads));
  if (!m.mla && o.tp > m.kv_heads && o.tp % m.kv_heads != 0)
    throw InputError("--tp " + std::to_string(o.tp) + " is above the " + std::to_string(m.kv_heads) +
                     " KV heads but not a multiple of them");
  if (o.pp > m.layers)
    throw InputError("--pp " + std::to_string(o.pp) + " exceeds the model's " + std::to_string(m.layers) + " layers");
  if (chip.memory_bytes <= 0) throw InputError("chip '" + chip.id + "' has no memory_bytes");

  FitResult r;
  r.model = m.id;
  r.hw = chip.id;
  r.precision = p.describe();
  r.kv_precision = p.kv_format().name;
  r.context = o.context;
  r.batch = o.batch;
  r.tp = o.tp;
  r.pp = o.pp;
  r.devices = o.tp * o.pp;
  const ParamCounts pc = count_params(m);
  r.params_total = pc.total;
  r.params_active = pc.active;
  r.weights = weight_bytes(m, p);
  const NumberFormat& kvf = p.kv_format();
  if (!kvf.kv_cache) throw InputError("--kv-precision " + p.kv + " is not a KV cache format; use fp16, bf16, fp8, int8, q8_0 or fp32");
  r.kv_bytes_per_token = kv_bytes_per_token(m, kvf);
  r.state_bytes_per_sequence = state_bytes_per_sequence(m);
  // The context at which one sequence's KV passes the weights (sliding windows applied): KV grows
  // monotonically with context, so bisect; without windows this is weights / KV per token.
  {
    double lo = 0, hi = r.weights.total / r.kv_bytes_per_token;
    while (kv_bytes(m, kvf, static_cast<int64_t>(std::min(hi, 1e15)), 1) < r.weights.total && hi < 1e15) hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 0.5; ++i) {
      const double mid = (lo + hi) / 2;
      (kv_bytes(m, kvf, static_cast<int64_t>(mid), 1) < r.weights.total ? lo : hi) = mid;
    }
    r.kv_equals_weights_at_tokens = m.sliding_window > 0 && m.sliding_window_layers > 0 ? std::ceil(hi)
                                                                                         : r.weights.total / r.kv_bytes_per_token;
  }

  const bool cpu = chip.kind == "cpu" || chip.kind == "soc";
  r.usable_fraction = o.usable_fraction.value_or(o.simple ? 1.0 : 0.95);
  if (!(r.usable_fraction > 0 && r.usable_fraction <= 1.0))
    throw InputError("--usable-fraction must be in (0, 1]");
  r.overhead_bytes = o.overhead_bytes.value_or(o.simple ? 0.0 : (cpu ? 0.3e9 : 1.0e9));
  if (r.overhead_bytes < 0) throw InputError("--overhead-bytes must be >= 0");
  const double act_value_bytes = cpu ? 4.0 : 2.0;
  auto activations = [&](int64_t batch, int64_t context) {
    if (o.activation_bytes) return *o.activation_bytes;
    if (o.simple) return 0.0;
    const int64_t in_flight = std::max(batch, std::min(o.prefill_chunk, context));
    return activation_bytes(m, in_flight, batch, act_value_bytes);
  };
  const DeviceShare share = device_share(m, o.tp, o.pp);
  auto total_per_device = [&](int64_t batch, int64_t context) {
    return r.weights.total * share.weights_fraction + kv_bytes(m, kvf, context, batch) * share.kv_fraction +
           r.state_bytes_per_sequence * static_cast<double>(batch) * share.state_fraction + activations(batch, context) / static_cast<double>(o.tp) + r.overhead_bytes;
  };

  r.kv_bytes = kv_bytes(m, kvf, o.context, o.batch);
  r.activation_bytes = activations(o.batch, o.context);
  r.weights_bytes_per_device = r.weights.total * share.weights_fraction;
  r.kv_bytes_per_device = r.kv_bytes * share.kv_fraction;
  r.state_bytes = r.state_bytes_per_sequence * static_cast<double>(o.batch);
  r.state_bytes_per_device = r.state_bytes * share.state_fraction;
  r.total_bytes = total_per_device(o.batch, o.context);
  r.memory_bytes = chip.memory_bytes;
  r.capacity_bytes = chip.memory_bytes * r.usable_fraction;
  r.headroom_bytes = r.capacity_bytes - r.total_bytes;
  r.fits = r.headroom_bytes >= 0;

  // Largest batch at this context, longest context at this batch: the totals grow monotonically,
  // so a binary search finds the last value that fits.
  auto last_fitting = [&](int64_t hi, auto&& total_at) -> int64_t {
    if (total_at(1) > r.capacity_bytes) return 0;
    int64_t lo = 1;
    while (lo < hi) {
      int64_t mid = lo + (hi - lo + 1) / 2;
      if (total_at(mid) <= r.capacity_bytes) lo = mid; else hi = mid - 1;
    }
    return lo;
  };
  r.max_batch = last_fitting(10'000'000, [&](int64_t b) { return total_per_device(b, o.context); });
  const int64_t model_max = m.max_context > 0 ? m.max_context : 100'000'000;
  r.max_context = last_fitting(model_max, [&](int64_t c) { return total_per_device(o.batch, c); });
  r.max_context_limited_by = (r.max_context == model_max && total_per_device(o.batch, model_max) <= r.capacity_bytes) ? "model" : "memory";

  if (o.simple) {
    r.assumptions.push_back("simple: the seeds' budget, weights + KV cache only, all memory usable");
  } else {
    r.assumptions.push_back("usable memory: " + std::to_string(static_cast<int>(std::lround(r.usable_fraction * 100))) +
                            "% of capacity (allocator slack, fragmentation; --usable-fraction)");
    r.assumptions.push_back(std::string("runtime overhead: ") + (cpu ? "0.3 GB (process, runtime)" : "1 GB (CUDA context, library workspaces)") +
                            " unless --overhead-bytes");
    r.assumptions.push_back("activations: max(batch, prefill chunk " + std::to_string(o.prefill_chunk) +
                            ") tokens in flight through one layer in " + (cpu ? "fp32" : "bf16") + ", plus the batch's fp32 logits");
  }
  if (m.sliding_window > 0 && m.sliding_window_layers > 0)
    r.assumptions.push_back(std::to_string(m.sliding_window_layers) + " of " + std::to_string(m.layers) +
                            " layers keep only a " + std::to_string(m.sliding_window) + "-token " +
                            (m.chunked_window ? "chunk" : "window") + " of KV");
  if (m.state)
    r.assumptions.push_back(std::to_string(m.state->layers) + " of " + std::to_string(m.layers) + " layers are " +
                            state_kind_name(m.state->kind) + " layers" + (m.state->parallel ? " beside attention" : "") +
                            ": a fixed recurrent state per sequence (SSM state in " + std::string (m.state->ssm_state_fp32 ? "fp32" : "16 bits") +
                            ", convolution history in 16 bits), no KV; " + std::to_string(attention_layers(m)) +
                            " layers keep KV");
  if (o.tp > 1 || o.pp > 1)
    r.assumptions.push_back("weights split evenly over " + std::to_string(r.devices) + " devices; KV heads split by tp" +
                            std::string(m.mla ? " (MLA latent replicated on each tp rank)" : "") + ", layers by pp");
  if (m.max_context > 0 && o.context > m.max_context)
    r.notes.push_back("context " + std::to_string(o.context) + " exceeds the model's trained maximum of " +
                      std::to_string(m.max_context) + " tokens");
  return r;
}

}  // namespace rooftop
