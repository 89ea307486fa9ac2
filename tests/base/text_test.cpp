// base/text.h (ASCII case folding), base/yaml.h (one syntax-error message) and ROOFTOP_JSON_FIELDS (base/json.h).
#include <catch2/catch.hpp>

#include <cctype>
#include <random>
#include <string>

#include "base/json.h"
#include "base/text.h"
#include "base/yaml.h"

TEST_CASE("ascii_lower and ascii_upper fold A-Z only, as the C locale's tolower/toupper") {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    std::string s(1 + rng() % 40, ' ');
    for (auto& c : s) c = static_cast<char>(rng() % 256);  // every byte value, UTF-8 and controls included
    std::string lo = s, up = s;
    for (auto& c : lo)
      if (c >= 0 && std::isupper(static_cast<unsigned char>(c))) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (auto& c : up)
      if (c >= 0 && std::islower(static_cast<unsigned char>(c))) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    CHECK(rooftop::ascii_lower(s) == lo);
    CHECK(rooftop::ascii_upper(s) == up);
  }
  CHECK(rooftop::ascii_lower("NVIDIA H100 80GB HBM3") == "nvidia h100 80gb hbm3");
  CHECK(rooftop::ascii_upper("q4_k") == "Q4_K");
  CHECK(rooftop::ascii_upper("\xc3\xa9") == "\xc3\xa9");  // é (UTF-8) passes through
}

TEST_CASE("parse_yaml names the file and the line of a syntax error") {
  CHECK(rooftop::parse_yaml("a: 1\nb: [2, 3]\n", "f.yaml")["b"][1].as<int>() == 3);
  try {
    rooftop::parse_yaml("a: 1\nb: 2\nc: [3\n", "cards/x.yaml");
    FAIL("no error");
  } catch (const rooftop::InputError& e) {
    const std::string m = e.what();
    CHECK(m.rfind("cards/x.yaml:", 0) == 0);
    CHECK(m.find(": not valid YAML: ") != std::string::npos);
  }
  try {
    rooftop::parse_yaml("a: 1\n  b: 2\n", "y.yaml");  // a mapping value where none may start: line 2
    FAIL("no error");
  } catch (const rooftop::InputError& e) {
    CHECK(std::string(e.what()).rfind("y.yaml:2: not valid YAML: ", 0) == 0);
  }
}

namespace {
struct Record {
  int a = 0;
  double b = 0;
  std::string c;
};
}  // namespace

TEST_CASE("ROOFTOP_JSON_FIELDS writes each member under its own name") {
  std::mt19937 rng(5);
  Record r{static_cast<int>(rng() % 1000) + 1, 0.5 + rng() % 7, "v" + std::to_string(rng() % 99)};
  nlohmann::json j;
  j["kept"] = true;
  ROOFTOP_JSON_FIELDS(j, r, a, b, c);
  CHECK(j.size() == 4);
  CHECK(j["a"] == r.a);
  CHECK(j["b"] == r.b);
  CHECK(j["c"] == r.c);
  CHECK(j["kept"] == true);
}
