// Number formats: bits per weight follow from block layouts (ggml-common.h, OCP MX, NVFP4).
#include <catch2/catch.hpp>

#include "base/suggest.h"
#include "formats/formats.h"
#include "formats/ggml_types.h"

using namespace rooftop;

TEST_CASE("block formats: bits per weight from their layouts") {
  // Issue 2: q4_1 = (32 x 4 + 16 + 16) / 32 = 5.0.
  CHECK(find_format("q4_1").bits_per_weight() == 5.0);
  CHECK(find_format("q4_0").bits_per_weight() == 4.5);    // (128 + 16) / 32
  CHECK(find_format("q8_0").bits_per_weight() == 8.5);    // (256 + 16) / 32: "twice the size" of 4-bit
  CHECK(find_format("q5_0").bits_per_weight() == 5.5);    // (128 + 32 + 16) / 32
  CHECK(find_format("q5_1").bits_per_weight() == 6.0);    // (128 + 32 + 16 + 16) / 32
  CHECK(find_format("q2_k").bits_per_weight() == 2.625);  // (128 + 512 + 16 + 16) / 256
  CHECK(find_format("q3_k").bits_per_weight() == 3.4375); // (256 + 512 + 96 + 16) / 256
  CHECK(find_format("q4_k").bits_per_weight() == 4.5);    // (16 + 16 + 96 + 1024) / 256 = 144 bytes
  CHECK(find_format("q5_k").bits_per_weight() == 5.5);    // 176 bytes / 256
  CHECK(find_format("q6_k").bits_per_weight() == 6.5625); // 210 bytes / 256
  // Seed 002: MXFP4 = 32 E2M1 values + one E8M0 scale; NVFP4 = 16 values + an FP8 scale.
  CHECK(find_format("mxfp4").bits_per_weight() == 4.25);
  CHECK(find_format("nvfp4").bits_per_weight() == 4.5);
  CHECK(find_format("int4_g128").bits_per_weight() == Approx((128 * 4 + 16 + 4) / 128.0));
}

TEST_CASE("plain formats and aliases") {
  CHECK(find_format("f32").name == "fp32");
  CHECK(find_format("FP16").name == "fp16");
  CHECK(find_format("fp32").bits_per_weight() == 32);
  CHECK(find_format("bf16").bits_per_weight() == 16);
  CHECK(find_format("fp8").bits_per_weight() == 8);
  CHECK(find_format("e5m2").name == "fp8_e5m2");
  // Seed 002: 7B at 4 bits is 3.50 GB at 0.5 bytes per parameter.
  CHECK(7e9 * find_format("int4").bytes_per_value() == 3.5e9);
  // Seed 002: a 70B model at FP8 needs about 70 GB.
  CHECK(70e9 * find_format("fp8").bytes_per_value() == 70e9);
}

TEST_CASE("GGUF file mixes average their parts") {
  // Seed 002: Q4_K_M averages about 4.5 bits per weight, 4-5 GB for a 7B model. The preset keeps
  // about 1/6 of the weights in Q6_K, so the true average is 4.84 (Llama-2-7B's file: 4.08 GB).
  const double q4km = find_format("q4_k_m").bits_per_weight();
  CHECK(q4km == Approx(4.5 * 5 / 6 + 6.5625 / 6));
  CHECK(q4km > 4.5);
  CHECK(q4km < 5.0);
  const double gb = 6.74e9 * q4km / 8 / 1e9;  // Llama-2-7B
  CHECK(gb > 4.0);
  CHECK(gb < 5.0);
  // Seed 002 rule of thumb: size_B x 0.6 = Q4 GB (7B -> 4.2 GB); the mix lands within 10%.
  CHECK(7e9 * q4km / 8 / 1e9 == Approx(7 * 0.6).epsilon(0.1));
  // Q3_K_M: llama.cpp's quantize prints "Q3_K_M : 3.07G @ LLaMA-v1-7B"; 3.07 GiB x 8 / 6.74e9 weights = 3.91 bits.
  CHECK(find_format("q3_k_m").bits_per_weight() == Approx(3.07 * 1073741824.0 * 8 / 6.74e9).epsilon(0.01));
  // Q8_0 is "near-lossless at twice the size" of a 4-bit file: 8.5 / 4.25 = 2.
  CHECK(find_format("q8_0").bits_per_weight() / find_format("mxfp4").bits_per_weight() == Approx(2.0));
}

TEST_CASE("exact bytes round blocks up per row") {
  // 3 rows of 40 values in q4_1: 2 blocks of 20 bytes per row = 120 bytes.
  CHECK(find_format("q4_1").bytes_for(3, 40) == 120);
  CHECK(find_format("fp32").bytes_for(7, 9) == 252);
}

TEST_CASE("unknown formats name the closest ones") {
  try {
    find_format("q4_2");
    FAIL("no exception");
  } catch (const InputError& e) {
    std::string msg = e.what();
    CHECK(msg.find("unknown number format 'q4_2'") != std::string::npos);
    CHECK(msg.find("q4_") != std::string::npos);
  }
}

TEST_CASE("formats GGUF stores are tied to their ggml types") {
  // ggml type ids (ggml.h's enum ggml_type): F32 0, F16 1, Q4_0 2, Q8_0 8, Q4_K 12, Q6_K 14, BF16 30, MXFP4 39.
  REQUIRE(format_of_ggml_type(0) != nullptr);
  CHECK(format_of_ggml_type(0)->name == "fp32");
  CHECK(format_of_ggml_type(1)->name == "fp16");
  CHECK(format_of_ggml_type(2)->name == "q4_0");
  CHECK(format_of_ggml_type(12)->name == "q4_k");
  CHECK(format_of_ggml_type(14)->name == "q6_k");
  CHECK(format_of_ggml_type(30)->name == "bf16");
  CHECK(format_of_ggml_type(39)->name == "mxfp4");
  CHECK(format_of_ggml_type(16) == nullptr);  // IQ2_XXS: no layout in the table
  CHECK(format_of_ggml_type(9999) == nullptr);
  CHECK(find_format("fp32").ggml_name() == "f32");
  CHECK(find_format("fp16").ggml_name() == "f16");
  CHECK(find_format("q5_1").ggml_name() == "q5_1");
  CHECK(find_format("fp8").ggml_name() == "fp8");  // no ggml type: its own name
  // Every tied format's layout is its ggml block, byte for byte: q4_k's 144 bytes per 256 values (ggml-common.h).
  int tied = 0;
  for (const auto& f : all_formats()) {
    if (f.ggml_type < 0) continue;
    ++tied;
    const auto t = formats::ggml_type_info(static_cast<uint32_t>(f.ggml_type));
    REQUIRE(t.has_value());
    INFO(f.name);
    CHECK(f.block_values == t->block_values);
    CHECK(f.block_bits() == 8 * t->block_bytes);
  }
  CHECK(tied == 14);  // f32, f16, bf16, q4_0, q4_1, q5_0, q5_1, q8_0, q2_k..q6_k, mxfp4
  CHECK(formats::ggml_type_info(12)->block_bytes == 144);
  CHECK(!formats::ggml_type_info(4).has_value());  // Q4_2, retired
}
