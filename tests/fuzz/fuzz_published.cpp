// Fuzz target: one file of the published-measurements dataset through the strict loader.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/errors.h"
#include "validate/published.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rooftop::validate::PublishedDataset d;
  try {
    rooftop::validate::parse_published(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.yaml", d);
  } catch (const rooftop::InputError&) {
  }
  return 0;
}
