// Calibration covers every weight format the kernels read: a format left out is priced from no measured rate.
#include <catch2/catch.hpp>

#include <algorithm>

#include "kernels/cpu/kernels.h"
#include "measure/shapes.h"

using rooftop::kernels::WeightFormat;

TEST_CASE("calibrate measures every weight format the kernels read (enum WeightFormat in kernels/cpu/kernels.h)") {
  // Before stop 48 q5_1 was missing: a whole q5_1 file (qwen2.5-0.5b shape) was predicted at 9.6 ms a token against
  // 27 ms measured, and `run --refresh` could not re-measure it either.
  const auto& calibrated = rooftop::measure::all_formats();
  for (WeightFormat f : {WeightFormat::f32, WeightFormat::f16, WeightFormat::bf16, WeightFormat::q4_0, WeightFormat::q4_1,
                         WeightFormat::q5_0, WeightFormat::q5_1, WeightFormat::q8_0, WeightFormat::q4_k, WeightFormat::q5_k,
                         WeightFormat::q6_k}) {
    INFO(rooftop::kernels::format_name(f));
    CHECK(std::find(calibrated.begin(), calibrated.end(), f) != calibrated.end());
  }
  CHECK(calibrated.size() == 11);  // and nothing twice
}
