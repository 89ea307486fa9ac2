// ggml tensor types as GGUF stores them: id, name, values per block and bytes per block (ggml's block_* structs).
// The one place a ggml type's geometry is written: the GGUF reader sizes tensors with it, the kernels check their
// block structs against it at compile time, and the number-format table (formats.h) ties its GGUF formats to it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace rooftop::formats {

struct GgmlTypeInfo {
  uint32_t id = 0;
  const char* name = "";
  int64_t block_values = 1;  // values per block
  int64_t block_bytes = 0;   // bytes per block
};

// {id, name, values per block, bytes per block}
inline constexpr GgmlTypeInfo kGgmlTypes[] = {
    {0, "f32", 1, 4},         {1, "f16", 1, 2},         {2, "q4_0", 32, 18},      {3, "q4_1", 32, 20},
    {6, "q5_0", 32, 22},      {7, "q5_1", 32, 24},      {8, "q8_0", 32, 34},      {9, "q8_1", 32, 36},
    {10, "q2_k", 256, 84},    {11, "q3_k", 256, 110},   {12, "q4_k", 256, 144},   {13, "q5_k", 256, 176},
    {14, "q6_k", 256, 210},   {15, "q8_k", 256, 292},   {16, "iq2_xxs", 256, 66}, {17, "iq2_xs", 256, 74},
    {18, "iq3_xxs", 256, 98}, {19, "iq1_s", 256, 50},   {20, "iq4_nl", 32, 18},   {21, "iq3_s", 256, 110},
    {22, "iq2_s", 256, 82},   {23, "iq4_xs", 256, 136}, {24, "i8", 1, 1},         {25, "i16", 1, 2},
    {26, "i32", 1, 4},        {27, "i64", 1, 8},        {28, "f64", 1, 8},        {29, "iq1_m", 256, 56},
    {30, "bf16", 1, 2},       {34, "tq1_0", 256, 54},   {35, "tq2_0", 256, 66},   {39, "mxfp4", 32, 17},
};

// The known type with this id, or nullopt for ids ggml never assigned (or retired). constexpr, so that a kernel's
// block struct can be checked against it with static_assert.
constexpr std::optional<GgmlTypeInfo> ggml_type_info(uint32_t id) {
  for (const auto& t : kGgmlTypes)
    if (t.id == id) return t;
  return std::nullopt;
}

// Comma-separated names of every known type, for error messages.
std::string ggml_type_names();

}  // namespace rooftop::formats
