// Bad chip cards are rejected with one line naming file:chip:key and what was expected.
#include <catch2/catch.hpp>

#include <string>

#include "base/suggest.h"
#include "hwdb/hwdb.h"

namespace {

const std::string good_card = R"(id: testchip
name: Test Chip
vendor: Nobody
kind: gpu
memory_bytes: 24.0e9
memory_bandwidth_bytes_per_s: 1.0e12
peak_flops:
  fp16: 200.0e12
  bf16: 200.0e12
  fp8: 400.0e12
compute_units: 64
sources:
  - https://example.com/datasheet
)";

std::string replace(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::string error_of(const std::string& card) {
  try {
    rooftop::hwdb::parse_card(card, "cards/bad.yaml");
  } catch (const rooftop::InputError& e) {
    return e.what();
  }
  return "";
}

// Checks that parsing `card` is rejected with a message holding each of `parts`.
void check_error(const std::string& card, std::initializer_list<const char*> parts) {
  const std::string msg = error_of(card);
  INFO("message: " << msg);
  for (const char* part : parts) CHECK(msg.find(part) != std::string::npos);
}

}  // namespace

TEST_CASE("a good card parses with datasheet provenance", "[hwdb][parse]") {
  auto c = rooftop::hwdb::parse_card(good_card, "cards/good.yaml");
  CHECK(c.id == "testchip");
  CHECK(c.memory_bytes == 24e9);
  CHECK(*c.peak("fp8") == 400e12);
  CHECK(!c.peak("fp4"));
  CHECK(!c.tdp_watts);
  CHECK(c.compute_units.value_or(0) == 64);
  CHECK(!c.boost_clock_hz);
  CHECK(rooftop::hwdb::parse_card(replace(good_card, "compute_units: 64", "compute_units: 64\nboost_clock_hz: 1.41e9"),
                                  "cards/good.yaml").boost_clock_hz.value_or(0) == 1.41e9);
  CHECK(c.provenance.at("memory_bandwidth_bytes_per_s") == "datasheet");
  CHECK(c.provenance.at("peak_flops.bf16") == "datasheet");
  CHECK(c.file == "cards/good.yaml");
}

TEST_CASE("a misspelled key is rejected with the nearest valid key", "[hwdb][parse]") {
  check_error(replace(good_card, "memory_bandwidth_bytes_per_s", "memory_bandwith_bytes_per_s"),
              {"cards/bad.yaml:testchip:memory_bandwith_bytes_per_s", "unknown key",
               "did you mean 'memory_bandwidth_bytes_per_s'"});
}

TEST_CASE("an unknown compute format is rejected with the nearest format", "[hwdb][parse]") {
  check_error(replace(good_card, "  fp8:", "  fp8e4:"),
              {"cards/bad.yaml:testchip:peak_flops.fp8e4", "did you mean 'fp8'"});
}

TEST_CASE("a duplicate key is rejected even though YAML keeps one", "[hwdb][parse]") {
  check_error(good_card + "memory_bytes: 48.0e9\n", {"cards/bad.yaml:testchip:memory_bytes", "duplicate key"});
  check_error(replace(good_card, "  fp8: 400.0e12\n", "  fp8: 400.0e12\n  fp16: 100.0e12\n"),
              {"cards/bad.yaml:testchip:peak_flops.fp16", "duplicate key"});
}

TEST_CASE("a value of the wrong type is rejected naming what was expected", "[hwdb][parse]") {
  check_error(replace(good_card, "memory_bytes: 24.0e9", "memory_bytes: 24 GB"),
              {"cards/bad.yaml:testchip:memory_bytes", "'24 GB'", "expected a positive number of bytes"});
  check_error(replace(good_card, "compute_units: 64", "compute_units: 64.5"),
              {"cards/bad.yaml:testchip:compute_units", "integer"});
  // A clock written in MHz (1410) or GHz (1.41) would scale the per-unit streaming limit by 1e6 or 1e9.
  for (const char* clock : {"1410", "1.41"})
    check_error(replace(good_card, "compute_units: 64", std::string("compute_units: 64\nboost_clock_hz: ") + clock),
                {"cards/bad.yaml:testchip:boost_clock_hz", "in Hz (1.41 GHz is 1.41e9)"});
  check_error(replace(good_card, "sources:\n  - https://example.com/datasheet", "sources: https://x.y"),
              {"cards/bad.yaml:testchip:sources", "expected a non-empty list"});
}

TEST_CASE("negative or zero capacities and bandwidths are rejected", "[hwdb][parse]") {
  check_error(replace(good_card, "memory_bandwidth_bytes_per_s: 1.0e12", "memory_bandwidth_bytes_per_s: -1.0e12"),
              {"cards/bad.yaml:testchip:memory_bandwidth_bytes_per_s", "'-1.0e12'", "expected a positive number"});
  check_error(replace(good_card, "memory_bytes: 24.0e9", "memory_bytes: 0"), {"cards/bad.yaml:testchip:memory_bytes"});
  check_error(replace(good_card, "bf16: 200.0e12", "bf16: -5"), {"cards/bad.yaml:testchip:peak_flops.bf16"});
}

TEST_CASE("a missing required key is named", "[hwdb][parse]") {
  check_error(replace(good_card, "memory_bytes: 24.0e9\n", ""),
              {"cards/bad.yaml:testchip:memory_bytes", "missing required key"});
  check_error(replace(good_card, "id: testchip\n", ""), {"cards/bad.yaml:?:id: missing required key"});
}

TEST_CASE("a sparse-looking peak without a note is rejected", "[hwdb][parse]") {
  // H100's datasheet headline fp8 (3,958 TFLOP/s, 2:4 sparse) against its dense bf16 (989 TFLOP/s): 4x.
  auto sparse = replace(good_card, "fp8: 400.0e12", "fp8: 800.0e12");
  check_error(sparse, {"cards/bad.yaml:testchip:peak_flops", "sparse"});
  // A card that explains its genuine dense ratio passes.
  auto explained = sparse + "notes:\n  - \"fp8 is 4x bf16 by design, dense, not sparsity\"\n";
  CHECK(rooftop::hwdb::parse_card(explained, "cards/ok.yaml").peak("fp8").value() == 800e12);
}

TEST_CASE("a price needs its date and source; provenance overrides are checked", "[hwdb][parse]") {
  check_error(good_card + "usd_per_hour: 2.5\n", {"cards/bad.yaml:testchip:usd_per_hour"});
  auto priced = good_card + "usd_per_hour: 2.5\nusd_per_hour_date: \"2026-05\"\nusd_per_hour_source: example\n";
  CHECK(rooftop::hwdb::parse_card(priced, "x.yaml").provenance.at("usd_per_hour") == "assumed");
  auto derived = rooftop::hwdb::parse_card(good_card + "provenance:\n  peak_flops.fp8: derived\n", "x.yaml");
  CHECK(derived.provenance.at("peak_flops.fp8") == "derived");
  check_error(good_card + "provenance:\n  peak_flops.fp8: guessed\n",
              {"cards/bad.yaml:testchip:provenance.peak_flops.fp8"});
  check_error(good_card + "provenance:\n  tdp_watts: derived\n", {"cards/bad.yaml:testchip:provenance.tdp_watts"});
}

TEST_CASE("YAML syntax errors and non-map files name the file", "[hwdb][parse]") {
  CHECK(error_of("id: [unclosed\n").find("cards/bad.yaml:") == 0);
  CHECK(error_of("- just\n- a list\n").find("cards/bad.yaml: expected a chip card") == 0);
}
