// DRAM bytes per kernel from CUPTI's Range Profiler (see cupti_dram.h): auto range, kernel replay.
#include "kernels/cuda/cupti_dram.h"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <vector>

#if defined(ROOFTOP_HAVE_CUPTI)
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#endif

namespace rooftop::cuda {

#if !defined(ROOFTOP_HAVE_CUPTI)
DramBytes measure_dram_bytes(int, const std::function<void()>&) {
  return {std::nullopt, "CUPTI was not found when this rooftop was built"};
}
#else
namespace {

struct CuptiFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void cupti_check(CUptiResult r, const char* call) {
  if (r == CUPTI_SUCCESS) return;
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  std::string msg = std::string(call) + ": " + (text ? text : "unknown CUPTI error");
  if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
    msg += " (performance counters are restricted to admin users: NVreg_RestrictProfilingToAdminUsers=0)";
  throw CuptiFailure(msg);
}
#define CUPTI_CALL(call) cupti_check((call), #call)

// The current context through the runtime's driver entry point, so the binary does not link libcuda.
// A zeroed CUPTI parameter struct with its structSize set.
template <class T>
T params(size_t struct_size) {
  T p{};
  p.structSize = struct_size;
  return p;
}

CUcontext current_context() {
  using GetCtx = CUresult (*)(CUcontext*);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess || fn == nullptr)
    throw CuptiFailure("cuCtxGetCurrent not found through cudaGetDriverEntryPointByVersion");
  CUcontext ctx = nullptr;
  if (reinterpret_cast<GetCtx>(fn)(&ctx) != CUDA_SUCCESS || ctx == nullptr)
    throw CuptiFailure("no current CUDA context");
  return ctx;
}

}  // namespace

DramBytes measure_dram_bytes(int device, const std::function<void()>& launch) {
  const char* metrics[] = {"dram__bytes_read.sum", "dram__bytes_write.sum"};
  constexpr size_t kMetrics = 2;
  CUpti_RangeProfiler_Object* profiler = nullptr;
  CUpti_Profiler_Host_Object* host = nullptr;
  bool initialized = false;
  DramBytes result;
  try {
    if (cudaSetDevice(device) != cudaSuccess || cudaFree(nullptr) != cudaSuccess)  // make the context current
      throw CuptiFailure("cannot make a context current on device " + std::to_string(device));
    auto init = params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    CUPTI_CALL(cuptiProfilerInitialize(&init));
    initialized = true;

    auto chip = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
    chip.deviceIndex = size_t(device);
    CUPTI_CALL(cuptiDeviceGetChipName(&chip));

    auto enable = params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
    enable.ctx = current_context();
    CUPTI_CALL(cuptiRangeProfilerEnable(&enable));
    profiler = enable.pRangeProfilerObject;

    // Host side: a config image for the two metrics.
    auto hinit = params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    hinit.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hinit.pChipName = chip.pChipName;
    CUPTI_CALL(cuptiProfilerHostInitialize(&hinit));
    host = hinit.pHostObject;
    auto add = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    add.pHostObject = host;
    add.ppMetricNames = metrics;
    add.numMetrics = kMetrics;
    CUPTI_CALL(cuptiProfilerHostConfigAddMetrics(&add));
    auto csize = params<CUpti_Profiler_Host_GetConfigImageSize_Params>(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
    csize.pHostObject = host;
    CUPTI_CALL(cuptiProfilerHostGetConfigImageSize(&csize));
    std::vector<uint8_t> config(csize.configImageSize);
    auto cimg = params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
    cimg.pHostObject = host;
    cimg.configImageSize = config.size();
    cimg.pConfigImage = config.data();
    CUPTI_CALL(cuptiProfilerHostGetConfigImage(&cimg));

    // Target side: a counter data image for one range.
    auto dsize = params<CUpti_RangeProfiler_GetCounterDataSize_Params>(CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
    dsize.pRangeProfilerObject = profiler;
    dsize.pMetricNames = metrics;
    dsize.numMetrics = kMetrics;
    dsize.maxNumOfRanges = 1;
    dsize.maxNumRangeTreeNodes = 1;
    CUPTI_CALL(cuptiRangeProfilerGetCounterDataSize(&dsize));
    std::vector<uint8_t> counter_data(dsize.counterDataSize);
    auto dinit = params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    dinit.pRangeProfilerObject = profiler;
    dinit.counterDataSize = counter_data.size();
    dinit.pCounterData = counter_data.data();
    CUPTI_CALL(cuptiRangeProfilerCounterDataImageInitialize(&dinit));

    auto set = params<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
    set.pRangeProfilerObject = profiler;
    set.configSize = config.size();
    set.pConfig = config.data();
    set.counterDataImageSize = counter_data.size();
    set.pCounterDataImage = counter_data.data();
    set.range = CUPTI_AutoRange;          // one range per kernel launch
    set.replayMode = CUPTI_KernelReplay;  // CUPTI replays the kernel for each counter pass
    set.maxRangesPerPass = 1;
    set.numNestingLevels = 1;
    set.minNestingLevel = 1;
    set.passIndex = 0;
    set.targetNestingLevel = 1;
    CUPTI_CALL(cuptiRangeProfilerSetConfig(&set));

    auto start = params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
    start.pRangeProfilerObject = profiler;
    CUPTI_CALL(cuptiRangeProfilerStart(&start));
    launch();
    if (cudaDeviceSynchronize() != cudaSuccess) throw CuptiFailure("the profiled kernel failed");
    auto stop = params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
    stop.pRangeProfilerObject = profiler;
    CUPTI_CALL(cuptiRangeProfilerStop(&stop));
    auto decode = params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
    decode.pRangeProfilerObject = profiler;
    CUPTI_CALL(cuptiRangeProfilerDecodeData(&decode));

    auto info = params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
    info.pCounterDataImage = counter_data.data();
    info.counterDataImageSize = counter_data.size();
    CUPTI_CALL(cuptiRangeProfilerGetCounterDataInfo(&info));
    if (info.numTotalRanges < 1) throw CuptiFailure("CUPTI recorded no range (was a kernel launched?)");
    double values[kMetrics] = {0, 0};
    auto eval = params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
    eval.pHostObject = host;
    eval.pCounterDataImage = counter_data.data();
    eval.counterDataImageSize = counter_data.size();
    eval.rangeIndex = 0;  // the only range: an AutoRange per kernel and a launch() of one kernel
    eval.ppMetricNames = metrics;
    eval.numMetrics = kMetrics;
    eval.pMetricValues = values;
    CUPTI_CALL(cuptiProfilerHostEvaluateToGpuValues(&eval));
    result.bytes = values[0] + values[1];
    if (info.numTotalRanges > 1) result.note = "first of " + std::to_string(info.numTotalRanges) + " ranges";
  } catch (const std::exception& e) {
    result = {std::nullopt, std::string("CUPTI range profiler unavailable: ") + e.what()};
  }
  if (host) {
    auto p = params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
    p.pHostObject = host;
    cuptiProfilerHostDeinitialize(&p);
  }
  if (profiler) {
    auto p = params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
    p.pRangeProfilerObject = profiler;
    cuptiRangeProfilerDisable(&p);
  }
  if (initialized) {
    auto p = params<CUpti_Profiler_DeInitialize_Params>(CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE);
    cuptiProfilerDeInitialize(&p);
  }
  return result;
}
#endif

}  // namespace rooftop::cuda
