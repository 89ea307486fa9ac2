// base/json.h: depth and size limits checked before parsing, and error messages that never carry a
// hostile value whole (issue 18: a 100,000-deep list overflowed the stack through json::dump).
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "base/json.h"

using rooftop::InputError;

TEST_CASE("json_depth counts brackets outside strings") {
  CHECK(rooftop::json_depth("1") == 0);
  CHECK(rooftop::json_depth(R"({"a": [1, {"b": []}]})") == 4);
  CHECK(rooftop::json_depth(R"({"a": "[[[[{{{{\"[["})") == 1);  // brackets and escaped quotes inside a string
  CHECK(rooftop::json_depth(R"(["\\", [[]]])") == 3);              // an escaped backslash ends before the quote
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {  // random nesting against its known depth
    const int depth = 1 + static_cast<int>(rng() % 200);
    std::string s;
    for (int i = 0; i < depth; ++i) s += (rng() & 1) ? "[" : "{\"k\":";
    s += "1";
    CHECK(rooftop::json_depth(s) == depth);
  }
}

TEST_CASE("parse_json refuses deep nesting before parsing it, and parses what is within the limit") {
  std::string deep(100000, '[');
  deep += std::string(100000, ']');
  CHECK_THROWS_WITH(rooftop::parse_json(deep, "config.json"), Catch::Contains("nested 100000 levels deep"));
  std::string ok = std::string(64, '[') + "3" + std::string(64, ']');
  nlohmann::json j = rooftop::parse_json(ok, "x");
  for (int i = 0; i < 64; ++i) j = j[0];
  CHECK(j == 3);
  CHECK_THROWS_AS(rooftop::parse_json("[" + ok + "]", "x"), InputError);
}

TEST_CASE("parse_json errors are one short line") {
  const std::string junk = "{\"a\": " + std::string(100000, 'x') + "}";
  try {
    rooftop::parse_json(junk, "f.json");
    FAIL("junk parsed");
  } catch (const InputError& e) {
    const std::string m = e.what();
    CHECK(m.rfind("f.json: invalid JSON", 0) == 0);
    CHECK(m.size() < 300);
    CHECK(m.find('\n') == std::string::npos);
  }
}

TEST_CASE("describe_json shows scalars cut short and containers by size only") {
  CHECK(rooftop::describe_json(nlohmann::json(12)) == "12");
  CHECK(rooftop::describe_json(nlohmann::json("ab\ncd")) == "\"ab\\ncd\"");  // escaped by dump: one line
  CHECK(rooftop::describe_json(nlohmann::json(std::string(1000, 'z'))).size() == 43);  // 40 + "..."
  nlohmann::json deep = 1;
  for (int i = 0; i < 100000; ++i) deep = nlohmann::json::array({std::move(deep)});  // built, never dumped
  CHECK(rooftop::describe_json(deep) == "a list of 1");
  CHECK(rooftop::describe_json(nlohmann::json::object({{"a", 1}, {"b", 2}})) == "an object of 2 keys");
  // The destructor of a 100,000-deep json is iterative in nlohmann 3.11: no stack overflow here.
}
