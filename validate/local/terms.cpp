// Term sets of the prediction model: chip copies with some calibrated rates left empty, asked of rooftop::speed.
#include "validate/local/terms.h"

#include <stdexcept>
#include <string>

#include "validate/local/sweep.h"

namespace rooftop::validate {
ChipSpec chip_with_terms(const ChipSpec& chip, int set) {
  if (set < 0 || set >= kTermSets) throw std::invalid_argument("term set index out of range");
  ChipSpec c = chip;
  if (set == kTermSets - 1) return c;
  // Set 2 keeps the kernel rates alone; sets 0 and 1 keep nothing calibrated.
  CalibratedRates kept;
  if (set == 2) {
    kept.formats = c.measured.formats;
    kept.attention_bytes_per_s = c.measured.attention_bytes_per_s;
    kept.attention_prefill_flops_per_s = c.measured.attention_prefill_flops_per_s;
  }
  c.measured = kept;
  return c;
}

SpeedOptions options_with_terms(SpeedOptions o, int set) {
  if (set == 1 || set == 2) {
    o.bandwidth_efficiency = 1.0;
    o.flops_efficiency = 1.0;
    o.layer_overhead_s = 0.0;  // the analyzer otherwise assumes a per-layer cost where none is measured
  }
  return o;
}

double term_tokens_per_s(const ModelSpec& m, const ChipSpec& chip, const ValidatePoint& p, int set) {
  if (set == 0) return chip.memory_bandwidth_bytes_per_s / p.bytes_per_token();
  const PrecisionPlan plan = plan_for(p);
  SpeedOptions o;
  o.batches = {p.batch};
  o.context = p.context;
  o.prompt_tokens = p.context;
  o.output_tokens = 1;
  const SpeedResult r = speed(m, chip_with_terms(chip, set), plan, options_with_terms(o, set));
  return r.points.at(0).decode_tokens_per_s;
}

}  // namespace rooftop::validate
