// Generation: prefill the prompt, then decode token by token, timing each phase into a RunRecord.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "engine/forward.h"
#include "engine/run_record.h"
#include "engine/sampler.h"
#include "engine/tokenizer.h"

namespace rooftop::engine {

struct GenerateOptions {
  int64_t max_tokens = 64;   // tokens to generate (-n)
  SamplerConfig sampler;
  int64_t show_logits = 0;   // top-N per step (0 = none)
  bool stop_at_eos = true;   // stop at the tokenizer's stop ids
};

// Runs `prompt_ids` through `fwd` (whose cache must be empty) and generates. on_text receives each
// token's bytes as soon as it is sampled (for streaming); it may be empty.
RunRecord generate(Forward& fwd, const Tokenizer& tok, const std::vector<int32_t>& prompt_ids,
                   const GenerateOptions& opt, const std::function<void(const std::string&)>& on_text);

}  // namespace rooftop::engine
