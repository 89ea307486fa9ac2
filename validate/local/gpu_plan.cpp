#include "validate/local/gpu_plan.h"

#include "formats/formats.h"
#include "analyzer/memory.h"
#include "analyzer/work.h"

namespace rooftop::validate {

const std::vector<std::string>& gpu_validation_model_ids() {
  static const std::vector<std::string> ids = {"smollm2-135m", "qwen2.5-1.5b", "llama-3.1-8b"};
  return ids;
}

namespace {
// Why the GPU decode step (a llama layer) cannot stand for this card, or "".
std::string not_llama(const ModelSpec& m) {
  if (m.moe) return "mixture of experts";
  if (m.mla) return "multi-head latent attention";
  if (m.sparse) return "sparse attention";
  if (m.state) return "a recurrent state mixer";
  if (m.sliding_window > 0 || m.chunked_window) return "windowed attention";
  if (m.mixer_free_layers > 0 || m.ffn_free_layers > 0) return "layers without attention or without an FFN";
  if (m.ffn_kind != FfnKind::swiglu) return "a non-SwiGLU FFN";
  if (m.attention_output_gate) return "a gated attention output";
  return "";
}
}  // namespace

std::vector<gpu::GpuPlanPoint> gpu_validation_plan(const std::vector<ModelSpec>& cards, std::vector<std::string>* skipped) {
  std::vector<gpu::GpuPlanPoint> plan;
  for (const ModelSpec& m : cards) {
    if (const std::string why = not_llama(m); !why.empty()) {
      if (skipped) skipped->push_back(m.id + " skipped: the GPU decode step runs a llama layer; the card has " + why);
      continue;
    }
    for (const std::string& format : gpu::validation_formats()) {
      PrecisionPlan precision;
      precision.weights = find_format(format).name;  // fp8_e4m3 -> fp8
      precision.per_class[ParamClass::norms] = "fp32";
      precision.kv = "bf16";
      // One decode token after context - 1 cached ones: its attention reads `context` positions.
      const PassWork w = pass_work(m, precision, PassShape{1, 1, gpu::kValidationContext - 1, false}, 4.0);
      gpu::GpuPlanPoint p;
      p.model = {m.id, m.hidden, m.ffn, m.heads, m.kv_heads, m.head_dim, m.layers, m.vocab};
      p.format = format;
      p.context = gpu::kValidationContext;
      p.bytes_per_token = static_cast<int64_t>(w.weight_bytes + w.kv_read_bytes);
      plan.push_back(p);
    }
  }
  return plan;
}

}  // namespace rooftop::validate
