// detect_host_cpu: the machine's CPU as a ChipSpec, from /proc/cpuinfo, /proc/meminfo, sysfs and CPUID.
#include "hwdb/host_cpu.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "hwdb/hwdb.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define ROOFTOP_X86 1
#endif

namespace rooftop::hwdb {
namespace {

std::string trim(std::string s) {
  auto b = s.find_first_not_of(" \t");
  auto e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::string read_first_line(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  return trim(line);
}

// sysfs cache size text ("32K", "1024K", "32M") -> bytes; 0 when unreadable.
double cache_size_bytes(const std::string& text) {
  if (text.empty()) return 0;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end && (*end == 'K' || *end == 'k')) v *= 1024;
  else if (end && *end == 'M') v *= 1024 * 1024;
  return v > 0 ? v : 0;
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

#ifdef ROOFTOP_X86
std::vector<std::string> cpuid_isa() {
  std::vector<std::string> out;
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return out;
  const bool sse42 = c & (1u << 20), osxsave = c & (1u << 27), avx = c & (1u << 28), fma = c & (1u << 12),
             f16c = c & (1u << 29);
  unsigned long long xcr0 = 0;
  if (osxsave) {
    unsigned lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    xcr0 = (static_cast<unsigned long long>(hi) << 32) | lo;
  }
  const bool os_ymm = (xcr0 & 0x6) == 0x6;          // SSE + AVX state saved by the OS
  const bool os_zmm = (xcr0 & 0xe6) == 0xe6;        // + opmask and ZMM state
  const bool os_amx = (xcr0 & 0x60000) == 0x60000;  // TILECFG + TILEDATA
  if (sse42) out.push_back("sse4_2");
  if (avx && os_ymm) out.push_back("avx");
  if (fma && os_ymm) out.push_back("fma");
  if (f16c && os_ymm) out.push_back("f16c");
  unsigned a7 = 0, b7 = 0, c7 = 0, d7 = 0;
  if (__get_cpuid_count(7, 0, &a7, &b7, &c7, &d7)) {
    if ((b7 & (1u << 5)) && os_ymm) out.push_back("avx2");
    if (os_zmm) {
      if (b7 & (1u << 16)) out.push_back("avx512f");
      if (b7 & (1u << 30)) out.push_back("avx512bw");
      if (b7 & (1u << 31)) out.push_back("avx512vl");
      if (c7 & (1u << 11)) out.push_back("avx512_vnni");
      if (d7 & (1u << 23)) out.push_back("avx512_fp16");
    }
    if (os_amx) {
      if (d7 & (1u << 22)) out.push_back("amx_bf16");
      if (d7 & (1u << 25)) out.push_back("amx_int8");
    }
    unsigned a71 = 0, b71 = 0, c71 = 0, d71 = 0;
    if (a7 >= 1 && __get_cpuid_count(7, 1, &a71, &b71, &c71, &d71)) {
      if ((a71 & (1u << 4)) && os_ymm) out.push_back("avx_vnni");
      if ((a71 & (1u << 5)) && os_zmm) out.push_back("avx512_bf16");
    }
  }
  return out;
}

void cpuid_identity(HostCpuInfo& info) {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return;
  char v[13] = {};
  std::copy_n(reinterpret_cast<const char*>(&b), 4, v);
  std::copy_n(reinterpret_cast<const char*>(&d), 4, v + 4);
  std::copy_n(reinterpret_cast<const char*>(&c), 4, v + 8);
  info.vendor = v;
  if (__get_cpuid(1, &a, &b, &c, &d)) {
    int base = (a >> 8) & 0xf, ext = (a >> 20) & 0xff;
    info.family = base == 0xf ? base + ext : base;
  }
  if (info.model_name.empty()) {
    char brand[49] = {};
    for (unsigned i = 0; i < 3; ++i) {
      unsigned r[4] = {};
      if (!__get_cpuid(0x80000002 + i, &r[0], &r[1], &r[2], &r[3])) return;
      std::copy_n(reinterpret_cast<const char*>(r), 16, brand + 16 * i);
    }
    info.model_name = trim(brand);
  }
}
#endif

}  // namespace

std::vector<std::string> host_isa_flags() {
#ifdef ROOFTOP_X86
  return cpuid_isa();
#else
  // Elsewhere (e.g. aarch64) the kernel's flag list is the best source.
  std::vector<std::string> out;
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("Features", 0) != 0 && line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    std::string w;
    while (words >> w)
      if (w == "asimd" || w == "sve" || w == "sve2" || w == "asimdhp" || w == "bf16" || w == "i8mm" || w == "asimddp")
        out.push_back(w);
    break;
  }
  return out;
#endif
}

HostCpuInfo host_cpu_info() {
  HostCpuInfo info;
  std::set<std::pair<std::string, std::string>> cores;  // (physical id, core id)
  std::string physical_id;
  double cpuinfo_mhz = 0;
  {
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line)) {
      auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
      if (key == "model name" && info.model_name.empty()) info.model_name = value;
      else if (key == "physical id") physical_id = value;
      else if (key == "core id") cores.insert({physical_id, value});
      else if (key == "cpu MHz" && cpuinfo_mhz == 0) cpuinfo_mhz = std::atof(value.c_str());
    }
  }
#ifdef ROOFTOP_X86
  cpuid_identity(info);
#endif
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  info.logical_cpus = online > 0 ? online : 1;
  info.physical_cores = cores.empty() ? info.logical_cpus
                                      : std::min<int64_t>(static_cast<int64_t>(cores.size()), info.logical_cpus);

  double max_khz = std::atof(read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq").c_str());
  if (max_khz > 0) {
    info.clock_hz = max_khz * 1e3;
    info.clock_source = "cpufreq max";
  } else if (cpuinfo_mhz > 0) {
    info.clock_hz = cpuinfo_mhz * 1e6;
    info.clock_source = "cpuinfo MHz";
  } else {
    info.clock_hz = 2.0e9;
    info.clock_source = "assumed";
  }

  for (int i = 0; i < 8; ++i) {
    std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::string level = read_first_line(dir + "level"), type = read_first_line(dir + "type");
    if (level.empty()) continue;
    double bytes = cache_size_bytes(read_first_line(dir + "size"));
    if (level == "1" && type == "Data") info.l1d_bytes = bytes;
    else if (level == "2") info.l2_bytes = bytes;
    else if (level == "3") info.l3_bytes = bytes;
  }
  {
    std::ifstream f("/proc/meminfo");
    std::string key;
    double kb = 0;
    while (f >> key >> kb) {
      if (key == "MemTotal:") {
        info.memory_bytes = kb * 1024;
        break;
      }
      f.ignore(1 << 10, '\n');
    }
  }
  if (info.memory_bytes <= 0) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page > 0) info.memory_bytes = static_cast<double>(pages) * page;
  }
  info.isa = host_isa_flags();
  return info;
}

ChipSpec host_cpu_chip(const HostCpuInfo& info) {
  ChipSpec c;
  c.id = "cpu";
  c.kind = "cpu";
#if defined(__x86_64__) || defined(__i386__)
  c.architecture = "x86";
#else
  c.architecture = "arm";
#endif
  c.name = info.model_name.empty() ? "host CPU" : info.model_name;
  c.vendor = info.vendor;
  const double cores = static_cast<double>(std::max<int64_t>(info.physical_cores, 1));
  const double clock_hz = info.clock_hz > 0 ? info.clock_hz : 2.0e9;
  const auto& isa = info.isa;

  // SIMD width in fp32 lanes and how many full-width FMA pipes a core has. AMD family 0x19 (Zen 4)
  // runs 512-bit operations as two 256-bit halves: one full-width 512-bit FMA per clock.
  const bool avx512 = has(isa, "avx512f"), avx2 = has(isa, "avx2") || has(isa, "avx");
  const bool zen4 = info.vendor == "AuthenticAMD" && info.family == 0x19;
  auto fma_units = [&](double lanes) { return (lanes >= 16 && zen4) ? 1.0 : 2.0; };
  double lanes = avx512 ? 16 : avx2 ? 8 : 4;
  double flops_per_lane = (has(isa, "fma") || !avx2) ? 2.0 * fma_units(lanes) : 2.0;  // FMA = 2 FLOPs
  c.peak_flops["fp32"] = cores * lanes * flops_per_lane * clock_hz;
  // vdpbf16ps: 2 bf16 products summed into each fp32 lane, so twice the fp32 rate.
  if (has(isa, "avx512_bf16")) c.peak_flops["bf16"] = 2 * c.peak_flops["fp32"];
  // vpdpbusd: 4 int8 multiply-adds (8 ops) per 32-bit lane per instruction.
  double vnni_lanes = has(isa, "avx512_vnni") ? 16 : has(isa, "avx_vnni") ? 8 : 0;
  if (vnni_lanes > 0) c.peak_flops["int8"] = cores * vnni_lanes * 8 * fma_units(vnni_lanes) * clock_hz;
  // AMX's tile unit (one per core): 1,024 bf16 FLOPs and 2,048 int8 ops per clock (Intel, "Accelerate Artificial
  // Intelligence Workloads with Intel Advanced Matrix Extensions", 4th Gen Xeon Scalable: "2048 INT8 operations per
  // cycle" and "1024 BF16 operations per cycle"; a TDPBF16PS of 16 x 16 x 32 pairs every 16 cycles).
  if (has(isa, "amx_bf16")) c.peak_flops["bf16"] = cores * 1024 * clock_hz;
  if (has(isa, "amx_int8")) c.peak_flops["int8"] = cores * 2048 * clock_hz;

  c.memory_bytes = info.memory_bytes > 0 ? info.memory_bytes : 1e9;
  c.memory_bandwidth_bytes_per_s = std::min(20e9 * cores, 100e9);
  if (info.l2_bytes > 0) c.l2_bytes = info.l2_bytes * cores;
  c.compute_units = static_cast<int64_t>(cores);

  c.provenance["memory_bytes"] = info.memory_bytes > 0 ? "detected (/proc/meminfo)" : "assumed";
  c.provenance["memory_bandwidth_bytes_per_s"] = "assumed";
  c.provenance["compute_units"] = "derived";
  if (c.l2_bytes) c.provenance["l2_bytes"] = "derived";
  for (const auto& [fmt, v] : c.peak_flops) c.provenance["peak_flops." + fmt] = info.clock_source == "assumed" ? "assumed" : "derived";
  c.provenance["peak_flops"] = c.provenance["peak_flops.fp32"];

  std::string flags;
  for (const auto& f : isa) flags += (flags.empty() ? "" : " ") + f;
  std::ostringstream clock;
  clock << clock_hz / 1e9;
  c.notes.push_back("ISA: " + (flags.empty() ? std::string("none detected") : flags));
  c.notes.push_back(std::to_string(info.physical_cores) + " cores, " + std::to_string(info.logical_cpus) +
                    " threads, clock " + clock.str() + " GHz (" + info.clock_source + ")");
  c.notes.push_back("memory_bandwidth_bytes_per_s is assumed (20 GB/s per core, capped at 100 GB/s): channels and "
                    "DIMM speed are unknowable from here, in a VM least of all; run `rooftop calibrate` to measure it");
  c.notes.push_back("peak_flops are derived: cores x fp32 lanes x FMA pipes x 2 FLOPs x clock" +
                    std::string(zen4 && avx512 ? " (Zen 4: 512-bit ops double-pumped, 1 full-width FMA pipe)" : ""));
  if (info.l1d_bytes > 0 || info.l3_bytes > 0)
    c.notes.push_back("caches (cpu0): L1d " + std::to_string(static_cast<int64_t>(info.l1d_bytes / 1024)) +
                      " KiB, L2 " + std::to_string(static_cast<int64_t>(info.l2_bytes / 1024)) + " KiB per core, L3 " +
                      std::to_string(static_cast<int64_t>(info.l3_bytes / 1024)) + " KiB");
  if (has(isa, "amx_bf16")) c.notes.push_back("AMX tiles present: their bf16/int8 rates are not modelled here");
  c.sources.push_back("/proc/cpuinfo, /proc/meminfo, /sys/devices/system/cpu, CPUID");
  return c;
}

ChipSpec detect_host_cpu() { return host_cpu_chip(host_cpu_info()); }

}  // namespace rooftop::hwdb
