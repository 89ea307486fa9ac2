// Picks the STREAM/read loop table once from the CPU's ISA flags.
#include <algorithm>

#include "hwdb/host_cpu.h"
#include "measure/simd_loops.h"

namespace rooftop::measure {

bool cpu_has(const std::string& flag) {
  static const std::vector<std::string> flags = hwdb::host_isa_flags();
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

const MemLoops& mem_loops() {
  static const MemLoops loops = cpu_has("avx512f") && cpu_has("avx512bw") && cpu_has("avx512vl") ? mem_loops_avx512()
                                : cpu_has("avx2") && cpu_has("fma")                                  ? mem_loops_avx2()
                                                                                                     : mem_loops_scalar();
  return loops;
}

}  // namespace rooftop::measure
