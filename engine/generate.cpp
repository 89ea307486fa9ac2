// The generation loop with steady_clock timing around each forward pass and sample.
#include "engine/generate.h"

#include <algorithm>
#include <chrono>

#include "base/energy.h"
#include "base/errors.h"

namespace rooftop::engine {

RunRecord generate(Forward& fwd, const Tokenizer& tok, const std::vector<int32_t>& prompt_ids,
                   const GenerateOptions& opt, const std::function<void(const std::string&)>& on_text) {
  using clock = std::chrono::steady_clock;
  auto secs = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  if (opt.max_tokens < 1) throw InputError("-n " + std::to_string(opt.max_tokens) + " is invalid; expected >= 1");
  const int64_t need = int64_t(prompt_ids.size()) + opt.max_tokens;
  if (need > fwd.cache().capacity())
    throw InputError("the prompt (" + std::to_string(prompt_ids.size()) + " tokens) plus -n " +
                     std::to_string(opt.max_tokens) + " exceeds the context of " +
                     std::to_string(fwd.cache().capacity()) + " tokens");
  Sampler sampler(opt.sampler);
  RunRecord r;
  r.prompt_tokens = int64_t(prompt_ids.size());
  r.kv_bytes_per_token = fwd.model().kv_bytes_per_token();
  r.weights_bytes_per_step = fwd.model().weights_bytes_per_step();
  const auto& stops = tok.stop_ids();
  auto is_stop = [&](int32_t id) { return opt.stop_at_eos && std::find(stops.begin(), stops.end(), id) != stops.end(); };

  const auto meter = EnergyMeter::open(&r.energy_note);
  if (meter) r.energy_source = meter->describe();
  const EnergyReading e0 = meter ? meter->read() : EnergyReading{};
  auto t0 = clock::now();
  std::span<const float> logits = fwd.prefill(prompt_ids);
  const EnergyReading e1 = meter ? meter->read() : EnergyReading{};
  if (meter) r.prefill_joules = meter->joules(e0, e1);
  auto t1 = clock::now();
  int32_t next = sampler.sample(logits);
  auto t2 = clock::now();
  r.prefill_s = secs(t0, t1);
  r.ttft_s = secs(t0, t2);
  r.kv_bytes_after_prefill = fwd.cache().bytes();
  if (opt.show_logits > 0) r.first_top = top_tokens(logits, opt.show_logits);
  r.first_token = next;
  r.generated_tokens = 1;
  r.stop_reason = "length";
  if (is_stop(next)) {
    r.stop_reason = "stop token";
  } else {
    std::string p = tok.piece(next);
    r.text += p;
    if (on_text) on_text(p);
  }
  double decode_total = 0;
  const EnergyReading d0 = meter ? meter->read() : EnergyReading{};
  while (r.stop_reason == "length" && r.generated_tokens < opt.max_tokens) {
    auto a = clock::now();
    logits = fwd.decode(next);
    next = sampler.sample(logits);
    auto b = clock::now();
    DecodeStep st;
    st.token = next;
    st.s = secs(a, b);
    st.kv_bytes = fwd.cache().bytes();
    if (opt.show_logits > 0) st.top = top_tokens(logits, opt.show_logits);
    decode_total += st.s;
    ++r.generated_tokens;
    if (is_stop(next)) {
      r.stop_reason = "stop token";
    } else {
      st.piece = tok.piece(next);
      r.text += st.piece;
      if (on_text) on_text(st.piece);
    }
    r.steps.push_back(std::move(st));
  }
  if (meter) r.decode_joules = meter->joules(d0, meter->read());
  if (!r.steps.empty()) {
    r.tpot_s = decode_total / double(r.steps.size());
    r.decode_tokens_per_s = r.tpot_s > 0 ? 1.0 / r.tpot_s : 0;
  }
  return r;
}

}  // namespace rooftop::engine
