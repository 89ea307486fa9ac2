#include "cli/refresh.h"

#include <algorithm>

#include "hwdb/calibration.h"
#include "measure/calibrate.h"
#include "measure/calibration_record.h"

namespace rooftop::cli {

ChipSpec refreshed_for_model(const ChipSpec& chip, const engine::LlamaModel& model, int threads, std::string& why) {
  // The formats the prediction reads, re-measured as `rooftop validate` does before each format's points.
  measure::CalibrateOptions copt;
  copt.threads = threads;
  copt.refresh_prefill = true;
  auto add = [&](kernels::WeightFormat f) {
    auto& fs = copt.refresh_formats;
    if (std::find(fs.begin(), fs.end(), f) == fs.end()) fs.push_back(f);
  };
  add(model.token_embd.format);
  add(model.output.format);
  for (const auto& l : model.layers)
    for (const kernels::WeightView* w : {&l.wq, &l.wk, &l.wv, &l.wo, &l.gate, &l.up, &l.down}) add(w->format);
  const measure::CalibrationRecord rec = measure::run_calibration(copt);
  why.clear();
  ChipSpec now = hwdb::apply_calibration(chip, measure::calibration_json(rec), &why);
  return why.empty() ? now : chip;
}

}  // namespace rooftop::cli
