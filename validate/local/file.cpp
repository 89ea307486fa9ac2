// The real model file as the analyzer sees it.
#include "validate/local/file.h"

#include <map>

#include "base/errors.h"
#include "formats/formats.h"

namespace rooftop::validate {

std::string analyzer_format(kernels::WeightFormat f) {
  const NumberFormat* n = format_of_ggml_type(static_cast<uint32_t>(f));  // a kernel format's id is its ggml type
  if (!n) throw InternalError(std::string("kernel format ") + kernels::format_name(f) + " has no number format");
  return n->name;
}

kernels::WeightFormat dominant_format(const engine::LlamaModel& m) {
  std::map<kernels::WeightFormat, int64_t> bytes;
  for (const auto& l : m.layers)
    for (const kernels::WeightView* w : {&l.wq, &l.wk, &l.wv, &l.wo, &l.gate, &l.up, &l.down}) bytes[w->format] += w->bytes();
  kernels::WeightFormat best = kernels::WeightFormat::f32;
  int64_t most = -1;
  for (const auto& [f, b] : bytes)
    if (b > most) best = f, most = b;
  return best;
}

}  // namespace rooftop::validate
