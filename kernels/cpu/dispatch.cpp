// Chooses the kernel table once from CPUID: AVX-512 (F, BW, VL, VNNI) > AVX2 + FMA + F16C > scalar.
#include "kernels/cpu/dispatch.h"

#include <cpuid.h>

#include "base/errors.h"

namespace rooftop::kernels {
namespace {

uint64_t xgetbv0() {
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (uint64_t(hi) << 32) | lo;
}

struct Features {
  bool avx2 = false, avx512 = false;
};

Features detect() {
  Features f;
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return f;
  const bool osxsave = c & (1u << 27), fma = c & (1u << 12), f16c = c & (1u << 29), avx = c & (1u << 28);
  if (!osxsave || !avx) return f;
  const uint64_t xcr0 = xgetbv0();
  const bool ymm_state = (xcr0 & 0x6) == 0x6, zmm_state = (xcr0 & 0xE6) == 0xE6;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return f;
  const bool avx2 = b & (1u << 5), avx512f = b & (1u << 16), avx512bw = b & (1u << 30),
             avx512vl = b & (1u << 31), vnni = c & (1u << 11);
  f.avx2 = ymm_state && avx2 && fma && f16c;
  f.avx512 = f.avx2 && zmm_state && avx512f && avx512bw && avx512vl && vnni;
  return f;
}

const Features& features() {
  static const Features f = detect();
  return f;
}

}  // namespace

bool isa_supported(Isa isa) {
  switch (isa) {
    case Isa::scalar: return true;
    case Isa::avx2: return features().avx2;
    case Isa::avx512: return features().avx512;
  }
  return false;
}

const KernelTable& kernel_table(Isa isa) {
  if (!isa_supported(isa)) throw InternalError("kernel ISA not supported by this CPU; expected scalar, avx2 or avx512 per CPUID");
  static const KernelTable scalar = make_scalar_kernels();
  switch (isa) {
    case Isa::avx2: { static const KernelTable t = make_avx2_kernels(); return t; }
    case Isa::avx512: { static const KernelTable t = make_avx512_kernels(); return t; }
    default: return scalar;
  }
}

Isa active_isa() {
  static const Isa isa = isa_supported(Isa::avx512) ? Isa::avx512 : isa_supported(Isa::avx2) ? Isa::avx2 : Isa::scalar;
  return isa;
}

const KernelTable& active_kernels() {
  static const KernelTable& t = kernel_table(active_isa());
  return t;
}

void quantize_q8_for(const KernelTable& tab, bool feeds_q4_1, const float* x, int64_t k, Q8Activations& xq) {
  tab.quantize_q8(x, k, xq);
  if (feeds_q4_1 && tab.q4_1_reads_qt16) interleave_q8_blocks16(xq);  // k bytes: small next to the weight pass
}

}  // namespace rooftop::kernels
