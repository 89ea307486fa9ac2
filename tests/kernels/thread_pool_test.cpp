// ThreadPool: chunks cover [0, n) exactly once, worker ids are in range, exceptions reach the caller.
#include <catch2/catch.hpp>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "kernels/cpu/thread_pool.h"

using namespace rooftop::kernels;

TEST_CASE("parallel_for covers every index exactly once", "[kernels][thread_pool]") {
  for (int threads : {1, 2, 3, 5}) {
    ThreadPool pool(threads);
    CHECK(pool.size() == threads);
    for (int64_t n : {0, 1, 2, 7, 100, 10007}) {
      for (int rep = 0; rep < 20; ++rep) {  // back-to-back jobs: the spin/sleep hand-over
        std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
        std::atomic<bool> bad_worker{false};
        pool.parallel_for(n, [&](int64_t b, int64_t e, int w) {
          if (w < 0 || w >= threads || b >= e) bad_worker = true;
          for (int64_t i = b; i < e; ++i) hits[size_t(i)]++;
        });
        REQUIRE(!bad_worker);
        for (auto& h : hits) REQUIRE(h.load() == 1);
      }
    }
  }
}

TEST_CASE("parallel_for with many chunks per thread covers every index once, in at most n chunks", "[kernels][thread_pool]") {
  for (int threads : {2, 3}) {
    ThreadPool pool(threads);
    for (int64_t n : {1, 22, 70000}) {  // 70,000 x threads chunks asked: capped at n and at the ticket's 16 bits
      for (int64_t per : {1, 16, 1 << 14}) {
        std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
        std::atomic<int64_t> calls{0};
        pool.parallel_for(
            n, [&](int64_t b, int64_t e, int) {
              calls++;
              for (int64_t i = b; i < e; ++i) hits[size_t(i)]++;
            },
            per);
        for (auto& h : hits) REQUIRE(h.load() == 1);
        CHECK(calls.load() <= std::min<int64_t>({n, threads * per, 0xFFFF}));
        if (n == 22 && per == (1 << 14)) CHECK(calls.load() == 22);  // one index per chunk: a GEMM's task at a time
      }
    }
  }
}

TEST_CASE("parallel_for rethrows a chunk's exception and stays usable", "[kernels][thread_pool]") {
  ThreadPool pool(3);
  CHECK_THROWS_AS(pool.parallel_for(100, [](int64_t b, int64_t, int) { if (b > 0) throw std::runtime_error("x"); }),
                  std::runtime_error);
  std::atomic<int64_t> sum{0};
  pool.parallel_for(100, [&](int64_t b, int64_t e, int) { for (int64_t i = b; i < e; ++i) sum += i; });
  CHECK(sum == 4950);
}

TEST_CASE("nested parallel_for runs inline without deadlock", "[kernels][thread_pool]") {
  ThreadPool pool(2);
  std::atomic<int64_t> count{0};
  pool.parallel_for(8, [&](int64_t b, int64_t e, int) {
    for (int64_t i = b; i < e; ++i) pool.parallel_for(10, [&](int64_t bb, int64_t ee, int) { count += ee - bb; });
  });
  CHECK(count == 80);
}
