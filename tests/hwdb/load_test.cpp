// load(): user folders add or replace cards; missing folders, reserved ids and unknown ids are InputErrors.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>

#include "base/suggest.h"
#include "hwdb/hwdb.h"

namespace fs = std::filesystem;

namespace {
fs::path fresh_dir(const std::string& tag) {
  std::random_device rd;
  fs::path p = fs::temp_directory_path() / ("rooftop-hwdb-" + tag + "-" + std::to_string(rd()));
  fs::create_directories(p);
  return p;
}
void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
std::string card(const std::string& id, double bandwidth) {
  return "id: " + id + "\nname: " + id + "\nvendor: Me\nkind: gpu\nmemory_bytes: 80.0e9\n"
         "memory_bandwidth_bytes_per_s: " + std::to_string(bandwidth) + "\npeak_flops:\n  bf16: 1.0e15\n"
         "sources:\n  - https://example.com/x\n";
}
}  // namespace

TEST_CASE("a user folder adds new cards and replaces built-in ids", "[hwdb][load]") {
  auto dir = fresh_dir("user");
  write(dir / "mine.yaml", card("my-chip", 1.25e12));
  write(dir / "h100.yaml", card("h100-sxm", 3.0e12));
  write(dir / "readme.txt", "not a card");
  const size_t embedded = rooftop::hwdb::load().chips.size();
  auto db = rooftop::hwdb::load({dir.string()});
  REQUIRE(db.find("my-chip"));
  CHECK(db.get("my-chip").memory_bandwidth_bytes_per_s == 1.25e12);
  CHECK(db.get("h100-sxm").memory_bandwidth_bytes_per_s == 3.0e12);
  CHECK(db.get("h100-sxm").file == (dir / "h100.yaml").string());
  CHECK(db.chips.size() == embedded + 1);  // one new id; h100-sxm replaced, not added
  fs::remove_all(dir);
}

TEST_CASE("two user cards with one id, a reserved id and a missing folder are errors", "[hwdb][load]") {
  auto dir = fresh_dir("dup");
  write(dir / "a.yaml", card("twin", 1e12));
  write(dir / "b.yaml", card("twin", 2e12));
  CHECK_THROWS_WITH(rooftop::hwdb::load({dir.string()}), Catch::Contains("b.yaml:twin:id: duplicate id"));
  fs::remove_all(dir);

  auto cpu_dir = fresh_dir("cpu");
  write(cpu_dir / "cpu.yaml", card("cpu", 1e12));
  CHECK_THROWS_WITH(rooftop::hwdb::load({cpu_dir.string()}), Catch::Contains("cpu.yaml:cpu:id: 'cpu' is reserved"));
  fs::remove_all(cpu_dir);

  CHECK_THROWS_AS(rooftop::hwdb::load({"/nonexistent/rooftop-cards"}), rooftop::InputError);
  CHECK_THROWS_WITH(rooftop::hwdb::load({"/nonexistent/rooftop-cards"}), Catch::Contains("no such folder"));
}

TEST_CASE("a bad user card fails the load naming its file", "[hwdb][load]") {
  auto dir = fresh_dir("bad");
  write(dir / "typo.yaml", card("typo", 1e12) + "tdp_wats: 300\n");
  CHECK_THROWS_WITH(rooftop::hwdb::load({dir.string()}),
                    Catch::Contains("typo.yaml:typo:tdp_wats: unknown key; did you mean 'tdp_watts'?"));
  fs::remove_all(dir);
}

TEST_CASE("an unknown id names the closest ids", "[hwdb][load]") {
  auto db = rooftop::hwdb::load();
  CHECK_THROWS_AS(db.get("h100"), rooftop::InputError);
  CHECK_THROWS_WITH(db.get("h100"), Catch::Contains("unknown chip 'h100'") && Catch::Contains("h100-sxm"));
  CHECK(db.find("h100") == nullptr);
}
