// OpenBLAS through dlopen: see openblas.h for why it is not linked.
#include "measure/openblas.h"

#include <dlfcn.h>

#include <initializer_list>

namespace rooftop::measure {

namespace {
// The CBLAS standard's enum values (cblas.h): row-major storage, and whether an operand is transposed.
constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;
}  // namespace

void OpenBlas::sgemm_xwt(int threads, int n, int m, int k, const float* X, const float* W, float* Y) const {
  set_threads_(threads);
  sgemm_(kRowMajor, kNoTrans, kTrans, n, m, k, 1.0f, X, k, W, k, 0.0f, Y, m);
}

const OpenBlas* openblas() {
  static const OpenBlas* loaded = [] () -> const OpenBlas* {
    for (const char* name : {"libopenblas.so.0", "libopenblas.so"}) {
      void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (!h) continue;
      static OpenBlas lib;
      lib.sgemm_ = reinterpret_cast<OpenBlas::Sgemm>(dlsym(h, "cblas_sgemm"));
      lib.set_threads_ = reinterpret_cast<OpenBlas::SetThreads>(dlsym(h, "openblas_set_num_threads"));
      if (lib.sgemm_ && lib.set_threads_) return &lib;
      dlclose(h);
    }
    return nullptr;
  }();
  return loaded;
}

}  // namespace rooftop::measure
