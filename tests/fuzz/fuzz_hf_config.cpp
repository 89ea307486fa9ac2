// Fuzz target: a Hugging Face config.json through the importer and the analyzer's parameter count.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analyzer/params.h"
#include "base/errors.h"
#include "models/models.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const rooftop::ModelSpec m =
        rooftop::models::from_hf_config_text(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz/config.json");
    (void)rooftop::count_params(m);
  } catch (const rooftop::InputError&) {
  }
  return 0;
}
