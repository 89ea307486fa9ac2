// Hybrid models (recurrent-state layers beside attention) and chunked attention: fit and the work of a
// pass account for them, checked against numbers worked by hand.
#include <catch2/catch.hpp>

#include "analyzer/chip_spec.h"
#include "analyzer/memory.h"
#include "analyzer/params.h"
#include "analyzer/work.h"
#include "seed_models.h"

using namespace rooftop;

namespace {
// A small Mamba-2 hybrid: 8 layers, 6 of them Mamba-2 (4 heads of 32, state 16, 2 groups), 2 attention
// layers (4 heads, 2 KV heads of 32), a SwiGLU FFN in every layer.
ModelSpec hybrid() {
  ModelSpec m = test::dense_spec("hybrid", 1000, 128, 8, 4, 2, 32, 256);
  StateSpec s;
  s.kind = StateKind::mamba2;
  s.layers = 6;
  s.heads = 4;
  s.head_dim = 32;
  s.inner = 128;
  s.state_dim = 16;
  s.groups = 2;
  s.conv_kernel = 4;
  m.state = s;
  return m;
}
ChipSpec gpu(double mem) { return test::chip_spec("gpu", "gpu", mem, 1e12, {{"bf16", 1e15}}); }
}  // namespace

TEST_CASE("a hybrid's KV covers its attention layers; its state is fixed per sequence", "[analyzer][hybrid]") {
  const ModelSpec m = hybrid();
  CHECK(attention_layers(m) == 2);
  // KV: 2 layers x 2 x 2 KV heads x 32 x 2 bytes = 512 bytes per token.
  CHECK(kv_bytes_per_token(m, find_format("bf16")) == 512.0);
  // State: 6 x (4 x 32 x 16 SSM values + 3 x (128 + 2 x 2 x 16) conv values) x 2 bytes = 6 x (2048 + 576) x 2.
  CHECK(state_bytes_per_sequence(m) == 31488.0);
  ModelSpec fp32 = m;
  fp32.state->ssm_state_fp32 = true;  // SSM state 4 bytes, convolution history still 2
  CHECK(state_bytes_per_sequence(fp32) == 6.0 * (2048 * 4 + 576 * 2));

  PrecisionPlan p;
  p.weights = "bf16";
  FitOptions o;
  o.context = 1000;
  o.batch = 3;
  o.activation_bytes = 0;
  o.overhead_bytes = 0;
  o.usable_fraction = 1.0;
  const FitResult r = fit(m, gpu(1e9), p, o);
  CHECK(r.state_bytes_per_sequence == 31488.0);
  CHECK(r.state_bytes == 3 * 31488.0);
  CHECK(r.kv_bytes == 3 * 1000 * 512.0);
  CHECK(r.total_bytes == Approx(r.weights.total + r.kv_bytes + r.state_bytes).epsilon(1e-12));
  // The largest batch: every sequence costs its KV (1000 x 512 bytes) and its state, whatever the context.
  const double per_seq = 1000 * 512.0 + 31488.0;
  CHECK(r.max_batch == static_cast<int64_t>((1e9 - r.weights.total) / per_seq));
  // Tensor parallelism splits the state's heads: half per device at tp 2.
  o.tp = 2;
  CHECK(fit(m, gpu(1e9), p, o).state_bytes_per_device == Approx(r.state_bytes / 2));
}

TEST_CASE("a decode step reads and writes each sequence's state once; prefill runs the recurrence per token",
          "[analyzer][hybrid]") {
  const ModelSpec m = hybrid();
  PrecisionPlan p;
  p.weights = "bf16";
  const double state = state_bytes_per_sequence(m);
  const PassWork d = pass_work(m, p, {4, 1, 2000});
  // KV read: 4 sequences x 2001 tokens x 512 bytes; plus each state read once.
  CHECK(d.kv_read_bytes == 4 * 2001 * 512.0 + 4 * state);
  CHECK(d.kv_write_bytes == 4 * 512.0 + 4 * state);
  // Recurrence FLOPs per token and layer: 6 per SSM value (2048) + 2 x 4 taps x 192 conv channels = 13,824.
  CHECK(state_flops_per_token_layer(*m.state) == 13824.0);
  const auto state_op = [](const PassWork& w) {
    for (const auto& o : w.ops)
      if (o.name == "state") return o;
    return OpCost{};
  };
  CHECK(state_op(d).flops == 4 * 6 * 13824.0);
  const PassWork pre = pass_work(m, p, {1, 300, 0});
  CHECK(state_op(pre).flops == 300 * 6 * 13824.0);
  CHECK(state_op(pre).kv_read_bytes == state);  // the prompt is scanned with the state on chip
}

TEST_CASE("chunked attention sees only its own chunk; a sliding window the last W tokens", "[analyzer][hybrid]") {
  ModelSpec m = test::dense_spec("chunked", 1000, 64, 4, 2, 1, 32, 128);
  m.sliding_window = 100;
  m.sliding_window_layers = 3;
  PrecisionPlan p;
  p.weights = "bf16";
  const double kv_layer_token = 2 * 1 * 32 * 2.0;  // bytes per layer per token
  // Decode after 250 cached tokens: the new token is the 251st. A sliding window reads 100 tokens; a chunk
  // restarts every 100 tokens, so the token sees its chunk's 51 (positions 201..251); the global layer 251.
  const PassWork sliding = pass_work(m, p, {1, 1, 250});
  CHECK(sliding.kv_read_bytes == (1 * 251 + 3 * 100) * kv_layer_token);
  m.chunked_window = true;
  const PassWork chunked = pass_work(m, p, {1, 1, 250});
  CHECK(chunked.kv_read_bytes == (1 * 251 + 3 * 51) * kv_layer_token);
  // Prefill of 250 tokens: pairs per chunked layer 3 chunks' triangles: 2 x (100 x 101 / 2) + 50 x 51 / 2.
  const PassWork pre = pass_work(m, p, {1, 250, 0});
  double attn_flops = 0;
  for (const auto& o : pre.ops)
    if (o.name == "attention") attn_flops = o.flops;
  const double pairs = 1 * (250.0 * 251 / 2) + 3 * (2 * 5050.0 + 1275.0);
  CHECK(attn_flops == pairs * 2 /*heads*/ * 2.0 * (32 + 32));
  // Memory holds at most one chunk per chunked layer: the same bound as the window.
  CHECK(kv_bytes(m, find_format("bf16"), 250, 1) == (250 + 3 * 100) * kv_layer_token);
}

TEST_CASE("sparse attention reads the top-k tokens' KV, and its indexer every token's key", "[analyzer][sparse]") {
  ModelSpec m = test::dense_spec("dsa", 1000, 64, 2, 2, 2, 16, 128);
  m.sparse = SparseAttentionSpec{4, 32, 100};  // 4 indexer heads of 32, top 100
  PrecisionPlan p;
  p.weights = "bf16";
  const double kv = 2 * 2 * 16 * 2.0;  // bytes per layer per token in bf16
  const double key = 32 + 4.0;         // fp8 index key + fp32 scale
  CHECK(kv_bytes_per_token(m, find_format("bf16")) == 2 * (kv + key));
  // Decode after 999 cached tokens: attention reads 100 tokens' KV per layer; the indexer all 1000 keys.
  const PassWork d = pass_work(m, p, {1, 1, 999});
  double attn = 0, index = 0, index_flops = 0;
  for (const auto& o : d.ops) {
    if (o.name == "attention") attn = o.kv_read_bytes;
    if (o.name == "indexer") index = o.kv_read_bytes, index_flops = o.flops;
  }
  CHECK(attn == 2 * 100 * kv);
  CHECK(index == 2 * 1000 * key);
  CHECK(index_flops == 2 * 1000 * 2.0 * 4 * 32);
  // The cache still holds every token.
  CHECK(kv_bytes(m, find_format("bf16"), 1000, 1) == 2 * 1000 * (kv + key));
}
