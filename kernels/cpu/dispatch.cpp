// Chooses the kernel table once from CPUID: AMX > AVX-512 + BF16 > AVX-512 (F, BW, VL, VNNI) > AVX2 + FMA + F16C > scalar.
#include "kernels/cpu/dispatch.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/errors.h"

namespace rooftop::kernels {
namespace {

uint64_t xgetbv0() {
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (uint64_t(hi) << 32) | lo;
}

struct Features {
  bool avx2 = false, avx512 = false, avx512_bf16 = false, amx = false;
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
  const bool amx_bf16 = d & (1u << 22), amx_tile = d & (1u << 24), tile_state = ((xcr0 >> 17) & 3) == 3;
  if (__get_cpuid_count(7, 1, &a, &b, &c, &d)) f.avx512_bf16 = f.avx512 && (a & (1u << 5));  // AVX512_BF16
  // Linux hands out the 8 KiB tile state only on request (ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA), once per process.
  constexpr long kReqXcompPerm = 0x1023, kXtileData = 18;
  f.amx = f.avx512_bf16 && amx_bf16 && amx_tile && tile_state && syscall(SYS_arch_prctl, kReqXcompPerm, kXtileData) == 0;
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
    case Isa::avx512_bf16: return features().avx512_bf16;
    case Isa::amx: return features().amx;
  }
  return false;
}

const KernelTable& kernel_table(Isa isa) {
  if (!isa_supported(isa)) throw InternalError("kernel ISA not supported by this CPU; expected scalar, avx2, avx512, avx512_bf16 or amx per CPUID");
  static const KernelTable scalar = make_scalar_kernels();
  switch (isa) {
    case Isa::avx2: { static const KernelTable t = make_avx2_kernels(); return t; }
    case Isa::avx512: { static const KernelTable t = make_avx512_kernels(); return t; }
    case Isa::avx512_bf16: { static const KernelTable t = make_avx512_bf16_kernels(); return t; }
    case Isa::amx: { static const KernelTable t = make_amx_kernels(); return t; }
    default: return scalar;
  }
}

// The best supported ISA, at most $ROOFTOP_ISA when it names one (scalar, avx2, avx512, avx512_bf16, amx): a cap for
// comparing kernels on one machine, e.g. ROOFTOP_ISA=avx512 keeps the prefill GEMM in fp32. An unknown name
// is ignored with a note on stderr (the kernels cannot report input errors).
Isa active_isa() {
  static const Isa isa = [] {
    Isa cap = Isa::amx;
    if (const char* e = std::getenv("ROOFTOP_ISA")) {
      const std::string v = e;
      if (v == "scalar") cap = Isa::scalar;
      else if (v == "avx2") cap = Isa::avx2;
      else if (v == "avx512") cap = Isa::avx512;
      else if (v == "avx512_bf16") cap = Isa::avx512_bf16;
      else if (v != "amx")
        std::fprintf(stderr, "rooftop: ROOFTOP_ISA=%s ignored; expected scalar, avx2, avx512, avx512_bf16 or amx\n", e);
    }
    for (Isa i : {Isa::amx, Isa::avx512_bf16, Isa::avx512, Isa::avx2})
      if (int(i) <= int(cap) && isa_supported(i)) return i;
    return Isa::scalar;
  }();
  return isa;
}

const KernelTable& active_kernels() {
  static const KernelTable& t = kernel_table(active_isa());
  return t;
}

void quantize_q8_for(const KernelTable& tab, bool feeds_q4, const float* x, int64_t k, Q8Activations& xq) {
  tab.quantize_q8(x, k, xq);
  if (feeds_q4 && tab.q4_reads_qt16) interleave_q8_blocks16(xq);  // k bytes: small next to the weight pass
}

}  // namespace rooftop::kernels
