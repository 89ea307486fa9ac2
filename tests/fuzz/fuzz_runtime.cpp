// Fuzz target: a runtime profile card through the strict parser; a card it accepts must give finite,
// non-negative pass times on a real chip, and what the fit would write of it must read back.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "analyzer/runtime.h"
#include "base/errors.h"
#include "hwdb/hwdb.h"
#include "hwdb/runtime_cards.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rooftop::RuntimeProfile p;
  try {
    p = rooftop::hwdb::parse_runtime_card(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.yaml");
  } catch (const rooftop::InputError&) {
    return 0;
  }
  static const rooftop::hwdb::Database chips = rooftop::hwdb::load();
  const rooftop::ChipSpec& chip = *chips.find("h100-sxm");
  rooftop::CompactPass pass;
  pass.ops.push_back({rooftop::CompactOp::matmul, rooftop::FormatFamily::kquant, 1e9, 1e12, 1.9e15});
  pass.ops.push_back({rooftop::CompactOp::attention, rooftop::FormatFamily::float_, 1e8, 1e10, 9.9e14});
  pass.tokens = 4;
  pass.layers = 32;
  pass.tp = 2;
  pass.collectives = 64;
  pass.collective_bytes = 1e6;
  const double s = rooftop::pass_seconds(pass, rooftop::resolve_rates(p, chip, 450e9));
  if (!std::isfinite(s) || s < 0) std::abort();
  rooftop::hwdb::parse_runtime_card(rooftop::hwdb::runtime_card_yaml(p, "round trip"), "again.yaml");  // throws: a bug
  return 0;
}
