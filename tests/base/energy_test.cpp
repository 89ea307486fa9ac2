// EnergyMeter on a fake powercap tree: package domains summed, subdomains left out, a wrapped counter.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "base/energy.h"

using namespace rooftop;
namespace fs = std::filesystem;

namespace {
void put(const fs::path& p, uint64_t v) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << v << "\n";
}
}  // namespace

TEST_CASE("RAPL package counters: summed, subdomains ignored, wraps counted once", "[base][energy]") {
  const fs::path root = fs::temp_directory_path() / "rooftop-test-powercap";
  fs::remove_all(root);
  put(root / "intel-rapl:0" / "energy_uj", 1'000'000);
  put(root / "intel-rapl:0" / "max_energy_range_uj", 10'000'000);
  put(root / "intel-rapl:1" / "energy_uj", 9'500'000);
  put(root / "intel-rapl:1" / "max_energy_range_uj", 10'000'000);
  put(root / "intel-rapl:0:0" / "energy_uj", 123);  // the core subdomain: part of package 0, not added again
  put(root / "intel-rapl:0:0" / "max_energy_range_uj", 10'000'000);
  setenv("ROOFTOP_POWERCAP_DIR", root.c_str(), 1);
  std::string why;
  const auto m = EnergyMeter::open(&why);
  REQUIRE(m.has_value());
  CHECK(m->describe() == "RAPL, 2 packages");
  const EnergyReading a = m->read();
  put(root / "intel-rapl:0" / "energy_uj", 3'500'000);  // +2.5 J
  put(root / "intel-rapl:1" / "energy_uj", 500'000);    // wrapped: 0.5 J to the top, then 0.5 J
  put(root / "intel-rapl:0:0" / "energy_uj", 9'999'999);
  CHECK(m->joules(a, m->read()) == Approx(3.5));

  fs::remove_all(root);
  fs::create_directories(root);
  CHECK_FALSE(EnergyMeter::open(&why).has_value());
  CHECK(why.find("no readable RAPL package counters") != std::string::npos);
  unsetenv("ROOFTOP_POWERCAP_DIR");
  fs::remove_all(root);
}
