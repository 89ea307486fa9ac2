// The link a multi-device pass's collectives cross (device_link), and the step latency each link gets
// (resolve_rates), hand-worked.
#include <catch2/catch.hpp>

#include "base/suggest.h"
#include "analyzer/runtime.h"
#include "seed_models.h"

using namespace rooftop;

namespace {

// An A100-PCIe-like card: an NVLink bridge of 600 GB/s (both directions) joining pairs, PCIe Gen4 x16 (32 GB/s one way).
ChipSpec bridged() {
  ChipSpec c = test::chip_spec("bridged", "gpu", 80e9, 2e12);
  c.architecture = "ampere";
  c.scaleup_bandwidth_bytes_per_s = 600e9;
  c.scaleup_domain_size = 2;
  c.scaleout_bandwidth_bytes_per_s = 32e9;
  return c;
}

}  // namespace

TEST_CASE("device_link: the scale-up fabric within its domain, else the scale-out link", "[runtime][link]") {
  const ChipSpec c = bridged();
  const DeviceLink pair = device_link(c, 2);
  CHECK(pair.scaleup);
  CHECK(pair.bytes_per_s == 300e9);  // half the bidirectional 600 GB/s
  const DeviceLink four = device_link(c, 4);  // beyond the bridge's pairs: PCIe
  CHECK_FALSE(four.scaleup);
  CHECK(four.bytes_per_s == 32e9);
  const DeviceLink stated = device_link(c, 2, true);  // a setup stated as PCIe does not use the bridge
  CHECK_FALSE(stated.scaleup);
  CHECK(stated.bytes_per_s == 32e9);

  ChipSpec no_fabric = c;  // an L40S-like card: PCIe only
  no_fabric.scaleup_bandwidth_bytes_per_s.reset();
  no_fabric.scaleup_domain_size.reset();
  CHECK_FALSE(device_link(no_fabric, 8).scaleup);
  ChipSpec only_fabric = c;  // no other figure: the fabric, whatever the count
  only_fabric.scaleout_bandwidth_bytes_per_s.reset();
  CHECK(device_link(only_fabric, 8).scaleup);
  ChipSpec none = no_fabric;
  none.scaleout_bandwidth_bytes_per_s.reset();
  CHECK_THROWS_AS(device_link(none, 2), InputError);
}

TEST_CASE("resolve_rates: a collective step over the scale-out link costs the profile's scale-out latency", "[runtime][link]") {
  const ChipSpec c = bridged();
  RuntimeProfile p;
  p.collective_latency_s = 8e-6;
  p.bus_bandwidth_fraction = 0.5;
  // Unset: the scale-out link steps at the scale-up figure.
  CHECK(resolve_rates(p, c, 32e9, false).collective_latency_s == 8e-6);
  p.scaleout_collective_latency_s = 120e-6;
  const RuntimeRates up = resolve_rates(p, c, 300e9, true), out = resolve_rates(p, c, 32e9, false);
  CHECK(up.collective_latency_s == 8e-6);
  CHECK(out.collective_latency_s == 120e-6);
  CHECK(out.link_bw == 16e9);  // 32 GB/s x the bus fraction 0.5
  // A tp 4 pass of one token through 80 layers (hidden 8192, 2-byte activations): 160 all-reduces of log2(4) = 2
  // steps, each carrying 2 x 3/4 x 16,384 B: 320 x 120 us + 160 x 24,576 B / 16 GB/s = 38.4 ms + 0.246 ms.
  CompactPass pass;
  pass.tokens = 1;
  ModelSpec m;
  m.hidden = 8192;
  m.layers = 80;
  add_collectives(pass, m, 1, 4, 1, 1, 2);
  CHECK(pass.collectives == Approx(320));
  CHECK(pass.collective_bytes == Approx(160 * 24576.0));
  CHECK(pass_seconds(pass, out) == Approx(38.4e-3 + 160 * 24576.0 / 16e9));
}
