// The suites' thread pools.
#include "suite_common.h"

namespace rooftop::bench {
kernels::ThreadPool& all_threads() {
  static kernels::ThreadPool pool(0);
  return pool;
}
kernels::ThreadPool& one_thread() {
  static kernels::ThreadPool pool(1);
  return pool;
}
}  // namespace rooftop::bench
