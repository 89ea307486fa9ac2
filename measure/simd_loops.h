// The inner loops of the ceiling measurements (STREAM kernels, read-only sum, FMA/dot chains), per ISA.
//
// Each ISA file (simd_scalar.cpp, simd_avx2.cpp, simd_avx512.cpp) is compiled with its own flags; the
// table is chosen at run time from CPUID (hwdb::host_isa_flags), so one binary runs on any x86-64.
#pragma once
#include <cstdint>
#include <string>

namespace rooftop::measure {

// n counts floats; arrays are 64-byte aligned and n is a multiple of 128.
struct MemLoops {
  const char* isa = "scalar";
  void (*copy)(const float* a, float* c, int64_t n) = nullptr;                     // c = a
  void (*scale)(const float* c, float* b, float s, int64_t n) = nullptr;           // b = s c
  void (*add)(const float* a, const float* b, float* c, int64_t n) = nullptr;      // c = a + b
  void (*triad)(const float* b, const float* c, float* a, float s, int64_t n) = nullptr;  // a = b + s c
  float (*read)(const float* a, int64_t n) = nullptr;                              // sum of a
};

MemLoops mem_loops_scalar();
MemLoops mem_loops_avx2();
MemLoops mem_loops_avx512();
// The widest table this CPU (and OS) supports, chosen once.
const MemLoops& mem_loops();

// Arithmetic peak loops: `iters` iterations of independent register-resident chains; the return
// value depends on every chain (so nothing is optimized away). Operations per iteration below.
float fma_fp32_avx2(int64_t iters);     // 12 chains x 8 lanes x 2 FLOPs = 192 per iteration
float fma_fp32_avx512(int64_t iters);   // 12 chains x 16 lanes x 2 FLOPs = 384 per iteration
float dot_bf16_avx512(int64_t iters);   // 12 chains x vdpbf16ps (32 bf16 pairs x 2) = 768 per iteration
float dot_int8_avx512(int64_t iters);   // 12 chains x vpdpbusd (64 u8*s8 pairs x 2) = 1536 per iteration
float dot_bf16_amx(int64_t iters);      // 4 tiles x TDPBF16PS (16 x 16 x 32 bf16 pairs x 2) = 65,536 per iteration
inline constexpr double kFmaAvx2OpsPerIter = 12 * 8 * 2;
inline constexpr double kFmaAvx512OpsPerIter = 12 * 16 * 2;
inline constexpr double kBf16OpsPerIter = 12 * 32 * 2;
inline constexpr double kInt8OpsPerIter = 12 * 64 * 2;
inline constexpr double kBf16AmxOpsPerIter = 4 * 16 * 16 * 32 * 2;

// CPUID facts the dispatch needs (hwdb::host_isa_flags, which checks what the OS enables).
bool cpu_has(const std::string& flag);

}  // namespace rooftop::measure
