// A runtime count as a compile-time one: register tiles and multi-token rows are templates on their row or token
// count, and the callers hold that count at run time.
#pragma once

namespace rooftop::kernels {

// f.template operator()<C>() for C = n clamped to [1, N]: with_count<4>(mr, [&]<int MR>() { tile<MR>(...); }).
template <int N, class F>
inline decltype(auto) with_count(int n, F&& f) {
  static_assert(N >= 1);
  if constexpr (N == 1) {
    return f.template operator()<1>();
  } else {
    if (n >= N) return f.template operator()<N>();
    return with_count<N - 1>(n, f);
  }
}

}  // namespace rooftop::kernels
