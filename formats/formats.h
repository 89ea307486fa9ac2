// Number formats for weights and the KV cache, with their true storage cost computed from block layouts.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rooftop {

// One field of a block: a scale, a minimum, the packed values ...
struct BlockField {
  std::string name;  // "d (fp16 scale)", "qs (32 x 4-bit)"
  int64_t bits = 0;  // bits this field takes in one block
};

// A whole-file mix (GGUF Q4_K_M ...): fractions of the weights stored in each block format.
struct MixPart {
  std::string format;
  double fraction = 0;
};

struct NumberFormat {
  std::string name;                  // canonical, lowercase: "q4_1"
  std::vector<std::string> aliases;  // "f32" for "fp32" ...
  std::string description;
  int64_t block_values = 1;          // values per block (1 for plain floats)
  std::vector<BlockField> layout;    // empty for a mix
  std::vector<MixPart> mix;          // non-empty for whole-file averages
  // Compute formats to try for this weight format's matmuls, best first (a chip without an fp4 rate
  // computes mxfp4 weights in bf16, say). The first one the chip has is used.
  std::vector<std::string> compute;
  bool kv_cache = false;             // may be used for the KV cache
  int ggml_type = -1;                // the ggml type id GGUF stores it as (ggml_types.h), -1 for none
  std::string note;                  // caveats (what is idealized, where a mix's fractions come from)

  int64_t block_bits() const;        // sum of the layout's fields
  double bits_per_weight() const;    // block_bits / block_values, or the mix's weighted average
  double bytes_per_value() const { return bits_per_weight() / 8.0; }
  // Exact bytes of `rows` rows of `cols` values: rows x ceil(cols / block) x block bytes. Mixes: rounded average.
  double bytes_for(int64_t rows, int64_t cols) const;
  // The name ggml gives it ("f32" for fp32, "q4_k" for q4_k), else the canonical name.
  std::string ggml_name() const;
};

const std::vector<NumberFormat>& all_formats();
// Lookup by name or alias (case-insensitive). Unknown: InputError naming the closest formats.
const NumberFormat& find_format(std::string_view name);
std::vector<std::string> format_names();
// The format GGUF stores as this ggml type id ("fp32" for 0, "q4_k" for 12), or nullptr for a type the table does
// not describe (the i-quants, ternary and integer types).
const NumberFormat* format_of_ggml_type(uint32_t id);

}  // namespace rooftop
