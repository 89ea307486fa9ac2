// Fuzz target: one YAML text read as a chip card and as a model card (both loaders see every input).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analyzer/params.h"
#include "base/errors.h"
#include "hwdb/hwdb.h"
#include "models/models.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)rooftop::hwdb::parse_card(text, "fuzz.yaml");
  } catch (const rooftop::InputError&) {
  }
  try {
    (void)rooftop::count_params(rooftop::models::parse_card(text, "fuzz.yaml"));
  } catch (const rooftop::InputError&) {
  }
  return 0;
}
