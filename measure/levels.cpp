// detect_levels: bands between cache capacities, the median point of each band as the plateau.
#include "measure/levels.h"

#include <algorithm>

namespace rooftop::measure {

CacheSizes aggregate_cache_sizes(double l1d_per_core, double l2_per_core, double l3_shared, int threads) {
  const double t = std::max(1, threads);
  return {l1d_per_core * t, l2_per_core * t, l3_shared};
}

namespace {
// The point of median bandwidth among pts (upper median for an even count: plateaus are the high side).
const SweepPoint* median_point(std::vector<const SweepPoint*> pts) {
  if (pts.empty()) return nullptr;
  std::sort(pts.begin(), pts.end(), [](auto* a, auto* b) { return a->bytes_per_s < b->bytes_per_s; });
  return pts[pts.size() / 2];
}
}  // namespace

std::vector<LevelBandwidth> detect_levels(const std::vector<SweepPoint>& sweep, const CacheSizes& caches) {
  std::vector<LevelBandwidth> out;
  struct Band {
    const char* name;
    double lo, hi;  // working set in (lo, hi]
    double capacity;
  };
  std::vector<Band> bands;
  double prev = 0;
  const std::pair<const char*, double> sizes[] = {{"L1", caches.l1_bytes}, {"L2", caches.l2_bytes}, {"L3", caches.l3_bytes}};
  for (auto [name, cap] : sizes) {
    if (cap <= 0 || cap <= prev) continue;  // not reported, or not larger than the level below
    bands.push_back({name, prev * 2, cap / 2, cap});
    prev = cap;
  }
  if (prev > 0) bands.push_back({"DRAM", prev * 4 - 1, 1e300, 0});
  for (const auto& b : bands) {
    std::vector<const SweepPoint*> in;
    for (const auto& p : sweep)
      if (p.working_set_bytes > b.lo && p.working_set_bytes <= b.hi) in.push_back(&p);
    const SweepPoint* pick = median_point(in);
    if (!pick && b.capacity > 0) {  // no point inside the band: the largest one that still fits
      for (const auto& p : sweep)
        if (p.working_set_bytes > b.lo / 2 && p.working_set_bytes <= b.capacity) pick = &p;
    }
    if (!pick) continue;
    out.push_back({b.name, pick->working_set_bytes, pick->bytes_per_s, static_cast<int>(in.size())});
  }
  return out;
}

double cache_resident_bytes(const std::vector<SweepPoint>& sweep, double dram_bytes_per_s) {
  if (sweep.size() < 4 || !(dram_bytes_per_s > 0)) return 0;
  const SweepPoint& last = sweep.back();
  if (last.bytes_per_s > 1.25 * dram_bytes_per_s) return 0;  // the sweep ended inside a cache
  // Faster than DRAM means faster than both STREAM's read rate and the last point: one disturbed sample at the
  // end (this VM, a quick calibration: 15.1 GB/s at 1 GiB beside STREAM's 30.3) would otherwise call every
  // working set up to 512 MiB resident and price a 0.43 GB file's decode from the cache, 42% fast.
  const double dram = std::max(last.bytes_per_s, dram_bytes_per_s);
  double resident = 0;
  for (const auto& p : sweep)
    if (p.bytes_per_s >= 1.25 * dram) resident = std::max(resident, static_cast<double>(p.working_set_bytes));
  return resident > 0 && 2.0 * resident <= static_cast<double>(last.working_set_bytes) ? resident : 0.0;
}


}  // namespace rooftop::measure
