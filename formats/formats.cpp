// The table of number formats. Bits per weight come from each block's layout (ggml's block structs,
// the OCP MX spec, NVIDIA's NVFP4 description), never typed in as a total. A format GGUF stores names its ggml
// type, and its layout is checked against that type's block geometry (ggml_types.h) when the table is built.
#include "formats/formats.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "base/suggest.h"
#include "base/text.h"
#include "formats/ggml_types.h"

namespace rooftop {
namespace {

NumberFormat plain(std::string name, std::vector<std::string> aliases, int bits, std::vector<std::string> compute,
                   bool kv, std::string desc) {
  NumberFormat f;
  f.name = std::move(name);
  f.aliases = std::move(aliases);
  f.description = std::move(desc);
  f.block_values = 1;
  f.layout = {{"value", bits}};
  f.compute = std::move(compute);
  f.kv_cache = kv;
  return f;
}

NumberFormat block(std::string name, std::vector<std::string> aliases, int64_t values, std::vector<BlockField> layout,
                   std::vector<std::string> compute, bool kv, std::string desc) {
  NumberFormat f;
  f.name = std::move(name);
  f.aliases = std::move(aliases);
  f.description = std::move(desc);
  f.block_values = values;
  f.layout = std::move(layout);
  f.compute = std::move(compute);
  f.kv_cache = kv;
  return f;
}

// A format as GGUF stores it: tied to its ggml type, whose values per block and bytes per block its layout must
// reproduce (a layout that disagrees is the project's bug, caught by the first use of the table).
NumberFormat ggml(uint32_t id, NumberFormat f) {
  const auto t = formats::ggml_type_info(id);
  if (!t || f.block_values != t->block_values || f.block_bits() != 8 * t->block_bytes)
    throw InternalError("number format " + f.name + ": its block layout (" + std::to_string(f.block_values) +
                        " values, " + std::to_string(f.block_bits()) + " bits) is not ggml type " +
                        std::to_string(id) + "'s");
  f.ggml_type = static_cast<int>(id);
  return f;
}

// Compute preferences. GGUF integer quants: int8 dot products (llama.cpp's MMQ / CPU VNNI), else fp16.
const std::vector<std::string> kInt = {"int8", "fp16", "bf16", "fp32"};
const std::vector<std::string> kHalf = {"bf16", "fp16", "fp32"};

std::vector<NumberFormat> build_table() {
  std::vector<NumberFormat> t;
  t.push_back(ggml(0, plain("fp32", {"f32", "float32"}, 32, {"fp32"}, true, "IEEE binary32: 1 sign, 8 exponent, 23 mantissa bits")));
  t.push_back(ggml(1, plain("fp16", {"f16", "float16", "half"}, 16, {"fp16", "bf16", "fp32"}, true, "IEEE binary16: 1 sign, 5 exponent, 10 mantissa bits")));
  t.push_back(ggml(30, plain("bf16", {"bfloat16"}, 16, {"bf16", "fp16", "fp32"}, true, "bfloat16: 1 sign, 8 exponent, 7 mantissa bits")));
  t.push_back(plain("fp8", {"fp8_e4m3", "e4m3", "f8"}, 8, {"fp8", "bf16", "fp16", "fp32"}, true, "FP8 E4M3: 1 sign, 4 exponent, 3 mantissa bits (per-tensor scale ignored)"));
  t.push_back(plain("fp8_e5m2", {"e5m2"}, 8, {"fp8", "bf16", "fp16", "fp32"}, true, "FP8 E5M2: 1 sign, 5 exponent, 2 mantissa bits"));
  t.push_back(plain("int8", {"i8", "w8a8"}, 8, kInt, true, "8-bit integers (per-channel scales, negligible, ignored)"));
  {
    auto f = plain("int4", {"i4", "4bit"}, 4, kHalf, false, "4-bit integers, idealized: exactly 0.5 bytes per weight");
    f.note = "the seeds' convention (7B at 4 bits = 3.50 GB); real 4-bit formats add scales: see int4_g128, q4_0, q4_k";
    t.push_back(f);
  }
  for (int g : {32, 64, 128}) {
    auto name = "int4_g" + std::to_string(g);
    t.push_back(block(name, {}, g, {{"qs (" + std::to_string(g) + " x 4-bit)", 4LL * g}, {"scale (fp16)", 16}, {"zero (4-bit)", 4}},
                      kHalf, false, "4-bit integers in groups of " + std::to_string(g) + " with an fp16 scale and 4-bit zero point (GPTQ/AWQ style)"));
  }
  // GGUF block formats (ggml-common.h): fp16 d = scale, fp16 m or dmin = minimum.
  t.push_back(ggml(8, block("q8_0", {}, 32, {{"d (fp16)", 16}, {"qs (32 x int8)", 256}}, kInt, true, "GGUF Q8_0: blocks of 32, one fp16 scale")));
  t.push_back(ggml(2, block("q4_0", {}, 32, {{"d (fp16)", 16}, {"qs (32 x 4-bit)", 128}}, kInt, true, "GGUF Q4_0: blocks of 32, one fp16 scale, value = (q - 8) d")));
  t.push_back(ggml(3, block("q4_1", {}, 32, {{"d (fp16)", 16}, {"m (fp16)", 16}, {"qs (32 x 4-bit)", 128}}, kInt, true, "GGUF Q4_1: blocks of 32, fp16 scale and minimum, value = q d + m")));
  t.push_back(ggml(6, block("q5_0", {}, 32, {{"d (fp16)", 16}, {"qh (32 x 1-bit)", 32}, {"qs (32 x 4-bit)", 128}}, kInt, true, "GGUF Q5_0: blocks of 32, 5-bit values, one fp16 scale")));
  t.push_back(ggml(7, block("q5_1", {}, 32, {{"d (fp16)", 16}, {"m (fp16)", 16}, {"qh (32 x 1-bit)", 32}, {"qs (32 x 4-bit)", 128}}, kInt, true, "GGUF Q5_1: blocks of 32, 5-bit values, fp16 scale and minimum")));
  // K-quants: 256-value super-blocks with sub-block scales.
  t.push_back(ggml(10, block("q2_k", {}, 256, {{"scales (16 x 4+4-bit)", 128}, {"qs (256 x 2-bit)", 512}, {"d (fp16)", 16}, {"dmin (fp16)", 16}}, kInt, false, "GGUF Q2_K: super-blocks of 256, 16 sub-blocks of 16")));
  t.push_back(ggml(11, block("q3_k", {}, 256, {{"hmask (256 x 1-bit)", 256}, {"qs (256 x 2-bit)", 512}, {"scales (16 x 6-bit)", 96}, {"d (fp16)", 16}}, kInt, false, "GGUF Q3_K: super-blocks of 256, 16 sub-blocks of 16")));
  t.push_back(ggml(12, block("q4_k", {}, 256, {{"d (fp16)", 16}, {"dmin (fp16)", 16}, {"scales (8 x 6+6-bit)", 96}, {"qs (256 x 4-bit)", 1024}}, kInt, false, "GGUF Q4_K: super-blocks of 256, 8 sub-blocks of 32")));
  t.push_back(ggml(13, block("q5_k", {}, 256, {{"d (fp16)", 16}, {"dmin (fp16)", 16}, {"scales (8 x 6+6-bit)", 96}, {"qh (256 x 1-bit)", 256}, {"qs (256 x 4-bit)", 1024}}, kInt, false, "GGUF Q5_K: super-blocks of 256, 8 sub-blocks of 32")));
  t.push_back(ggml(14, block("q6_k", {}, 256, {{"ql (256 x 4-bit)", 1024}, {"qh (256 x 2-bit)", 512}, {"scales (16 x int8)", 128}, {"d (fp16)", 16}}, kInt, false, "GGUF Q6_K: super-blocks of 256, 16 sub-blocks of 16")));
  // Microscaling 4-bit floats.
  // MLX (mlx.core.quantize): groups of 64, a 16-bit scale and a 16-bit bias per group (its defaults).
  t.push_back(block("mlx_4bit", {"mlx-4bit"}, 64, {{"qs (64 x 4-bit)", 256}, {"scale (fp16)", 16}, {"bias (fp16)", 16}}, kHalf, false, "MLX 4-bit: groups of 64, fp16 scale and bias"));
  t.push_back(block("mlx_6bit", {"mlx-6bit"}, 64, {{"qs (64 x 6-bit)", 384}, {"scale (fp16)", 16}, {"bias (fp16)", 16}}, kHalf, false, "MLX 6-bit: groups of 64, fp16 scale and bias"));
  t.push_back(ggml(39, block("mxfp4", {"mx4"}, 32, {{"values (32 x E2M1)", 128}, {"scale (E8M0)", 8}}, {"fp4", "bf16", "fp16"}, false, "OCP MXFP4: 32 E2M1 values share a power-of-two E8M0 scale")));
  t.push_back(block("nvfp4", {}, 16, {{"values (16 x E2M1)", 64}, {"scale (FP8 E4M3)", 8}}, {"fp4", "fp8", "bf16"}, false, "NVIDIA NVFP4: 16 E2M1 values share an FP8 E4M3 scale (plus one fp32 per tensor, ignored)"));
  // Whole-file GGUF mixes (llama.cpp's quantize presets). Q4_K_M/Q5_K_M keep attn_v, ffn_down (about
  // half the layers) and the output in Q6_K; the 1/6 fraction reproduces Llama-2-7B's files
  // (Q4_K_M 4.08 GB = 4.84 bits/weight, Q5_K_M 4.78 GB = 5.68).
  auto mix = [&](std::string name, std::vector<MixPart> parts, std::string desc) {
    NumberFormat f;
    f.name = std::move(name);
    f.description = std::move(desc);
    f.mix = std::move(parts);
    f.compute = kInt;
    f.block_values = 256;
    f.note = "a whole-file average: fractions from llama.cpp's preset on Llama-2-7B";
    t.push_back(f);
  };
  mix("q4_k_m", {{"q4_k", 5.0 / 6.0}, {"q6_k", 1.0 / 6.0}}, "GGUF Q4_K_M file: mostly Q4_K, attn_v/ffn_down/output partly Q6_K");
  // Q3_K_M: attn_v, attn_output and ffn_down go up to Q4_K/Q5_K; 0.55 x 3.4375 + 0.45 x 4.5 = 3.92 bits, the average
  // of llama.cpp quantize's printed "Q3_K_M : 3.07G @ LLaMA-v1-7B" (3.07 GiB x 8 / 6.74 B = 3.91 bits).
  mix("q3_k_m", {{"q3_k", 0.55}, {"q4_k", 0.45}}, "GGUF Q3_K_M file: mostly Q3_K, attn_v/attn_output/ffn_down at Q4_K or above");
  mix("q5_k_m", {{"q5_k", 5.0 / 6.0}, {"q6_k", 1.0 / 6.0}}, "GGUF Q5_K_M file: mostly Q5_K, attn_v/ffn_down/output partly Q6_K");
  mix("q6_k_file", {{"q6_k", 1.0}}, "GGUF Q6_K file: Q6_K throughout");
  mix("q8_0_file", {{"q8_0", 1.0}}, "GGUF Q8_0 file: Q8_0 throughout");
  return t;
}

}  // namespace

const NumberFormat* format_of_ggml_type(uint32_t id) {
  for (const auto& f : all_formats())
    if (f.ggml_type == static_cast<int>(id)) return &f;
  return nullptr;
}

std::string NumberFormat::ggml_name() const {
  return ggml_type >= 0 ? formats::ggml_type_info(static_cast<uint32_t>(ggml_type))->name : name;
}

int64_t NumberFormat::block_bits() const {
  int64_t b = 0;
  for (const auto& f : layout) b += f.bits;
  return b;
}

double NumberFormat::bits_per_weight() const {
  if (!mix.empty()) {
    double bits = 0;
    for (const auto& p : mix) bits += p.fraction * find_format(p.format).bits_per_weight();
    return bits;
  }
  return static_cast<double>(block_bits()) / static_cast<double>(block_values);
}

double NumberFormat::bytes_for(int64_t rows, int64_t cols) const {
  if (!mix.empty()) return std::ceil(static_cast<double>(rows) * static_cast<double>(cols) * bits_per_weight() / 8.0);
  const int64_t blocks_per_row = (cols + block_values - 1) / block_values;
  return static_cast<double>(rows) * static_cast<double>(blocks_per_row) * static_cast<double>(block_bits()) / 8.0;
}

const std::vector<NumberFormat>& all_formats() {
  static const std::vector<NumberFormat> table = build_table();
  return table;
}

std::vector<std::string> format_names() {
  std::vector<std::string> out;
  for (const auto& f : all_formats()) out.push_back(f.name);
  return out;
}

const NumberFormat& find_format(std::string_view name) {
  const std::string key = ascii_lower(name);
  for (const auto& f : all_formats()) {
    if (f.name == key) return f;
    for (const auto& a : f.aliases)
      if (a == key) return f;
  }
  std::vector<std::string> names;
  for (const auto& f : all_formats()) {
    names.push_back(f.name);
    for (const auto& a : f.aliases) names.push_back(a);
  }
  throw InputError(unknown_id_message("number format", name, names));
}

}  // namespace rooftop
