// ggml tensor types as GGUF stores them: id, name, values per block and bytes per block.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace rooftop::engine {

struct GgmlTypeInfo {
  uint32_t id = 0;
  const char* name = "";
  int64_t block_values = 1;  // values per block
  int64_t block_bytes = 0;   // bytes per block
};

// The known type with this id, or nullopt for ids ggml never assigned (or retired).
std::optional<GgmlTypeInfo> ggml_type_info(uint32_t id);

// Comma-separated names of every known type, for error messages.
std::string ggml_type_names();

}  // namespace rooftop::engine
