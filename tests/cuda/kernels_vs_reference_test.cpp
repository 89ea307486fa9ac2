// Each GPU kernel against a scalar double-precision reference on random inputs, outputs NaN-poisoned
// before the run and checked fully written. Tolerance: atol + rtol * sum|terms| (fp32 accumulation).
#include <catch2/catch.hpp>
#include <cuda_fp8.h>

#include <cmath>
#include <random>
#include <vector>

#include "base/suggest.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/device_buffer.h"
#include "kernels/cuda/fp8_e4m3.h"
#include "kernels/cuda/gemm_cublaslt.h"
#include "kernels/cuda/host_formats.h"

using namespace rooftop::cuda;

namespace {
// Independent scalar dequantization of one row (GGUF layouts written out by hand).
std::vector<double> dequant_row(GpuFormat f, const uint8_t* row, int64_t k) {
  std::vector<double> v(static_cast<size_t>(k));
  auto h16 = [](const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); };
  for (int64_t i = 0; i < k; ++i) {
    if (f == GpuFormat::bf16) {
      v[i] = bf16_bits_to_float(h16(row + 2 * i));
    } else if (f == GpuFormat::fp8_e4m3) {
      __nv_fp8_e4m3 q;
      q.__x = row[i];
      v[i] = float(q);  // cuda_fp8.h's own conversion, not ours
    } else if (f == GpuFormat::q8_0) {
      const uint8_t* b = row + (i / 32) * 34;
      v[i] = double(half_bits_to_float(h16(b))) * double(int8_t(b[2 + i % 32]));
    } else {
      const uint8_t* b = row + (i / 32) * 20;
      const int j = int(i % 32);
      const int q = j < 16 ? (b[4 + j] & 0xf) : (b[4 + j - 16] >> 4);
      v[i] = double(half_bits_to_float(h16(b))) * q + double(half_bits_to_float(h16(b + 2)));
    }
  }
  return v;
}

std::vector<float> random_floats(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}
}  // namespace

TEST_CASE("software fp8 e4m3 decode matches cuda_fp8.h for all 256 codes") {
  for (int b = 0; b < 256; ++b) {
    __nv_fp8_e4m3 q;
    q.__x = uint8_t(b);
    const float ref = float(q), got = fp8_e4m3_to_float_sw(uint8_t(b));
    if (std::isnan(ref)) REQUIRE(std::isnan(got));
    else REQUIRE(got == ref);
  }
}

TEST_CASE("copy and read kernels move every byte") {
  std::mt19937 rng(1);
  const int64_t bytes = (int64_t(1) << 20) + 48;  // not a multiple of grid * unroll * 16
  std::vector<uint32_t> h(static_cast<size_t>(bytes / 4));
  for (auto& w : h) w = rng();
  DeviceBuffer src(static_cast<size_t>(bytes)), dst(static_cast<size_t>(bytes)), partial(4 * 40);
  src.upload(h.data(), static_cast<size_t>(bytes));
  dst.poison(nullptr);
  copy_bytes(src.get(), dst.get(), bytes, 40, nullptr);
  REQUIRE(dst.download<uint32_t>(h.size()) == h);
  read_sum_u32(src.get(), bytes, partial.get<uint32_t>(), 40, nullptr);
  uint32_t want = 0, got = 0;
  for (uint32_t w : h) want += w;
  for (uint32_t w : partial.download<uint32_t>(40)) got += w;
  REQUIRE(got == want);
  REQUIRE(count_mismatched_words(src.get<uint32_t>(), dst.get<uint32_t>(), int64_t(h.size()), nullptr) == 0);
}

TEST_CASE("GEMV matches the scalar reference in every format") {
  struct Case { GpuFormat f; int64_t k; };
  // q8_0 k = 2304 is 72 blocks (one full 64-block pass and a tail); q4_1 k = 2560 is 80 blocks.
  for (Case cs : {Case{GpuFormat::bf16, 1000}, Case{GpuFormat::fp8_e4m3, 1008}, Case{GpuFormat::q8_0, 256},
                  Case{GpuFormat::q8_0, 2304}, Case{GpuFormat::q4_1, 384}, Case{GpuFormat::q4_1, 2560}}) {
    DYNAMIC_SECTION(gpu_format_name(cs.f) << " k=" << cs.k) {
      std::mt19937 rng(uint32_t(cs.k) * 7 + int(cs.f));
      const int64_t m = 37;  // not a multiple of the 8 rows per block
      const auto w = random_rows(cs.f, m, cs.k, rng);
      const auto x = random_floats(static_cast<size_t>(cs.k), rng);
      const float scale = cs.f == GpuFormat::fp8_e4m3 ? 0.37f : 1.0f;
      DeviceBuffer dw(w.size()), dx(4 * x.size()), dy(4 * static_cast<size_t>(m));
      dw.upload(w.data(), w.size());
      dx.upload(x.data(), 4 * x.size());
      dy.poison(nullptr);
      gemv(GpuWeights{cs.f, dw.get(), m, cs.k, scale}, dx.get<float>(), dy.get<float>(), nullptr);
      const auto y = dy.download<float>(static_cast<size_t>(m));
      const int64_t rb = gpu_row_bytes(cs.f, cs.k);
      for (int64_t r = 0; r < m; ++r) {
        const auto wr = dequant_row(cs.f, w.data() + r * rb, cs.k);
        double ref = 0, mag = 0;
        for (int64_t i = 0; i < cs.k; ++i) {
          ref += wr[i] * x[i];
          mag += std::abs(wr[i] * x[i]);
        }
        ref *= scale;
        mag *= scale;
        REQUIRE_FALSE(std::isnan(y[r]));
        REQUIRE(std::abs(y[r] - ref) <= 1e-6 + 2e-6 * mag);
      }
    }
  }
}

TEST_CASE("GEMV rejects shapes its 16-byte loads cannot serve") {
  DeviceBuffer dw(4096);
  REQUIRE_THROWS_AS(check_gemv_shape(GpuWeights{GpuFormat::q8_0, dw.get(), 4, 100}), rooftop::InputError);
  REQUIRE_THROWS_AS(check_gemv_shape(GpuWeights{GpuFormat::bf16, dw.get(), 0, 64}), rooftop::InputError);
}

TEST_CASE("decode attention matches the scalar reference (GQA, fp16 and bf16 KV, several splits)") {
  for (bool bf16 : {false, true})
    for (int64_t d : {64, 128})
      for (int splits : {1, 7}) {
        DYNAMIC_SECTION((bf16 ? "bf16" : "f16") << " d=" << d << " splits=" << splits) {
          std::mt19937 rng(uint32_t(d + splits + bf16));
          const int64_t h = 8, hk = 2, t = 1000, g = h / hk;
          const auto q = random_floats(static_cast<size_t>(h * d), rng);
          const auto kb = random_halves(t * hk * d, bf16, rng), vb = random_halves(t * hk * d, bf16, rng);
          DeviceBuffer dq(4 * q.size()), dk(kb.size()), dv(vb.size()), dout(4 * static_cast<size_t>(h * d)),
              ws(4 * static_cast<size_t>(attention_workspace_floats(h, d, splits)));
          dq.upload(q.data(), 4 * q.size());
          dk.upload(kb.data(), kb.size());
          dv.upload(vb.data(), vb.size());
          dout.poison(nullptr);
          attention_decode(dq.get<float>(), h, GpuKv{dk.get(), dv.get(), bf16, hk, d}, t, dout.get<float>(),
                           ws.get<float>(), splits, nullptr);
          const auto out = dout.download<float>(static_cast<size_t>(h * d));
          auto val = [&](const std::vector<uint8_t>& b, int64_t idx) {
            const uint16_t bits = uint16_t(b[2 * idx] | (b[2 * idx + 1] << 8));
            return double(bf16 ? bf16_bits_to_float(bits) : half_bits_to_float(bits));
          };
          for (int64_t hq = 0; hq < h; ++hq) {
            const int64_t kvh = hq / g;
            std::vector<double> s(static_cast<size_t>(t));
            double mx = -1e300;
            for (int64_t p = 0; p < t; ++p) {
              double dot = 0;
              for (int64_t i = 0; i < d; ++i) dot += q[hq * d + i] * val(kb, (p * hk + kvh) * d + i);
              s[p] = dot / std::sqrt(double(d));
              mx = std::max(mx, s[p]);
            }
            double sum = 0;
            for (double& e : s) sum += (e = std::exp(e - mx));
            for (int64_t i = 0; i < d; ++i) {
              double ref = 0;
              for (int64_t p = 0; p < t; ++p) ref += s[p] / sum * val(vb, (p * hk + kvh) * d + i);
              REQUIRE_FALSE(std::isnan(out[hq * d + i]));
              REQUIRE(std::abs(out[hq * d + i] - ref) <= 1e-4);  // outputs are ~0.03; __expf ~2 ulp
            }
          }
        }
      }
}

TEST_CASE("cuBLASLt bf16 GEMM matches the scalar reference") {
  std::mt19937 rng(5);
  const int64_t m = 64, n = 32, k = 128;
  const auto A = random_rows(GpuFormat::bf16, m, k, rng), B = random_rows(GpuFormat::bf16, n, k, rng);
  DeviceBuffer dA(A.size()), dB(B.size()), dD(2 * static_cast<size_t>(m * n));
  dA.upload(A.data(), A.size());
  dB.upload(B.data(), B.size());
  dD.poison(nullptr);
  LtGemm lt;
  lt.run(GemmFormat::bf16, m, n, k, dA.get(), dB.get(), dD.get(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto D = dD.download<uint16_t>(static_cast<size_t>(m * n));  // (n, m) row-major
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      double ref = 0, mag = 0;
      for (int64_t l = 0; l < k; ++l) {
        const double a = bf16_bits_to_float(uint16_t(A[2 * (i * k + l)] | (A[2 * (i * k + l) + 1] << 8)));
        const double b = bf16_bits_to_float(uint16_t(B[2 * (j * k + l)] | (B[2 * (j * k + l) + 1] << 8)));
        ref += a * b;
        mag += std::abs(a * b);
      }
      const float got = bf16_bits_to_float(D[j * m + i]);
      REQUIRE_FALSE(std::isnan(got));
      REQUIRE(std::abs(got - ref) <= 1e-3 + 1e-2 * mag);  // bf16 output rounding
    }
}
