// Bad chip cards are rejected with one line naming file:chip:key and what was expected.
#include <catch2/catch.hpp>

#include <string>

#include "analyzer/errors.h"
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

}  // namespace

TEST_CASE("a good card parses with datasheet provenance", "[hwdb][parse]") {
  auto c = rooftop::hwdb::parse_card(good_card, "cards/good.yaml");
  CHECK(c.id == "testchip");
  CHECK(c.memory_bytes == 24e9);
  CHECK(*c.peak("fp8") == 400e12);
  CHECK(!c.peak("fp4"));
  CHECK(!c.tdp_watts);
  CHECK(c.compute_units.value_or(0) == 64);
  CHECK(c.provenance.at("memory_bandwidth_bytes_per_s") == "datasheet");
  CHECK(c.provenance.at("peak_flops.bf16") == "datasheet");
  CHECK(c.file == "cards/good.yaml");
}

TEST_CASE("a misspelled key is rejected with the nearest valid key", "[hwdb][parse]") {
  auto msg = error_of(replace(good_card, "memory_bandwidth_bytes_per_s", "memory_bandwith_bytes_per_s"));
  CHECK(msg.find("cards/bad.yaml:testchip:memory_bandwith_bytes_per_s") != std::string::npos);
  CHECK(msg.find("unknown key") != std::string::npos);
  CHECK(msg.find("did you mean 'memory_bandwidth_bytes_per_s'") != std::string::npos);
}

TEST_CASE("an unknown compute format is rejected with the nearest format", "[hwdb][parse]") {
  auto msg = error_of(replace(good_card, "  fp8:", "  fp8e4:"));
  CHECK(msg.find("cards/bad.yaml:testchip:peak_flops.fp8e4") != std::string::npos);
  CHECK(msg.find("did you mean 'fp8'") != std::string::npos);
}

TEST_CASE("a duplicate key is rejected even though YAML keeps one", "[hwdb][parse]") {
  auto msg = error_of(good_card + "memory_bytes: 48.0e9\n");
  CHECK(msg.find("cards/bad.yaml:testchip:memory_bytes") != std::string::npos);
  CHECK(msg.find("duplicate key") != std::string::npos);
  auto nested = error_of(replace(good_card, "  fp8: 400.0e12\n", "  fp8: 400.0e12\n  fp16: 100.0e12\n"));
  CHECK(nested.find("cards/bad.yaml:testchip:peak_flops.fp16") != std::string::npos);
  CHECK(nested.find("duplicate key") != std::string::npos);
}

TEST_CASE("a value of the wrong type is rejected naming what was expected", "[hwdb][parse]") {
  auto msg = error_of(replace(good_card, "memory_bytes: 24.0e9", "memory_bytes: 24 GB"));
  CHECK(msg.find("cards/bad.yaml:testchip:memory_bytes") != std::string::npos);
  CHECK(msg.find("'24 GB'") != std::string::npos);
  CHECK(msg.find("expected a positive number of bytes") != std::string::npos);
  auto units = error_of(replace(good_card, "compute_units: 64", "compute_units: 64.5"));
  CHECK(units.find("cards/bad.yaml:testchip:compute_units") != std::string::npos);
  CHECK(units.find("integer") != std::string::npos);
  auto list = error_of(replace(good_card, "sources:\n  - https://example.com/datasheet", "sources: https://x.y"));
  CHECK(list.find("cards/bad.yaml:testchip:sources") != std::string::npos);
  CHECK(list.find("expected a non-empty list") != std::string::npos);
}

TEST_CASE("negative or zero capacities and bandwidths are rejected", "[hwdb][parse]") {
  auto neg = error_of(replace(good_card, "memory_bandwidth_bytes_per_s: 1.0e12", "memory_bandwidth_bytes_per_s: -1.0e12"));
  CHECK(neg.find("cards/bad.yaml:testchip:memory_bandwidth_bytes_per_s") != std::string::npos);
  CHECK(neg.find("'-1.0e12'") != std::string::npos);
  CHECK(neg.find("expected a positive number") != std::string::npos);
  auto zero = error_of(replace(good_card, "memory_bytes: 24.0e9", "memory_bytes: 0"));
  CHECK(zero.find("cards/bad.yaml:testchip:memory_bytes") != std::string::npos);
  auto flops = error_of(replace(good_card, "bf16: 200.0e12", "bf16: -5"));
  CHECK(flops.find("cards/bad.yaml:testchip:peak_flops.bf16") != std::string::npos);
}

TEST_CASE("a missing required key is named", "[hwdb][parse]") {
  auto msg = error_of(replace(good_card, "memory_bytes: 24.0e9\n", ""));
  CHECK(msg.find("cards/bad.yaml:testchip:memory_bytes") != std::string::npos);
  CHECK(msg.find("missing required key") != std::string::npos);
  auto no_id = error_of(replace(good_card, "id: testchip\n", ""));
  CHECK(no_id.find("cards/bad.yaml:?:id: missing required key") != std::string::npos);
}

TEST_CASE("a sparse-looking peak without a note is rejected", "[hwdb][parse]") {
  // H100's datasheet headline fp8 (3,958 TFLOP/s, 2:4 sparse) against its dense bf16 (989 TFLOP/s): 4x.
  auto sparse = replace(good_card, "fp8: 400.0e12", "fp8: 800.0e12");
  auto msg = error_of(sparse);
  CHECK(msg.find("cards/bad.yaml:testchip:peak_flops") != std::string::npos);
  CHECK(msg.find("sparse") != std::string::npos);
  // A card that explains its genuine dense ratio passes.
  auto explained = sparse + "notes:\n  - \"fp8 is 4x bf16 by design, dense, not sparsity\"\n";
  CHECK(rooftop::hwdb::parse_card(explained, "cards/ok.yaml").peak("fp8").value() == 800e12);
}

TEST_CASE("a price needs its date and source; provenance overrides are checked", "[hwdb][parse]") {
  auto msg = error_of(good_card + "usd_per_hour: 2.5\n");
  CHECK(msg.find("cards/bad.yaml:testchip:usd_per_hour") != std::string::npos);
  auto priced = good_card + "usd_per_hour: 2.5\nusd_per_hour_date: \"2026-05\"\nusd_per_hour_source: example\n";
  CHECK(rooftop::hwdb::parse_card(priced, "x.yaml").provenance.at("usd_per_hour") == "assumed");
  auto derived = rooftop::hwdb::parse_card(good_card + "provenance:\n  peak_flops.fp8: derived\n", "x.yaml");
  CHECK(derived.provenance.at("peak_flops.fp8") == "derived");
  auto bad_how = error_of(good_card + "provenance:\n  peak_flops.fp8: guessed\n");
  CHECK(bad_how.find("cards/bad.yaml:testchip:provenance.peak_flops.fp8") != std::string::npos);
  auto absent = error_of(good_card + "provenance:\n  tdp_watts: derived\n");
  CHECK(absent.find("cards/bad.yaml:testchip:provenance.tdp_watts") != std::string::npos);
}

TEST_CASE("YAML syntax errors and non-map files name the file", "[hwdb][parse]") {
  CHECK(error_of("id: [unclosed\n").find("cards/bad.yaml:") == 0);
  CHECK(error_of("- just\n- a list\n").find("cards/bad.yaml: expected a chip card") == 0);
}
