// The record of one calibration run and its JSON (measure/calibration_schema.md), plus the atomic writer.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "base/clock.h"
#include "hwdb/host_cpu.h"
#include "measure/bandwidth.h"
#include "measure/kernel_bench.h"
#include "measure/levels.h"
#include "measure/overhead.h"
#include "measure/peak.h"

namespace rooftop::measure {

struct CalibrationRecord {
  std::string date;          // ISO 8601 UTC, "2026-11-29T13:00:00Z"
  bool quick = false;
  int threads = 1;           // "all threads" figures used this many
  hwdb::HostCpuInfo machine;
  std::string fingerprint;   // hwdb::machine_fingerprint(hwdb::detect_host_cpu())
  std::string isa_used;      // loop table of the bandwidth measurements ("avx512", "avx2", "scalar")
  double memory_bandwidth_bytes_per_s = 0;          // STREAM read-only, all threads, median
  double memory_bandwidth_1thread_bytes_per_s = 0;  // STREAM read-only, 1 thread, median
  StreamResult stream;          // all threads
  StreamResult stream_1thread;  // 1 thread
  std::vector<SweepPoint> sweep;
  std::vector<LevelBandwidth> levels;
  double cache_resident_bytes = 0;  // the sweep's largest working set read clearly faster than DRAM; 0: unknown
  std::vector<PeakResult> peaks;
  std::vector<KernelResult> kernels;
  // Per kernel format name ("q4_0"): the fewest tokens the kernels run its matmul as the GEMM (kernels::gemm_min_tokens),
  // as a step function of the row length k: {k from which it holds: tokens}, e.g. {32: 12, 1024: 21}.
  std::map<std::string, std::map<int64_t, int64_t>> gemm_min_tokens;
  OverheadResult overhead;
  std::vector<std::string> notes;  // what was skipped and why; figures whose spread is wide
  double duration_s = 0;
};

// JSON text (2-space indent) with the schema's keys; raw samples' statistics ride along.
std::string calibration_json(const CalibrationRecord& r);

// Files are written with rooftop::write_file_atomically (base/files.h).


}  // namespace rooftop::measure
