// Decode attention: grouped-query, fp32 and fp16 KV, lengths across the 64-position chunks, vs a two-pass reference.
#include <catch2/catch.hpp>

#include "analyzer/errors.h"
#include "kernels/cpu/half.h"
#include "kernels/cpu/thread_pool.h"
#include "tests/kernels/kernel_test_util.h"

using namespace rooftop::kernels;
using namespace rooftop::kernels::test;

TEST_CASE("attention_decode matches the reference (GQA, fp32 and fp16 KV)", "[kernels][attention]") {
  std::mt19937 rng(30);
  ThreadPool pool(2);
  struct Shape { int64_t h, hk, d; };
  for (const Shape s : {Shape{8, 2, 64}, Shape{4, 4, 32}, Shape{6, 1, 16}, Shape{3, 3, 36}}) {
    for (int64_t t : {1, 2, 37, 300}) {
      for (bool f16 : {false, true}) {
        const int64_t cap = t + 5;  // capacity beyond t must be ignored
        std::vector<float> kf = random_floats(rng, size_t(cap * s.hk * s.d), 2.0f);
        std::vector<float> vf = random_floats(rng, size_t(cap * s.hk * s.d));
        std::vector<uint16_t> kh(kf.size()), vh(vf.size());
        for (size_t i = 0; i < kf.size(); ++i) kh[i] = fp32_to_fp16(kf[i]), vh[i] = fp32_to_fp16(vf[i]);
        for (int64_t i = t * s.hk * s.d; i < cap * s.hk * s.d; ++i)  // poison the unused tail
          kf[size_t(i)] = vf[size_t(i)] = 1e30f, kh[size_t(i)] = vh[size_t(i)] = 0x7C00;
        KvView kv;
        kv.k = f16 ? static_cast<const void*>(kh.data()) : kf.data();
        kv.v = f16 ? static_cast<const void*>(vh.data()) : vf.data();
        kv.f16 = f16;
        kv.kv_heads = s.hk;
        kv.head_dim = s.d;
        const std::vector<float> q = random_floats(rng, size_t(s.h * s.d), 2.0f);
        std::vector<float> out(static_cast<size_t>(s.h * s.d)), ref(static_cast<size_t>(s.h * s.d));
        attention_decode_ref(q, s.h, kv, t, ref);
        attention_decode(q, s.h, kv, t, out, pool);
        for (size_t i = 0; i < out.size(); ++i) {
          INFO("h=" << s.h << " hk=" << s.hk << " d=" << s.d << " t=" << t << " f16=" << f16 << " i=" << i);
          REQUIRE(std::fabs(out[i] - ref[i]) <= 2e-5f + 2e-5f * std::fabs(ref[i]) * float(s.d));
        }
      }
    }
  }
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
  CHECK_THROWS_AS(attention_decode(q, 3, kv, 1, out, pool), rooftop::InputError);   // 3 % 2 != 0
  CHECK_THROWS_AS(attention_decode(std::span<const float>(q.data(), 16), 2, kv, 0, std::span<float>(out.data(), 16), pool),
                  rooftop::InputError);                                               // t = 0
  CHECK_THROWS_AS(attention_decode(q, 2, kv, 1, out, pool), rooftop::InputError);   // q has 24, expected 16
}
