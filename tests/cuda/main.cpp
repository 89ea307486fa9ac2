// Catch2 main for the GPU tests: with no CUDA device, print why and exit 77 (CTest: skipped, never passed).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>

#include "kernels/cuda/gpu.h"

int main(int argc, char* argv[]) {
  if (rooftop::gpu::device_count() == 0) {
    std::printf("skipped: no CUDA device (%s)\n", rooftop::gpu::no_device_reason().c_str());
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
