// Small-n GEMM paths: gemv_batch (q8 activations like gemv) and gemm at n <= 8 (fp32 activations) vs gemm_ref.
#include <catch2/catch.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "base/suggest.h"
#include "kernels/cpu/thread_pool.h"
#include "tests/kernels/kernel_test_util.h"

using namespace rooftop::kernels;
using namespace rooftop::kernels::test;

namespace {

void check(const WeightView& W, const std::vector<float>& X, int64_t n, const std::vector<float>& Y,
           const std::vector<float>& ref, bool q8_act, const char* what, double u = 0) {
  for (int64_t j = 0; j < W.m; ++j) {
    const std::vector<float> w = ref_row(W, j);
    const int64_t i = first_outside(
        n, [&](int64_t r) { return Y[size_t(r * W.m + j)]; }, [&](int64_t r) { return ref[size_t(r * W.m + j)]; },
        [&](int64_t r) { return product_tolerance(w, X.data() + r * W.k, W.k, q8_act, u); });
    INFO(what << " " << format_name(W.format) << " n=" << n << " m=" << W.m << " k=" << W.k << " i=" << i << " j=" << j);
    REQUIRE(i == -1);
  }
}

// `bytes` bytes that end exactly where an inaccessible page starts: a kernel reading past the end crashes.
struct GuardedBytes {
  std::byte* data = nullptr;
  void* map = nullptr;
  size_t map_bytes = 0;
  explicit GuardedBytes(size_t bytes) {
    const size_t page = size_t(sysconf(_SC_PAGESIZE)), body = (bytes + page - 1) / page * page;
    map_bytes = body + page;
    map = mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(map != MAP_FAILED);
    std::memset(map, 0xFF, body);  // fp16 0xFFFF is NaN: stray bytes read before the matrix would show too
    REQUIRE(mprotect(static_cast<char*>(map) + body, page, PROT_NONE) == 0);
    data = static_cast<std::byte*>(map) + body - bytes;
  }
  ~GuardedBytes() { munmap(map, map_bytes); }
  GuardedBytes(const GuardedBytes&) = delete;
  GuardedBytes& operator=(const GuardedBytes&) = delete;
};

}  // namespace

TEST_CASE("q4_0 / q4_1 rows with a partial 16-block group match the scalar integer reference, no over-read",
          "[kernels][gemm][gemv]") {
  // nb = k / 32 blocks: 1, 2, 15 (no whole group), 16, 17, 18, 28 (16 + 12, Qwen2.5-0.5B), 30 (16 + 14,
  // SmolLM2-360M), 33, 152 (9 x 16 + 8, Qwen2.5-0.5B's 4864)
  std::mt19937 rng(33);
  ThreadPool pool(2);
  for (WeightFormat f : {WeightFormat::q4_0, WeightFormat::q4_1})
  for (int64_t nb : {1, 2, 15, 16, 17, 18, 28, 30, 33, 152}) {
    const int64_t k = 32 * nb, m = 5;
    TestWeights src = make_weights(rng, f, m, k);
    GuardedBytes guarded(src.bytes.size());  // the last row's last byte is the last readable byte
    std::memcpy(guarded.data, src.bytes.data(), src.bytes.size());
    const WeightView W{f, guarded.data, m, k};
    for (int64_t n : {1, 2, 4, 7, 8}) {
      const std::vector<float> X = random_floats(rng, size_t(n * k), 2.0f);
      std::vector<Q8Activations> xq(static_cast<size_t>(n));
      std::vector<float> ref(static_cast<size_t>(n * m)), Y(static_cast<size_t>(n * m));
      for (int64_t i = 0; i < n; ++i) {
        quantize_activations_q8_ref(std::span<const float>(X.data() + i * k, size_t(k)), xq[size_t(i)]);
        gemv_q8_rows_ref(W, xq[size_t(i)], ref.data() + i * m, 0, m);  // scalar: exact int dots, float scales
      }
      // Allowed |Y - ref|: same integer dots and scales, only the float block sums reassociated:
      // (nb + 8) 4 2^-24 sum_p |w_p dx_b(p) qx_p| (as in gemv_test's integer-dot check).
      std::vector<double> tol(static_cast<size_t>(n * m));
      for (int64_t j = 0; j < m; ++j) {
        const std::vector<float> wr = ref_row(W, j);
        for (int64_t i = 0; i < n; ++i) {
          double sum_abs = 0;
          for (int64_t p = 0; p < k; ++p)
            sum_abs += std::fabs(double(wr[size_t(p)]) * xq[size_t(i)].d[size_t(p / 32)] * xq[size_t(i)].q[size_t(p)]);
          tol[size_t(i * m + j)] = double(nb + 8) * 4 * 0x1p-24 * sum_abs + 1e-6;
        }
      }
      const auto expect_ref = [&](const char* what, const char* isa, bool interleaved) {
        const int64_t e = first_outside(
            int64_t(Y.size()), [&](int64_t x) { return Y[size_t(x)]; }, [&](int64_t x) { return ref[size_t(x)]; },
            [&](int64_t x) { return tol[size_t(x)]; });
        INFO(what << " isa=" << isa << " interleaved=" << interleaved << " k=" << k << " n=" << n << " i=" << e / m
                  << " j=" << e % m);
        REQUIRE(e == -1);
      };
      for (bool interleaved : {false, true}) {
        std::vector<Q8Activations> xqi = xq;
        if (interleaved) {
          for (Q8Activations& a : xqi) interleave_q8_blocks16(a);
          REQUIRE(int64_t(xqi[0].qt16.size()) == (nb + 15) / 16 * 512);  // padded to whole groups
        }
        for (Isa isa : supported_isas()) {
          const KernelTable& t = kernel_table(isa);
          std::fill(Y.begin(), Y.end(), 12345.0f);
          t.gemm_small_rows(W, X.data(), n, xqi.data(), Y.data(), 0, m);
          expect_ref("gemm_small_rows", t.name, interleaved);
          for (int64_t i = 0; i < n; ++i) {  // the single-token path, one token at a time
            std::fill(Y.begin() + i * m, Y.begin() + (i + 1) * m, 12345.0f);
            t.gemv_rows(W, X.data() + i * k, xqi[size_t(i)], Y.data() + i * m, 0, m);
          }
          expect_ref("gemv_rows", t.name, interleaved);
        }
      }
      // public entry points (active table, its own quantization and interleaving): vs the float reference
      std::vector<float> fref(static_cast<size_t>(n * m));
      gemm_ref(W, X, n, fref);
      std::fill(Y.begin(), Y.end(), 12345.0f);
      gemv_batch(W, X, n, Y, pool);
      check(W, X, n, Y, fref, true, "gemv_batch");
      for (int64_t i = 0; i < n; ++i)
        gemv(W, std::span<const float>(X.data() + i * k, size_t(k)), std::span<float>(Y.data() + i * m, size_t(m)), pool);
      check(W, X, n, Y, fref, true, "gemv");
    }
  }
}

TEST_CASE("small-n gemm and gemv_batch match the reference for every format, ISA and n", "[kernels][gemm]") {
  std::mt19937 rng(30);
  ThreadPool pool(2);
  for (WeightFormat f : all_formats()) {
    const bool q8 = gemv_uses_q8_activations(f);
    for (int64_t n : {1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 21}) {  // 13-21: either side of the amx table's GEMM thresholds
      for (int64_t k0 : {32, 288, 1056}) {  // 9 blocks: one 8-block step + tail; 33 blocks: two 16-block groups + tail
        const int64_t k = round_k(f, k0), m = 19;
        TestWeights w = make_weights(rng, f, m, k);
        const std::vector<float> X = random_floats(rng, size_t(n * k), 2.0f);
        std::vector<float> ref(static_cast<size_t>(n * m)), Y(static_cast<size_t>(n * m));
        gemm_ref(w.view, X, n, ref);
        std::vector<Q8Activations> xq(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i)
          quantize_activations_q8_ref(std::span<const float>(X.data() + i * k, size_t(k)), xq[size_t(i)]);
        for (Isa isa : supported_isas()) {
          if (n > kSmallGemmMaxN) break;
          const KernelTable& t = kernel_table(isa);
          std::fill(Y.begin(), Y.end(), 12345.0f);
          t.gemm_small_rows(w.view, X.data(), n, xq.data(), Y.data(), 0, m);
          check(w.view, X, n, Y, ref, q8, t.name);
          std::vector<Q8Activations> xqt = xq;  // with the 16-block interleaved copy (AVX-512 q4_1 kernel)
          for (Q8Activations& a : xqt) interleave_q8_blocks16(a);
          std::fill(Y.begin(), Y.end(), 12345.0f);
          t.gemm_small_rows(w.view, X.data(), n, xqt.data(), Y.data(), 0, m);
          check(w.view, X, n, Y, ref, q8, t.name);
          std::fill(Y.begin(), Y.end(), 12345.0f);
          t.gemm_small_rows(w.view, X.data(), n, nullptr, Y.data(), 0, m);
          check(w.view, X, n, Y, ref, false, t.name);
        }
        std::fill(Y.begin(), Y.end(), 12345.0f);
        gemv_batch(w.view, X, n, Y, pool);
        check(w.view, X, n, Y, ref, q8, "gemv_batch");
        std::fill(Y.begin(), Y.end(), 12345.0f);
        gemm(w.view, X, n, Y, pool);
        // gemm: fp32 activations below min(the active table's GEMM threshold for the format, kSmallGemmMaxN + 1);
        // from it, the tiled GEMM (int8 activations for the formats its int8 GEMM takes, bf16 operands for the rest
        // on avx512_bf16 machines)
        const KernelTable& a = active_kernels();
        const bool tiled = n >= std::min(gemm_min_tokens(a, w.view.format, k), kSmallGemmMaxN + 1), tiled_q8 = tiled && a.gemm_uses_q8 && a.gemm_uses_q8(w.view.format);
        check(w.view, X, n, Y, ref, tiled_q8, "gemm", tiled && !tiled_q8 ? a.gemm_operand_rounding : 0.0);
      }
    }
  }
}

TEST_CASE("gemv_batch rows equal gemv per token up to float reassociation", "[kernels][gemm]") {
  std::mt19937 rng(31);
  ThreadPool pool(2);
  for (WeightFormat f : all_formats()) {
    const int64_t k = round_k(f, 512), m = 23, n = 4;
    TestWeights w = make_weights(rng, f, m, k);
    const std::vector<float> X = random_floats(rng, size_t(n * k));
    std::vector<float> Y(static_cast<size_t>(n * m)), y(static_cast<size_t>(m));
    gemv_batch(w.view, X, n, Y, pool);
    for (int64_t i = 0; i < n; ++i) {
      gemv(w.view, std::span<const float>(X.data() + i * k, size_t(k)), y, pool);
      for (int64_t j = 0; j < m; ++j) {
        // same quantized activations and integer dots; only the float summation order may differ
        const std::vector<float> wr = ref_row(w.view, j);
        double sum_abs = 0;
        for (int64_t p = 0; p < k; ++p) sum_abs += std::fabs(double(wr[size_t(p)]) * X[size_t(i * k + p)]);
        INFO(format_name(f) << " i=" << i << " j=" << j);
        REQUIRE(std::fabs(Y[size_t(i * m + j)] - y[size_t(j)]) <= 4.0 * double(k + 16) * 0x1p-24 * sum_abs * 1.01 + 1e-6);
      }
    }
  }
}

TEST_CASE("interleave_q8_blocks16 places block j's bytes 16h + 4s + e at row 2s + h, bytes 4j + e", "[kernels][gemm]") {
  Q8Activations xq;
  xq.resize(1056);  // 33 blocks: two whole groups, then block 32 alone in a zero-padded third group
  for (size_t i = 0; i < xq.q.size(); ++i) xq.q[i] = int8_t(int(i * 7 % 251) - 125);
  xq.qt16.assign(1536, int8_t(99));  // stale bytes: the padding must be rewritten as zeros
  interleave_q8_blocks16(xq);
  REQUIRE(xq.qt16.size() == 1536);
  // hand-picked: group 1, s = 2, h = 1, j = 5, e = 3 -> row 5, byte 23 of group 1 = q[(16 + 5) * 32 + 16 + 8 + 3]
  CHECK(xq.qt16[512 + 5 * 64 + 23] == xq.q[21 * 32 + 27]);
  for (int64_t g = 0; g < 2; ++g)
    for (int s = 0; s < 4; ++s)
      for (int h = 0; h < 2; ++h)
        for (int j = 0; j < 16; ++j)
          for (int e = 0; e < 4; ++e)
            REQUIRE(xq.qt16[size_t(g * 512 + (2 * s + h) * 64 + 4 * j + e)] ==
                    xq.q[size_t((16 * g + j) * 32 + 16 * h + 4 * s + e)]);
  // group 2: lane 0 is block 32 (hand-picked: row 3 = s 1, h 1, byte 2 -> q[32 * 32 + 16 + 4 + 2]), lanes 1..15 zero
  CHECK(xq.qt16[1024 + 3 * 64 + 2] == xq.q[32 * 32 + 22]);
  for (int row = 0; row < 8; ++row)
    for (int j = 0; j < 16; ++j)
      for (int e = 0; e < 4; ++e) {
        const int8_t want = j == 0 ? xq.q[size_t(32 * 32 + 16 * (row % 2) + 4 * (row / 2) + e)] : int8_t(0);
        REQUIRE(xq.qt16[size_t(1024 + row * 64 + 4 * j + e)] == want);
      }
}

TEST_CASE("gemv_batch rejects mismatched shapes", "[kernels][gemm]") {
  std::mt19937 rng(32);
  ThreadPool pool(2);
  TestWeights w = make_weights(rng, WeightFormat::q4_1, 4, 64);
  check_batch_shapes(gemv_batch, w, pool);
}
