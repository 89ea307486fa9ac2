// Reading cuda<N>.json into a chip ("cuda:0"): card matching by name, measured overlay, rejected files.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "base/suggest.h"
#include "hwdb/gpu_calibration.h"
#include "hwdb/hwdb.h"
#include "kernels/cuda/gpu.h"

using namespace rooftop;

namespace {
// A synthetic calibration, as `rooftop calibrate --device cuda:N` writes it (through gpu::to_json).
struct Synthetic {
  double read_bw, copy_bw, bf16, fp8, gemv_q4_1, attention_f16;
  std::string json;
};
Synthetic synthetic(const std::string& device_name, int device, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.8, 0.95);
  Synthetic s{4.8e12 * u(rng), 4.8e12 * u(rng), 989.4e12 * u(rng), 1978.9e12 * u(rng), 4.8e12 * u(rng) * 0.9,
              4.8e12 * u(rng) * 0.8, ""};
  gpu::GpuCalibration c;
  c.date = "2026-11-29T13:00:00Z";
  c.quick = true;
  c.machine = {device_name, device, 132, 150011707392, "9.0", device_name + "|132|150"};
  c.memory_bandwidth_bytes_per_s = s.read_bw;
  c.copy_bytes_per_s = s.copy_bw;
  c.peak_flops = {{"bf16", s.bf16}, {"fp8", s.fp8}};
  auto kernel = [](std::string name, std::string op, std::string fmt, double bytes, double flops) {
    gpu::GpuKernelResult k;
    k.name = std::move(name);
    k.op = std::move(op);
    k.format = std::move(fmt);
    k.bytes_per_s = bytes;
    k.flops_per_s = flops;
    k.fraction_of_ceiling = 0.9;
    return k;
  };
  c.kernels = {kernel("gemv_q4_1", "gemv", "q4_1", s.gemv_q4_1, 1e12),
               kernel("gemv_fp8_e4m3", "gemv", "fp8_e4m3", s.gemv_q4_1 * 0.99, 2e12),
               kernel("attention_f16", "attention", "f16", s.attention_f16, 1e11),
               kernel("gemm_bf16_cublaslt", "gemm", "bf16", 1e11, s.bf16)};
  c.joules_per_token = 0.25;
  c.power_watts_during_decode = 610;
  s.json = gpu::to_json(c);
  return s;
}

// A fresh cache folder for one test (ROOFTOP_CACHE_DIR), removed at the end.
struct TempCache {
  std::filesystem::path dir;
  TempCache() {
    dir = std::filesystem::temp_directory_path() / ("rooftop-gpu-cal-" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(dir / "calibration");
    setenv("ROOFTOP_CACHE_DIR", dir.c_str(), 1);
  }
  ~TempCache() {
    unsetenv("ROOFTOP_CACHE_DIR");
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  void write(int device, const std::string& text) const {
    std::ofstream(dir / "calibration" / ("cuda" + std::to_string(device) + ".json")) << text;
  }
};
}  // namespace

TEST_CASE("device ids: cuda:N and cudaN") {
  CHECK(hwdb::gpu_device_id("cuda:0") == 0);
  CHECK(hwdb::gpu_device_id("cuda3") == 3);
  CHECK(hwdb::gpu_device_id("cuda:12") == 12);
  CHECK_FALSE(hwdb::gpu_device_id("cuda:"));
  CHECK_FALSE(hwdb::gpu_device_id("cuda:-1"));
  CHECK_FALSE(hwdb::gpu_device_id("cuda:x"));
  CHECK_FALSE(hwdb::gpu_device_id("h200"));
  CHECK_FALSE(hwdb::gpu_device_id("cpu"));
}

TEST_CASE("CUDA device names match database cards") {
  const hwdb::Database db = hwdb::load();
  CHECK(hwdb::match_gpu_card("NVIDIA H200", db) == "h200");
  CHECK(hwdb::match_gpu_card("NVIDIA H100 80GB HBM3", db) == "h100-sxm");
  CHECK(hwdb::match_gpu_card("NVIDIA A100-SXM4-80GB", db) == "a100-80g");
  CHECK(hwdb::match_gpu_card("NVIDIA GeForce RTX 4090", db) == "rtx-4090");
  CHECK(hwdb::match_gpu_card("NVIDIA L40S", db) == "l40s");
  CHECK(hwdb::match_gpu_card("Tesla T4", db).empty());
  CHECK(hwdb::match_gpu_card("NVIDIA H100 PCIe", db) == "h100-pcie");  // its own card, not the SXM one
  CHECK(hwdb::match_gpu_card("NVIDIA A100-SXM4-40GB", db) == "a100-40g");
  CHECK(hwdb::match_gpu_card("NVIDIA L4", db).empty());  // too short to search by name: "L4" is in "L40S"
  CHECK(hwdb::match_gpu_card("NVIDIA GeForce RTX 3090", db) == "rtx-3090");
}

TEST_CASE("a GPU calibration overlays measured figures on the matched card") {
  std::mt19937 rng(42);
  const Synthetic s = synthetic("NVIDIA H200", 0, rng);
  const hwdb::Database db = hwdb::load();
  std::string why = "stale";
  auto c = hwdb::apply_gpu_calibration(s.json, 0, db, &why);
  REQUIRE(c);
  CHECK(why.empty());
  ChipSpec card = *db.find("h200");
  CHECK(c->id == "cuda:0");
  CHECK(c->name == card.name);
  CHECK(c->memory_bytes == card.memory_bytes);             // capacity stays the datasheet figure
  CHECK(c->tdp_watts == card.tdp_watts);
  CHECK(c->memory_bandwidth_bytes_per_s == Approx(s.read_bw));
  CHECK(c->provenance.at("memory_bandwidth_bytes_per_s") == "measured 2026-11-29");
  CHECK(c->peak_flops.at("bf16") == Approx(s.bf16));
  CHECK(c->peak_flops.at("fp8") == Approx(s.fp8));
  CHECK(c->provenance.at("peak_flops.fp8") == "measured 2026-11-29");
  CHECK(c->peak_flops.at("fp32") == card.peak_flops.at("fp32"));  // not measured: datasheet, unchanged
  CHECK(c->provenance["peak_flops.fp32"] == card.provenance.at("peak_flops.fp32"));
  CHECK(c->compute_units == 132);
  // Kernel rates under the keys analyzer/speed.cpp reads.
  CHECK(c->measured.get("gemv_q4_1_bytes_per_s").value_or(-1) == Approx(s.gemv_q4_1));
  CHECK(c->measured.get("gemv_fp8_bytes_per_s").value_or(-1) == Approx(s.gemv_q4_1 * 0.99));
  CHECK(c->measured.get("attention_f16_bytes_per_s").value_or(-1) == Approx(s.attention_f16));
  CHECK(c->measured.get("gemm_bf16_flops_per_s").value_or(-1) == Approx(s.bf16));
  CHECK(!c->measured.get("gemm_bf16_bytes_per_s"));  // a GEMM's bytes/s is no ceiling
  CHECK(!c->measured.get("gemv_q4_1_flops_per_s"));
  CHECK(c->measured.get("stream_copy_bytes_per_s").value_or(-1) == Approx(s.copy_bw));
  CHECK(c->measured.get("joules_per_token").value_or(-1) == Approx(0.25));
  CHECK(c->provenance.at("gemv_q4_1_bytes_per_s") == "measured 2026-11-29");
  // An H100 SXM file lands on that card.
  auto h100 = hwdb::apply_gpu_calibration(synthetic("NVIDIA H100 80GB HBM3", 1, rng).json, 1, db, &why);
  REQUIRE(h100);
  CHECK(h100->id == "cuda:1");
  CHECK(h100->name == db.find("h100-sxm")->name);
}

TEST_CASE("unmatched names, damaged files, other devices and schemas are rejected with a reason") {
  std::mt19937 rng(3);
  const hwdb::Database db = hwdb::load();
  std::string why;
  CHECK_FALSE(hwdb::apply_gpu_calibration(synthetic("Tesla T4", 0, rng).json, 0, db, &why));
  CHECK_THAT(why, Catch::Contains("'Tesla T4'") && Catch::Contains("matches no chip card"));
  const std::string good = synthetic("NVIDIA H200", 0, rng).json;
  CHECK_FALSE(hwdb::apply_gpu_calibration(good.substr(0, good.size() / 2), 0, db, &why));
  CHECK_THAT(why, Catch::Contains("damaged JSON"));
  CHECK_FALSE(hwdb::apply_gpu_calibration(good, 1, db, &why));  // written for cuda:0
  CHECK_THAT(why, Catch::Contains("machine.device"));
  std::string other = good;
  other.replace(other.find("rooftop-gpu-calibration-1"), 25, "rooftop-calibration-1");
  CHECK_FALSE(hwdb::apply_gpu_calibration(other, 0, db, &why));
  CHECK_THAT(why, Catch::Contains("schema"));
  std::string negative = good;
  const auto at = negative.find("\"memory_bandwidth_bytes_per_s\": ") + 32;
  negative.insert(at, "-");
  CHECK_FALSE(hwdb::apply_gpu_calibration(negative, 0, db, &why));
  CHECK_THAT(why, Catch::Contains("memory_bandwidth_bytes_per_s"));
}

TEST_CASE("Database::get(\"cuda:0\") reads the cache file, or says how to make one") {
  TempCache cache;
  std::mt19937 rng(9);
  const hwdb::Database db = hwdb::load();
  try {
    db.get("cuda:0");
    FAIL("get(cuda:0) without a file did not throw");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains(hwdb::gpu_calibration_path(0)) &&
                             Catch::Contains("rooftop calibrate --device cuda:0"));
  }
  const Synthetic s = synthetic("NVIDIA H200", 0, rng);
  cache.write(0, s.json);
  const ChipSpec c = db.get("cuda:0");
  CHECK(c.memory_bandwidth_bytes_per_s == Approx(s.read_bw));
  CHECK(db.get("cuda0").id == "cuda:0");
  std::string why;
  REQUIRE(hwdb::calibrated_gpu(0, db, &why));
  CHECK(why.empty());
  cache.write(0, "{\"schema\": \"rooftop-gpu-calibration-1\", \"machine\": ");  // damaged
  try {
    db.get("cuda:0");
    FAIL("get(cuda:0) with a damaged file did not throw");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("damaged JSON") && Catch::Contains("cuda0.json"));
  }
  CHECK(db.get("h200").id == "h200");  // card ids unaffected
}
