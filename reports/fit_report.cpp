// fit's views: the JSON record of DESIGN.md and the human tables.
#include "reports/fit_report.h"

#include "base/json.h"
#include "reports/units.h"

namespace rooftop::reports {

std::string provenance_of(const ChipSpec& chip, const std::string& key) {
  auto it = chip.provenance.find(key);
  if (it != chip.provenance.end()) return it->second;
  return chip.kind == "cpu" ? "derived" : "datasheet";
}

nlohmann::json fit_json(const FitResult& r, const ChipSpec& chip) {
  nlohmann::json j;
  ROOFTOP_JSON_FIELDS(j, r, model, hw, precision, kv_precision, context, batch, tp, pp, devices, params_total,
                      params_active);
  j["weights_bytes"] = r.weights.total;
  nlohmann::json by_class = nlohmann::json::object();
  for (int c = 0; c < kParamClassCount; ++c)
    if (r.weights.by_class[c] > 0) by_class[param_class_name(static_cast<ParamClass>(c))] = r.weights.by_class[c];
  j["weights_bytes_by_class"] = by_class;
  ROOFTOP_JSON_FIELDS(j, r, kv_bytes_per_token, kv_bytes, state_bytes_per_sequence, state_bytes, activation_bytes,
                      overhead_bytes, weights_bytes_per_device, kv_bytes_per_device, state_bytes_per_device,
                      total_bytes, memory_bytes, usable_fraction, capacity_bytes, fits, headroom_bytes, max_batch,
                      max_context, max_context_limited_by, kv_equals_weights_at_tokens, assumptions, notes);
  j["provenance"] = {{"memory_bytes", provenance_of(chip, "memory_bytes")}};
  return j;
}

std::vector<Table> fit_tables(const FitResult& r, const ChipSpec& chip, bool explain) {
  Table t;
  const std::string per_dev = r.devices > 1 ? " per device" : "";
  t.title = "fit: " + r.model + " on " + r.hw + (r.devices > 1 ? " x" + std::to_string(r.devices) : "") + ", weights " +
            r.precision + ", KV " + r.kv_precision + ", context " + grouped(r.context) + ", batch " + grouped(r.batch);
  t.headers = {"quantity", "value", "how"};
  t.right_align = {false, true, false};
  auto row = [&](std::string q, std::string v, std::string how = "") { t.rows.push_back({std::move(q), std::move(v), std::move(how)}); };
  row("parameters", count(r.params_total), r.params_active < r.params_total ? count(r.params_active) + " active per token" : "");
  row("weights", bytes(r.weights.total), r.precision + (explain ? " (" + bytes_exact(r.weights.total) + ")" : ""));
  row("KV per token", kib(r.kv_bytes_per_token), bytes_exact(r.kv_bytes_per_token) + " at " + r.kv_precision);
  row("KV cache", bytes(r.kv_bytes), grouped(r.context) + " tokens x " + grouped(r.batch) + " sequences");
  if (r.state_bytes_per_sequence > 0)
    row("recurrent state", bytes(r.state_bytes), bytes(r.state_bytes_per_sequence) + " per sequence, any context, x " +
                                                     grouped(r.batch) + " sequences");
  row("activations", bytes(r.activation_bytes), "estimate (see assumptions)");
  row("overhead", bytes(r.overhead_bytes), "runtime");
  if (r.devices > 1) {
    row("weights" + per_dev, bytes(r.weights_bytes_per_device), "tp " + std::to_string(r.tp) + " x pp " + std::to_string(r.pp));
    row("KV" + per_dev, bytes(r.kv_bytes_per_device), "");
    if (r.state_bytes_per_sequence > 0) row("state" + per_dev, bytes(r.state_bytes_per_device), "");
  }
  row("total" + per_dev, bytes(r.total_bytes), "");
  row("capacity" + per_dev, bytes(r.capacity_bytes), bytes(r.memory_bytes) + " x " + sig(r.usable_fraction) + " usable (" +
                                                       provenance_of(chip, "memory_bytes") + ")");
  row("verdict", r.fits ? "fits" : "does not fit",
      r.fits ? bytes(r.headroom_bytes) + " headroom" : "over by " + bytes(-r.headroom_bytes));
  row("max batch", grouped(r.max_batch), "at context " + grouped(r.context));
  row("max context", grouped(r.max_context), "at batch " + grouped(r.batch) + ", limited by " + r.max_context_limited_by);
  row("KV = weights at", grouped(static_cast<long long>(r.kv_equals_weights_at_tokens)) + " tokens", "weights / KV per token");
  for (const auto& a : r.assumptions) t.footnotes.push_back("assumption: " + a);
  for (const auto& n : r.notes) t.footnotes.push_back("note: " + n);
  std::vector<Table> out{t};
  if (explain) {
    Table e;
    e.title = "explain: weights by class";
    e.headers = {"class", "bytes", "share"};
    for (int c = 0; c < kParamClassCount; ++c) {
      const double b = r.weights.by_class[c];
      if (b <= 0) continue;
      e.rows.push_back({param_class_name(static_cast<ParamClass>(c)), bytes_exact(b), sig(100.0 * b / r.weights.total) + "%"});
    }
    e.footnotes.push_back("KV per token = 2 x layers x kv_heads x head_dim x bytes (MLA: layers x (kv_lora_rank + rope dims) x bytes)");
    if (r.state_bytes_per_sequence > 0)
      e.footnotes.push_back("recurrent state per sequence = state layers x (SSM state + (conv kernel - 1) x conv channels) x 4 bytes");
    e.footnotes.push_back("total = weights / devices + (KV + state) x share + activations + overhead; fits when total <= capacity");
    out.push_back(e);
  }
  return out;
}

}  // namespace rooftop::reports
