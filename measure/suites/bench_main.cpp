// rooftop_bench: Google Benchmark's main, with the machine (CPU, ISA, caches) added to the context.
#include <benchmark/benchmark.h>

#include <string>

#include "hwdb/calibration.h"
#include "hwdb/host_cpu.h"
#include "hwdb/hwdb.h"
#include "measure/simd_loops.h"

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  const auto info = rooftop::hwdb::host_cpu_info();
  std::string isa;
  for (const auto& f : info.isa) isa += (isa.empty() ? "" : ",") + f;
  benchmark::AddCustomContext("rooftop_cpu_model", info.model_name);
  benchmark::AddCustomContext("rooftop_fingerprint", rooftop::hwdb::machine_fingerprint(rooftop::hwdb::detect_host_cpu()));
  benchmark::AddCustomContext("rooftop_isa", isa);
  benchmark::AddCustomContext("rooftop_loop_isa", rooftop::measure::mem_loops().isa);
  benchmark::AddCustomContext("rooftop_l3_bytes", std::to_string(static_cast<long long>(info.l3_bytes)));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
