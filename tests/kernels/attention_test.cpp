// Decode attention: grouped-query shapes (odd head counts, odd d), fp32 and fp16 KV, every supported ISA,
// 1 and 2 threads, lengths around the 16-key blocks and 64-key splits, vs the two-pass double reference.
#include <catch2/catch.hpp>

#include "base/suggest.h"
#include "kernels/cpu/attention_tile.h"
#include "kernels/cpu/thread_pool.h"
#include "tests/kernels/attention_test_util.h"

using namespace rooftop::kernels;
using namespace rooftop::kernels::test;

namespace {
struct Shape {
  int64_t h, hk, d;
};
// SmolLM2-135M (9/3/64), Qwen2.5-0.5B (14/2/64), 15/5 heads, Llama-3.1-8B (32/8/128), MQA with d = 16, MHA d = 36.
const Shape kShapes[] = {{9, 3, 64}, {14, 2, 64}, {15, 5, 64}, {32, 8, 128}, {6, 1, 16}, {3, 3, 36}};
}  // namespace

TEST_CASE("attention_decode matches the reference (GQA, fp32 and fp16 KV, every ISA)", "[kernels][attention]") {
  std::mt19937 rng(30);
  ThreadPool pool1(1), pool2(2);
  for (const Shape s : kShapes) {
    for (int64_t t : {1, 2, 63, 64, 65, 300, 1000}) {
      for (bool f16 : {false, true}) {
        const TestKv kv(rng, t + 5, t, s.hk, s.d, f16);  // capacity beyond t is poisoned
        const std::vector<float> q = random_floats(rng, size_t(s.h * s.d), 2.0f);
        std::vector<float> out(size_t(s.h * s.d)), ref(size_t(s.h * s.d));
        attention_decode_ref(q, s.h, kv.view, t, ref);
        const float tol = attention_tolerance(q.data(), s.h, kv.view, t);
        auto check = [&](const char* what) {
          const int64_t i = first_outside(
              int64_t(out.size()), [&](int64_t e) { return out[size_t(e)]; }, [&](int64_t e) { return ref[size_t(e)]; },
              [&](int64_t) { return tol; });
          INFO(what << " h=" << s.h << " hk=" << s.hk << " d=" << s.d << " t=" << t << " f16=" << f16 << " i=" << i
                    << " tol=" << tol);
          REQUIRE(i == -1);
        };
        for (ThreadPool* pool : {&pool1, &pool2}) {
          std::fill(out.begin(), out.end(), -7.0f);
          attention_decode(q, s.h, kv.view, t, out, *pool);
          check(pool->size() == 1 ? "active ISA, 1 thread" : "active ISA, 2 threads");
        }
        // Inside a parallel region (batched decode: one sequence per worker) it runs unsplit on the worker.
        std::fill(out.begin(), out.end(), -7.0f);
        bool nested = false;
        pool2.parallel_for(2, [&](int64_t b, int64_t e, int) {
          for (int64_t i = b; i < e; ++i)
            if (i == 0) {
              nested = ThreadPool::in_parallel_region();
              attention_decode(q, s.h, kv.view, t, out, pool2);
            }
        });
        CHECK(nested);
        check("active ISA, inside a parallel region");
        for (Isa isa : supported_isas()) {
          std::fill(out.begin(), out.end(), -7.0f);
          attn::decode_with(attn::attention_kernels(isa), q, s.h, kv.view, t, out, pool2);
          check(kernel_table(isa).name);
        }
      }
    }
  }
}

TEST_CASE("attention_decode does not depend on the thread count", "[kernels][attention]") {
  // The key ranges depend only on (t, hk), so 1 and 2 threads sum in the same order: bit-identical.
  std::mt19937 rng(31);
  ThreadPool pool1(1), pool2(2);
  const TestKv kv(rng, 700, 700, 3, 64, false);
  const std::vector<float> q = random_floats(rng, 9 * 64, 2.0f);
  std::vector<float> a(9 * 64), b(9 * 64);
  attention_decode(q, 9, kv.view, 700, a, pool1);
  attention_decode(q, 9, kv.view, 700, b, pool2);
  CHECK(a == b);
}

TEST_CASE("attention with one position returns that position's V, per KV group", "[kernels][attention]") {
  // softmax over a single score is 1, so out[head] = V[0][head / (h / hk)] exactly.
  ThreadPool pool(2);
  const int64_t h = 4, hk = 2, d = 8;
  std::vector<float> k(hk * d, 0.3f), v(hk * d), q(h * d, 1.0f), out(h * d);
  for (int64_t i = 0; i < hk * d; ++i) v[size_t(i)] = float(i + 1);
  KvView kv{k.data(), v.data(), false, hk, d};
  attention_decode(q, h, kv, 1, out, pool);
  for (int64_t head = 0; head < h; ++head)
    for (int64_t i = 0; i < d; ++i) CHECK(out[size_t(head * d + i)] == v[size_t((head / 2) * d + i)]);
}

TEST_CASE("attention rejects bad shapes", "[kernels][attention]") {
  ThreadPool pool(1);
  std::vector<float> k(64), v(64), q(24), out(24);
  KvView kv{k.data(), v.data(), false, 2, 8};
  CHECK_THROWS_AS(attention_decode(q, 3, kv, 1, out, pool), rooftop::InternalError);   // 3 % 2 != 0
  CHECK_THROWS_AS(attention_decode(std::span<const float>(q.data(), 16), 2, kv, 0, std::span<float>(out.data(), 16), pool),
                  rooftop::InternalError);                                               // t = 0
  CHECK_THROWS_AS(attention_decode(q, 2, kv, 1, out, pool), rooftop::InternalError);   // q has 24, expected 16
}
