// run_calibration: STREAM (all threads, 1 thread), sweep and levels, peaks, kernels at model shapes, overhead.
#include "measure/calibrate.h"

#include <algorithm>
#include <cmath>
#include <thread>

#include "analyzer/speed.h"
#include "hwdb/calibration.h"
#include "hwdb/hwdb.h"
#include "kernels/cpu/dispatch.h"
#include "kernels/cpu/thread_pool.h"
#include "measure/shapes.h"
#include "measure/simd_loops.h"
#include <cstdio>

namespace rooftop::measure {
namespace {
constexpr int64_t kMiB = 1 << 20;

const LevelBandwidth* find_level(const std::vector<LevelBandwidth>& levels, const std::string& name) {
  for (const auto& l : levels)
    if (l.name == name) return &l;
  return nullptr;
}

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", 100 * fraction);
  return buf;
}

std::string skipped_shape(const char* op, kernels::WeightFormat f, const MatrixShape& s) {
  return std::string(op) + "_" + kernels::format_name(f) + " at " + std::to_string(s.m) + "x" + std::to_string(s.k) +
         " (" + s.model + ") skipped: k = " + std::to_string(s.k) + " is not a multiple of the format's " +
         std::to_string(kernels::block_values(f)) + "-value block";
}

std::string shape_suffix(int64_t m, int64_t k) { return "_m" + std::to_string(m) + "_k" + std::to_string(k); }
}  // namespace

void assign_ceilings(std::vector<KernelResult>& kernels, double dram_bytes_per_s,
                     const std::vector<LevelBandwidth>& levels, const CacheSizes& caches,
                     const std::vector<std::pair<std::string, double>>& peaks) {
  auto peak = [&](const std::string& format) {
    for (const auto& [f, v] : peaks)
      if (f == format) return v;
    return 0.0;
  };
  // A GEMM's roof is the peak of the operands the active kernel table multiplies: int8 where it quantizes X
  // (VNNI), bf16 where it rounds both operands (vdpbf16ps, AMX), else fp32. Attention's prefill runs in fp32.
  const kernels::KernelTable& table = kernels::active_kernels();
  auto gemm_operands = [&](const std::string& weight_format) -> std::string {
    for (auto f : all_formats())
      if (weight_format == kernels::format_name(f)) {
        if (table.gemm_uses_q8 && table.gemm_uses_q8(f)) return "int8";
        return table.gemm_operand_rounding > 0 ? "bf16" : "fp32";
      }
    return "fp32";
  };
  for (auto& k : kernels) {
    k.ceiling.clear();
    k.ceiling_value = 0;
    k.fraction_of_ceiling = 0;
    if (k.op == "gemm" || k.op == "attention_prefill") {
      const bool ours = k.op == "gemm" && k.name.find("openblas") == std::string::npos;  // OpenBLAS: fp32
      std::string operands = ours ? gemm_operands(k.format) : "fp32";
      if (peak(operands) <= 0) operands = "fp32";
      if (const double roof = peak(operands); roof > 0) {
        k.ceiling = "peak_flops." + operands;
        k.ceiling_value = roof;
        k.fraction_of_ceiling = k.flops_per_s / roof;
      }
      continue;
    }
    k.ceiling = "memory_bandwidth_bytes_per_s";
    k.ceiling_value = dram_bytes_per_s;
    const std::pair<const char*, double> caps[] = {{"L1", caches.l1_bytes}, {"L2", caches.l2_bytes}, {"L3", caches.l3_bytes}};
    for (auto [name, cap] : caps) {
      const LevelBandwidth* l = find_level(levels, name);
      if (cap > 0 && l && std::max(k.working_set_bytes, k.bytes_per_call) <= cap / 2) {
        k.ceiling = std::string("levels.") + name;
        k.ceiling_value = l->bytes_per_s;
        break;
      }
    }
    if (k.ceiling_value > 0) k.fraction_of_ceiling = k.bytes_per_s / k.ceiling_value;
  }
}

// The GEMM's cost model per format from its timed runs (see run_calibration): the derived entries to append.
std::vector<KernelResult> derive_gemm_models(const std::vector<KernelResult>& runs, double dram_bytes_per_s) {
  std::vector<KernelResult> derived;
  for (auto f : all_formats()) {
    const std::string base = std::string("gemm_") + kernels::format_name(f);
    const KernelResult *big_n = nullptr, *small_n = nullptr, *large_n = nullptr, *narrow = nullptr, *narrow_small = nullptr;
    const MatrixShape narrow_shape = narrow_gemm_shape(f);
    const std::string narrow_name = base + shape_suffix(narrow_shape.m, narrow_shape.k);
    for (const auto& k : runs) {
      if (k.name == base) big_n = &k;
      if (k.name == base + "_n" + std::to_string(kSmallPrefillTokens)) small_n = &k;
      if (k.name == base + "_n" + std::to_string(kLargePrefillTokens)) large_n = &k;
      if (k.name == narrow_name) narrow = &k;
      if (k.name == narrow_name + "_n" + std::to_string(kSmallPrefillTokens)) narrow_small = &k;
    }
    if (!big_n || !small_n) continue;
    // The same n = 16 GEMM with its weights cycled through DRAM: the extra time per weight byte, where there is one.
    for (const auto& k : runs)
      if (k.name == base + "_n" + std::to_string(kSmallPrefillTokens) + "_dram" && k.seconds.median > small_n->seconds.median) {
        KernelResult dram = k;
        dram.name = base + "_dram";
        dram.bytes_per_s = (small_n->bytes_per_call - 4.0 * static_cast<double>(small_n->n * (small_n->k + small_n->m))) /
                           (k.seconds.median - small_n->seconds.median);
        dram.flops_per_s = 0;
        dram.ceiling = "memory_bandwidth_bytes_per_s";
        dram.fraction_of_ceiling = dram.bytes_per_s / dram_bytes_per_s;
        derived.push_back(dram);
      }
    const double n1 = static_cast<double>(small_n->n), n2 = static_cast<double>(big_n->n);
    const double t1 = small_n->seconds.median, t2 = big_n->seconds.median;
    double b = (t2 - t1) / (n2 - n1), a = t1 - n1 * b;
    if (a <= 0 || b <= 0) continue;  // noise: keep the plain n = 128 rate
    const double weight_bytes = big_n->bytes_per_call - 4.0 * (n2 * static_cast<double>(big_n->k + big_n->m));
    KernelResult pack = *big_n;
    pack.name = base + "_pack";
    pack.bytes_per_s = weight_bytes / a;
    pack.flops_per_s = 0;
    pack.ceiling = "memory_bandwidth_bytes_per_s";
    pack.fraction_of_ceiling = pack.bytes_per_s / dram_bytes_per_s;
    // Per token, a GEMM costs F x + A y: F = 2 m k FLOPs at the marginal rate 1 / x, and A = 4 (k + m) bytes of fp32
    // activations in and out at 1 / y (converting and rearranging X, writing Y). The wide shape alone cannot tell
    // them apart (b = F x + A y); the narrow one (1536 x 576 at n = 128, its weights at the pack rate) weighs
    // activations 8x more per FLOP, and the two equations give x and y. Without it, or where noise makes either
    // negative, y = 0 and the slope is all FLOPs, as before. A narrow model's matrices (hidden 576-1024, K/V
    // projections of 128-320 rows) then pay their activations: predicted 25% too fast at 512 tokens without.
    const double F = 2.0 * static_cast<double>(big_n->m) * static_cast<double>(big_n->k);
    const double A = 4.0 * static_cast<double>(big_n->k + big_n->m);
    double x = b / F, y = 0;
    std::optional<KernelResult> narrow_pack;
    if (narrow) {
      const double ns = static_cast<double>(narrow->n), Fs = 2.0 * static_cast<double>(narrow->m * narrow->k),
                   As = 4.0 * static_cast<double>(narrow->k + narrow->m);
      const double Ws = narrow->bytes_per_call - As * ns;
      // The narrow shape's cost per token: with its n = 16 run, its own line t = a_s + b_s n. Short rows pack
      // faster per byte than the wide shape's (this VM, q8_0: 7-8 GB/s at k = 576-896, 3.1-3.4 at k = 4096-4864),
      // so the pack rate is filed per row length ("gemm_<fmt>_pack_k576") and the slope is the narrow line's own.
      // Without it: its n = 128 time less its weights at the wide shape's pack rate.
      double rs = (narrow->seconds.median - Ws / pack.bytes_per_s) / ns;
      if (narrow_small && narrow->seconds.median > narrow_small->seconds.median) {
        const double n0 = static_cast<double>(narrow_small->n);
        const double bs = (narrow->seconds.median - narrow_small->seconds.median) / (ns - n0), as = narrow_small->seconds.median - n0 * bs;
        // An intercept below a tenth of the n = 16 time is noise (packing would be nearly free): not filed.
        if (as > 0.1 * narrow_small->seconds.median) {
          rs = bs;
          narrow_pack = *narrow;
          narrow_pack->name = base + "_pack_k" + std::to_string(narrow->k);
          narrow_pack->bytes_per_s = Ws / as;
          narrow_pack->flops_per_s = 0;
          narrow_pack->ceiling = "memory_bandwidth_bytes_per_s";
          narrow_pack->fraction_of_ceiling = narrow_pack->bytes_per_s / dram_bytes_per_s;
        }
      }
      const double det = F * As - Fs * A, xj = (b * As - rs * A) / det, yj = (F * rs - Fs * b) / det;
      // With both shapes' own lines, any positive solution is kept: a wide slope that is mostly activations is what
      // the int8 GEMM measures (this VM, q8_0: 20 us a token at 14336 x 4096 and 2.2 at 1536 x 576 are both
      // activations at 3.7-3.9 GB/s; rejecting it priced every narrow q8_0 matrix at the wide FLOP rate, 40% fast).
      // With the older narrow figure, noise can make the narrow shape look cheap and drive x toward 0 (an unbounded
      // FLOP rate): on the wide shape the activations are a small share of the cost, so a solution that gives them
      // over half is rejected.
      if ((narrow_pack || xj >= 0.5 * b / F) && xj > 0 && yj > 0) {
        x = xj, y = yj;
      } else if (narrow_pack && rs > Fs * x) {
        // No positive solution (the narrow slope is more than activations at the wide slope's rate can explain):
        // the activations take what the narrow line leaves after the wide FLOP rate, at most half the wide slope,
        // and the FLOPs the rest of it, so the wide shape's own line still holds.
        y = std::min((rs - Fs * x) / As, 0.5 * b / A);
        x = (b - A * y) / F;
      }
    }
    KernelResult marginal = *big_n;
    marginal.name = base + "_marginal";
    marginal.bytes_per_s = 0;
    marginal.flops_per_s = 1.0 / x;
    const double b_large = large_n ? (large_n->seconds.median - t2) / static_cast<double>(large_n->n - big_n->n) : 0.0;
    derived.push_back(pack);
    if (narrow_pack) derived.push_back(*narrow_pack);
    derived.push_back(marginal);
    if (b_large - A * y > 0) {  // else noise: the one slope serves every n
      KernelResult past = marginal;
      past.name = base + "_marginal_large";
      past.n = large_n->n;
      past.flops_per_s = F / (b_large - A * y);
      derived.push_back(past);
    }
    if (y > 0) {
      KernelResult act = *big_n;
      act.name = base + "_act";
      act.flops_per_s = 0;
      act.bytes_per_s = 1.0 / y;
      act.ceiling = "memory_bandwidth_bytes_per_s";
      act.fraction_of_ceiling = act.bytes_per_s / dram_bytes_per_s;
      derived.push_back(act);
    }
  }
  return derived;
}

CalibrationRecord run_calibration(const CalibrateOptions& opt, const Progress& progress) {
  const double start_s = now_s();
  CalibrationRecord rec;
  rec.date = utc_now_iso8601();
  rec.quick = opt.quick;
  rec.machine = hwdb::host_cpu_info();
  rec.fingerprint = hwdb::machine_fingerprint(hwdb::detect_host_cpu());
  rec.isa_used = mem_loops().isa;
  const int hw_threads = static_cast<int>(std::max<int64_t>(rec.machine.logical_cpus, 1));
  rec.threads = opt.threads > 0 ? opt.threads : hw_threads;
  kernels::ThreadPool pool(rec.threads);
  kernels::ThreadPool single(1);
  if (rec.threads == 1) rec.notes.push_back("one thread: the all-threads figures equal the 1-thread figures");

  // Weights of the steps (rough seconds on a 2-core machine) so progress advances evenly.
  struct Step {
    std::string label;
    double weight;
    std::function<void()> run;
  };
  std::vector<Step> steps, reference_steps;  // reference_steps (OpenBLAS) run after all the others
  const bool refresh = !opt.refresh_formats.empty();
  const bool q = opt.quick || refresh;
  auto wanted = [&](kernels::WeightFormat f) {
    return !refresh || std::find(opt.refresh_formats.begin(), opt.refresh_formats.end(), f) != opt.refresh_formats.end();
  };
  TimerOptions mem_opt{1, q ? 5 : 10, 0};
  TimerOptions sweep_opt{1, q ? 3 : 5, 0};
  TimerOptions peak_opt{1, q ? 5 : 9, 2e-3};
  TimerOptions kern_opt{1, q ? 5 : 9, q ? 5e-3 : 20e-3};
  // A refresh's DRAM-sized GEMVs set the memory roof of every prediction that follows: 9 samples of
  // >= 20 ms each (a single quick sample can catch a quiet or a busy second of a shared host).
  const TimerOptions stream_opt = refresh ? TimerOptions{1, 9, 20e-3} : kern_opt;
  TimerOptions gemm_opt{1, q ? 3 : 5, 0};

  // STREAM arrays >= 4 x the last-level cache (at least 128 MiB each; quick mode caps at 4 x LLC).
  const double llc = std::max({rec.machine.l3_bytes, rec.machine.l2_bytes, 8.0 * kMiB});
  int64_t array_bytes = std::max<int64_t>(static_cast<int64_t>(4 * llc), 128 * kMiB);
  if (!q) array_bytes = std::max<int64_t>(array_bytes, 256 * kMiB);
  array_bytes = std::min<int64_t>(array_bytes, static_cast<int64_t>(rec.machine.memory_bytes > 0 ? rec.machine.memory_bytes / 8 : 1e12));

  // A working set that reads from DRAM: 4x the cache-resident size the sweep measured (this VM: 64 MiB of a reported
  // 480 MiB L3, so 256 MiB), else 4x the reported last-level cache; at most 1/8 of the memory, as the STREAM arrays.
  // Read when a step runs (the sweep comes first). 4x the reported 480 MiB made every DRAM-streamed GEMV generate
  // 1.9 GB of random weights: most of a quick calibration's 2 minutes, half of it in page faults (stop 42).
  auto dram_ws = [&] {
    const double ws = 4.0 * (rec.cache_resident_bytes > 0 ? rec.cache_resident_bytes : llc);
    return rec.machine.memory_bytes > 0 ? std::min(ws, rec.machine.memory_bytes / 8.0) : ws;
  };
  steps.push_back({"STREAM, all threads", 2, [&] { rec.stream = measure_stream(pool, array_bytes, mem_opt, refresh); }});
  if (!refresh) steps.push_back({"STREAM, 1 thread", 2, [&] { rec.stream_1thread = measure_stream(single, array_bytes, mem_opt); }});

  const CacheSizes caches = aggregate_cache_sizes(rec.machine.l1d_bytes, rec.machine.l2_bytes, rec.machine.l3_bytes, rec.threads);
  if (!refresh) steps.push_back({"working-set sweep", q ? 2.0 : 6.0, [&] {
                     // Up to 1 GiB even when quick: the cache-resident size needs a DRAM point past a large shared L3.
                     const int64_t max_ws = 1024 * kMiB;
                     auto sizes = sweep_sizes(4096, max_ws, q ? 2.0 : std::sqrt(2.0));
                     rec.sweep = measure_sweep(pool, sizes, q ? 64.0 * kMiB : 256.0 * kMiB, sweep_opt);
                     rec.levels = detect_levels(rec.sweep, caches);
                     rec.cache_resident_bytes = cache_resident_bytes(rec.sweep, rec.stream.get("read").bytes_per_s);
                   }});
  if (!refresh) steps.push_back({"peak arithmetic", 1, [&] { rec.peaks = measure_peaks(pool, peak_opt); }});

  // GEMV at every format, at the Llama-3.1-8B FFN (DRAM, cycling copies past 4x the LLC), and at four
  // widths kept warm in the caches (the kernels' arithmetic rate at each row length).
  std::vector<const MatrixShape*> gemv_shapes = {&llama8b_ffn()};
  for (const auto& s : in_cache_shapes()) gemv_shapes.push_back(&s);
  for (const MatrixShape* sp : gemv_shapes) {
    const MatrixShape& s = *sp;
    const bool big = sp == &llama8b_ffn();
    for (auto f : all_formats()) {
      if (!wanted(f)) continue;
      if (s.k % kernels::block_values(f) != 0) {
        rec.notes.push_back(skipped_shape("gemv", f, s));
        continue;
      }
      steps.push_back({std::string("gemv ") + kernels::format_name(f) + " " + std::to_string(s.m) + "x" + std::to_string(s.k),
                       big ? 1.0 : 0.3, [&, s, f, big] {
                         KernelResult r = measure_gemv(pool, f, s.m, s.k, big ? stream_opt : kern_opt, big ? dram_ws() : 0);
                         if (!big) r.name += shape_suffix(s.m, s.k);
                         rec.kernels.push_back(r);
                       }});
      // The same width streamed from DRAM ("gemv_<fmt>_stream_k<k>"): 32 MiB matrices of k-long rows,
      // cycled past 4x the LLC. Short rows stream slower (per-row work, prefetchers restarting).
      const bool streamed = !q || refresh || f == kernels::WeightFormat::f32 || f == kernels::WeightFormat::q8_0 ||
                            f == kernels::WeightFormat::q4_1;
      if (!big && streamed)
        steps.push_back({std::string("gemv ") + kernels::format_name(f) + " stream k=" + std::to_string(s.k), 0.5, [&, s, f] {
                           const int64_t rows = (int64_t{32} << 20) / kernels::row_bytes(f, s.k);
                           KernelResult r = measure_gemv(pool, f, rows, s.k, stream_opt, dram_ws());
                           r.name += "_stream_k" + std::to_string(s.k);
                           rec.kernels.push_back(r);
                         }});
    }
  }
  // Batched decode (gemv_batch at n = 4 and 16): streaming rate at the Llama-3.1-8B FFN (cycling past 4x
  // the LLC) and arithmetic rate at the in-cache widths.
  for (int64_t n : {int64_t{4}, int64_t{16}})
    for (auto f : all_formats())
      if (wanted(f) && (!refresh || opt.refresh_batched))
      for (const MatrixShape* sp : gemv_shapes) {
        const MatrixShape& s = *sp;
        const bool big = sp == &llama8b_ffn();
        if (refresh && big) continue;  // the analyzer prices batches by the per-width rates (see speed.cpp)
        // Quick: f32, f16, q8_0, q4_1, q4_k and q5_0 (Gemma 3's q/k/gate/up; its batches gain least of the legacy
        // formats, 1.77x at 4 tokens beside q4_1's 1.95x, and borrowing q4_1's priced a 4-token q5_0 prompt 37% fast);
        // the analyzer prices the other quantized formats' batches by their family's speed-up over one token
        // (borrowed_batch in speed.cpp).
        if (q && !refresh && f != kernels::WeightFormat::f32 && f != kernels::WeightFormat::f16 && f != kernels::WeightFormat::q8_0 &&
            f != kernels::WeightFormat::q4_1 && f != kernels::WeightFormat::q4_k && f != kernels::WeightFormat::q5_0)
          continue;
        if (s.k % kernels::block_values(f) != 0) continue;  // (said for the single-token GEMV above)
        steps.push_back({"gemv_batch n=" + std::to_string(n) + " " + kernels::format_name(f) + " " + std::to_string(s.m) + "x" + std::to_string(s.k),
                         big ? 1.0 : 0.3, [&, s, f, n, big] {
                           KernelResult r = measure_gemv_batch(pool, f, s.m, s.k, n, kern_opt, big ? dram_ws() : 0);
                           if (!big) r.name += shape_suffix(s.m, s.k);
                           rec.kernels.push_back(r);
                         }});
        // And streamed from DRAM at this width ("gemv_batch<n>_<fmt>_stream_k<k>"): a batched kernel that
        // is arithmetic-heavy overlaps its loads worse than in cache, so its DRAM rate is its own roof.
        if (!big)
          steps.push_back({"gemv_batch n=" + std::to_string(n) + " " + kernels::format_name(f) + " stream k=" + std::to_string(s.k),
                           0.5, [&, s, f, n] {
                             const int64_t rows = (int64_t{32} << 20) / kernels::row_bytes(f, s.k);
                             KernelResult r = measure_gemv_batch(pool, f, rows, s.k, n, stream_opt, dram_ws());
                             r.name += "_stream_k" + std::to_string(s.k);
                             rec.kernels.push_back(r);
                           }});
      }
  // Prefill GEMM (n = 128): f32 and the int8-friendly formats; OpenBLAS at the same shapes.
  using F = kernels::WeightFormat;
  // The kernel table's GEMM threshold of every format (not a measurement: the analyzer must price a short prompt's
  // matmuls as the kernels run them, GEMV rows or the GEMM), as a function of the row length: its value at every
  // row length up to 65536 that is a whole number of the format's blocks and of 32 values (every model's widths),
  // written where it changes.
  for (F f : {F::f32, F::f16, F::bf16, F::q8_0, F::q4_0, F::q4_1, F::q5_0, F::q5_1, F::q4_k, F::q5_k, F::q6_k}) {
    std::map<int64_t, int64_t>& steps = rec.gemm_min_tokens[kernels::format_name(f)];
    int64_t last = -1;
    const int64_t step = std::max<int64_t>(32, kernels::block_values(f));
    for (int64_t k = step; k <= 65536; k += step)
      if (const int64_t n = kernels::gemm_min_tokens(f, k); n != last) steps[k] = last = n;
  }
  std::vector<F> gemm_formats = {F::f32, F::q8_0, F::q4_1};
  if (!q) gemm_formats = {F::f32, F::f16, F::bf16, F::q8_0, F::q4_0, F::q4_1, F::q5_0, F::q5_1, F::q4_k, F::q5_k, F::q6_k};
  if (refresh) gemm_formats = opt.refresh_prefill ? opt.refresh_formats : std::vector<F>{};
  for (const MatrixShape* sp : {&llama8b_ffn(), &smollm2_ffn()}) {
    if (refresh && gemm_formats.empty()) break;
    const bool big = sp == &llama8b_ffn();
    for (auto f : gemm_formats) {
      const MatrixShape s = big ? *sp : narrow_gemm_shape(f);
      if (s.k % kernels::block_values(f) != 0) {
        rec.notes.push_back(skipped_shape("gemm", f, s));
        continue;
      }
      // The narrow shape's runs take their weights from DRAM (slices of a matrix 4x the cache-resident size), as a
      // prefill does: it reads each matrix once. Kept in L2 instead, a 0.5 MB matrix packed 10-30% faster and the
      // engine's short prompts came out 10-20% faster than priced (docs/validate-files.md, stop 39).
      steps.push_back({std::string("gemm ") + kernels::format_name(f) + " n=128 " + std::to_string(s.m) + "x" + std::to_string(s.k),
                       big ? 4.0 : 0.5, [&, s, f, big] {
                         KernelResult r = measure_gemm(pool, f, s.m, s.k, kPrefillTokens, big ? gemm_opt : kern_opt, big ? 0.0 : dram_ws());
                         if (!big) r.name += shape_suffix(s.m, s.k);
                         rec.kernels.push_back(r);
                       }});
      if (big && !refresh)  // the small batch again with the weights from DRAM: the extra cost of a model beyond the cache
        steps.push_back({std::string("gemm ") + kernels::format_name(f) + " n=" + std::to_string(kSmallPrefillTokens) + " from DRAM", 1.5,
                         [&, s, f] {
                           KernelResult r = measure_gemm(pool, f, s.m, s.k, kSmallPrefillTokens, gemm_opt, dram_ws());
                           r.name += "_n" + std::to_string(kSmallPrefillTokens) + "_dram";
                           rec.kernels.push_back(r);
                         }});
      if (!big)  // the narrow shape at n = 16 too: its own per-weight and per-token costs (below)
        steps.push_back({std::string("gemm ") + kernels::format_name(f) + " n=" + std::to_string(kSmallPrefillTokens) + " " +
                             std::to_string(s.m) + "x" + std::to_string(s.k),
                         0.3, [&, s, f] {
                           KernelResult r = measure_gemm(pool, f, s.m, s.k, kSmallPrefillTokens, kern_opt, dram_ws());
                           r.name += shape_suffix(s.m, s.k) + "_n" + std::to_string(kSmallPrefillTokens);
                           rec.kernels.push_back(r);
                         }});
      if (big)  // more batch sizes separate the per-weight cost (dequantize, pack) from the per-token one
        for (int64_t n : {kSmallPrefillTokens, kLargePrefillTokens})
          steps.push_back({std::string("gemm ") + kernels::format_name(f) + " n=" + std::to_string(n) + " " + std::to_string(s.m) + "x" +
                               std::to_string(s.k),
                           n == kSmallPrefillTokens ? 1.0 : 3.0, [&, s, f, n] {
                             KernelResult r = measure_gemm(pool, f, s.m, s.k, n, gemm_opt);
                             r.name += "_n" + std::to_string(n);
                             rec.kernels.push_back(r);
                           }});
    }
    // OpenBLAS last (below): after each call its threads spin for a while, which would slow whatever ran next.
    const MatrixShape& s = *sp;
    if (!refresh) {
      reference_steps.push_back({"OpenBLAS sgemm n=128 " + std::to_string(s.m) + "x" + std::to_string(s.k), big ? 3.0 : 0.5,
                                 [&, s, big] {
                                   if (!have_openblas()) return;
                                   KernelResult r = measure_sgemm_openblas(rec.threads, s.m, s.k, kPrefillTokens, big ? gemm_opt : kern_opt);
                                   if (!big) r.name += shape_suffix(s.m, s.k);
                                   rec.kernels.push_back(r);
                                 }});
      if (big)
        reference_steps.push_back({"q4_1 dequantize + OpenBLAS sgemm n=128", 4.0, [&, s] {
                                     if (!have_openblas()) return;
                                     rec.kernels.push_back(measure_dequant_sgemm_openblas(pool, F::q4_1, s.m, s.k, kPrefillTokens, gemm_opt));
                                   }});
    }
  }

  // Decode attention at t = 1024 over enough layers' KV caches to exceed 4 x the LLC.
  for (bool f16 : {false, true})
    if (!(refresh && f16))  // validate's KV cache is fp32
    steps.push_back({std::string("attention ") + (f16 ? "f16" : "f32") + " t=1024", 1, [&, f16] {
                       AttentionShape a = llama8b_attention(1024);
                       const double per_layer = 2.0 * a.t * a.kv_heads * a.head_dim * (f16 ? 2 : 4);
                       const int64_t layers = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(dram_ws() / per_layer)), 1, 64);
                       rec.kernels.push_back(measure_attention(pool, f16, a.heads, a.kv_heads, a.head_dim, a.t, layers, kern_opt));
                     }});
  // Causal prefill attention of a 256-token prompt with Llama-3.1-8B heads (in cache: compute-bound), and of a
  // 64-token one ("_p64"): the two separate a fixed cost per (token, head) row from the FLOP rate (below).
  if (!refresh || opt.refresh_prefill)
    for (int64_t prompt : {int64_t{256}, int64_t{64}})
      steps.push_back({"prefill attention f32 P=" + std::to_string(prompt), 0.5, [&, prompt] {
                         AttentionShape a = llama8b_attention(prompt);
                         KernelResult r = measure_attention_prefill(pool, a.heads, a.kv_heads, a.head_dim, a.t, kern_opt);
                         if (prompt != 256) r.name += "_p" + std::to_string(prompt);
                         rec.kernels.push_back(r);
                       }});
  steps.push_back({"fixed overhead per layer and step", 0.5, [&] {
                     const RegionStartResult keep = rec.overhead.region_start;  // its own step (order-free)
                     rec.overhead = measure_overhead(pool, kern_opt);
                     rec.overhead.region_start = keep;
                   }});
  steps.push_back({"DRAM start of a GEMV region", q ? 0.3 : 1.0,
                   [&] { rec.overhead.region_start = measure_region_start(pool, dram_ws(), q); }});

  steps.insert(steps.end(), reference_steps.begin(), reference_steps.end());
  if (!refresh && !reference_steps.empty())
    steps.push_back({"OpenBLAS availability", 0.0, [&] {
                       if (!have_openblas()) rec.notes.push_back("sgemm_openblas skipped: OpenBLAS is not installed (libopenblas.so.0)");
                     }});
  double total = 0, done = 0;
  for (const auto& s : steps) total += s.weight;
  for (const auto& s : steps) {
    if (progress) progress(s.label, done / total);
    s.run();
    done += s.weight;
  }
  if (progress) progress("done", 1.0);

  rec.memory_bandwidth_bytes_per_s = rec.stream.get("read").bytes_per_s;
  if (!refresh) rec.memory_bandwidth_1thread_bytes_per_s = rec.stream_1thread.get("read").bytes_per_s;
  assign_ceilings(rec.kernels, rec.memory_bandwidth_bytes_per_s, rec.levels, caches, best_peaks(rec.peaks));
  // Prefill GEMM as t(n) = A + B n on the large shape, from n = 16 and n = 128: A / weight bytes is the
  // dequantize-and-pack rate ("gemm_<fmt>_pack_bytes_per_s"), 2 m k / B the marginal FLOP/s
  // ("gemm_<fmt>_marginal_flops_per_s"). The analyzer prices a prefill matmul as their sum. Past n = 128 the slope
  // from n = 128 to 512 ("gemm_<fmt>_marginal_large_flops_per_s"): a GEMM whose activations outgrow the caches (the
  // AMX GEMM: 1.9 TFLOP/s marginal below 128 tokens, 1.1-1.4 above) costs more per token there.
  static_assert(kPrefillTokens == kCalibratedGemmKnotTokens, "the analyzer's knot is the calibration's n");
  static_assert(kCalibratedGemmWideK == 4096, "the analyzer files the wide shape's pack rate at its row length");
  std::vector<KernelResult> derived = derive_gemm_models(rec.kernels, rec.memory_bandwidth_bytes_per_s);  // appended below
  // Prefill attention as t(P) = rows r + F x, rows = P x heads, F its FLOPs: from P = 64 and 256, r is the fixed work
  // of a (token, head) row ("overhead_attention_row_s") and 1 / x the marginal FLOP rate
  // ("attention_prefill_f32_marginal_flops_per_s"). The 256-token rate alone priced 64-token prompts 1.5-2.5x too
  // fast (this VM: 0.07 us a row, 206 GFLOP/s marginal, against 170 GFLOP/s at 256 tokens). Noise that makes
  // either term negative keeps the one rate.
  {
    const KernelResult *at256 = nullptr, *at64 = nullptr;
    for (const auto& k : rec.kernels) {
      if (k.name == "attention_prefill_f32") at256 = &k;
      if (k.name == "attention_prefill_f32_p64") at64 = &k;
    }
    if (at256 && at64) {
      const double r1 = static_cast<double>(at64->t * at64->heads), r2 = static_cast<double>(at256->t * at256->heads);
      const double f1 = at64->flops_per_call, f2 = at256->flops_per_call;
      const double t1 = at64->seconds.median, t2 = at256->seconds.median;
      const double det = r1 * f2 - r2 * f1, row = (t1 * f2 - t2 * f1) / det, x = (r1 * t2 - r2 * t1) / det;
      if (row > 0 && x > 0) {
        KernelResult marginal = *at256;
        marginal.name = "attention_prefill_f32_marginal";
        marginal.bytes_per_s = 0;
        marginal.flops_per_s = 1.0 / x;
        derived.push_back(marginal);
        rec.overhead.attention_row_s = row;
      }
    }
  }
  rec.kernels.insert(rec.kernels.end(), derived.begin(), derived.end());
  // Each format's GEMV arithmetic rate: the best FLOP/s of its in-cache GEMVs (working set within the
  // LLC, calls long enough that the per-call barrier is small). The analyzer uses it as the decode
  // matmuls' compute ceiling ("gemv_<fmt>_arith_flops_per_s").
  for (const std::string kind : {"gemv_", "gemv_batch4_", "gemv_batch16_"})
  for (auto f : all_formats()) {
    const std::string prefix = kind + kernels::format_name(f) + "_m";
    const KernelResult* best = nullptr;
    for (const auto& k : rec.kernels)
      if (k.name.rfind(prefix, 0) == 0 && k.working_set_bytes <= llc && (!best || k.flops_per_s > best->flops_per_s)) best = &k;
    if (!best) continue;
    KernelResult a = *best;
    a.name = kind + kernels::format_name(f) + "_arith";
    a.ceiling = "peak_flops";
    rec.kernels.push_back(a);
    // And per input width ("<kind><fmt>_arith_k<k>"): the analyzer applies each matrix's own row length.
    for (const auto& k : std::vector<KernelResult>(rec.kernels))
      if (k.name.rfind(prefix, 0) == 0 && k.working_set_bytes <= llc) {
        KernelResult w = k;
        w.name = kind + kernels::format_name(f) + "_arith_k" + std::to_string(k.k);
        w.ceiling = "peak_flops";
        rec.kernels.push_back(w);
      }
  }

  // Say what was skipped and which figures are imprecise.
  for (const auto& p : rec.peaks)
    if (!p.measured) rec.notes.push_back(p.skipped_reason);
  for (const char* lvl : {"L1", "L2", "L3", "DRAM"})
    if (!find_level(rec.levels, lvl))
      rec.notes.push_back(std::string("level ") + lvl + " skipped: the cache size is not reported or the sweep has no point in its band");
  auto wide = [&](const std::string& what, const Stats& s) {
    if (s.wide)
      rec.notes.push_back(what + ": wide spread (interquartile range " + percent(s.iqr_relative) +
                          "% of the median); the figure is imprecise");
  };
  for (const auto& k : rec.stream.kernels) wide("stream " + k.name, k.seconds);
  for (const auto& k : rec.stream_1thread.kernels) wide("stream " + k.name + " (1 thread)", k.seconds);
  for (const auto& p : rec.peaks)
    if (p.measured) wide("peak " + p.variant, p.seconds);
  for (const auto& k : rec.kernels) wide(k.name, k.seconds);
  wide("overhead per layer", rec.overhead.layer_seconds);
  rec.duration_s = now_s() - start_s;
  return rec;
}

std::string busy_reason(const CalibrationRecord& r) {
  // The spread rule on one set of figures: "" when quiet, else why not.
  auto check = [](std::vector<double> spread, const std::string& which) -> std::string {
    if (spread.size() < 5) return "";
    std::sort(spread.begin(), spread.end());
    const double median = spread[spread.size() / 2];
    const double over = static_cast<double>(std::count_if(spread.begin(), spread.end(), [](double x) { return x > 0.25; })) /
                        static_cast<double>(spread.size());
    if (median <= 0.08 && over <= 0.10) return "";
    return "the machine looked busy: the median spread of " + which + " is " + percent(median) + "% (quiet: under 8%) and " +
           percent(over) + "% of them spread over 25% (quiet: under 10%)";
  };
  std::vector<double> all, dram;
  for (const auto& k : r.kernels) {
    all.push_back(k.seconds.iqr_relative);
    // (the GEMM's derived _pack/_act/_dram entries carry its compute-bound timings under this ceiling: left out)
    if (k.ceiling == "memory_bandwidth_bytes_per_s" && k.op != "gemm") dram.push_back(k.seconds.iqr_relative);
  }
  if (std::string why = check(all, "the kernel figures"); !why.empty()) return why;
  // Neighbours share the memory bus more than the cores' caches: the figures read from DRAM (a third of a full
  // calibration) can be contended while the in-cache ones stay quiet and hide them in the median. A calibration of
  // this VM that passed the rule above with 5% of all figures over 25% had 16% of its DRAM figures there, and
  // its decode rates 15-50% below a quiet one's an hour later (docs/calibration-noise.md, stop 38).
  return check(dram, "the figures read from DRAM");
}

}  // namespace rooftop::measure
