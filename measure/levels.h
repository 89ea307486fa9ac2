// Memory levels from a working-set sweep: each cache level's plateau and DRAM, picked with the cache sizes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "measure/bandwidth.h"

namespace rooftop::measure {

struct LevelBandwidth {
  std::string name;               // "L1", "L2", "L3", "DRAM"
  int64_t working_set_bytes = 0;  // the sweep point chosen as the level's figure
  double bytes_per_s = 0;
  int points = 0;                 // sweep points inside the level's band
};

// Aggregate cache capacities as the sweep sees them (per-core sizes x threads for private caches).
struct CacheSizes {
  double l1_bytes = 0, l2_bytes = 0, l3_bytes = 0;  // 0 = level not reported (skipped)
};

// CacheSizes for a sweep on `threads` threads: L1d and L2 are per core, L3 is shared.
CacheSizes aggregate_cache_sizes(double l1d_per_core, double l2_per_core, double l3_shared, int threads);

// Each level's band is (2 x previous level, level / 2]; DRAM is >= 4 x the last cache. The level's
// figure is the median-bandwidth point of its band (a plateau, not one lucky point); a level whose
// band holds no point falls back to the largest point not above its capacity. Points must be sorted
// by working set. Levels without a reported size are skipped; DRAM needs a point >= 4 x the last cache.
std::vector<LevelBandwidth> detect_levels(const std::vector<SweepPoint>& sweep, const CacheSizes& caches);

// The largest working set the read sweep still read clearly faster (1.25x) than DRAM (the faster of STREAM's read
// rate and the sweep's largest set), provided that largest set is DRAM (within 1.25x of STREAM's read rate) and at
// least twice as big; 0 when the sweep cannot tell. On a
// shared cache this is the share the machine's neighbours leave (this VM: 190 MB of a 504 MiB L3).
double cache_resident_bytes(const std::vector<SweepPoint>& sweep, double dram_bytes_per_s);

}  // namespace rooftop::measure
