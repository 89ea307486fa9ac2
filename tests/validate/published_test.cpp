// The published-measurements loader: the real dataset loads, every record names a chip card and a
// metric, and hostile or incomplete files are refused whole with file:line and the key.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>

#include "base/errors.h"
#include "hwdb/hwdb.h"
#include "validate/published.h"

using rooftop::InputError;
using rooftop::validate::parse_published;
using rooftop::validate::PublishedDataset;

namespace {
const char* kGood = R"(source:
  url: https://example.com/bench
  title: "A benchmark"
  where: "table 2"
  date: 2024-05-01
engine: llama.cpp
engine_version: "b2843"
records:
  - hw: rtx-4090
    hw_count: 1
    interconnect: none
    power_limit_w: null
    model: llama-3.1-8b
    weights: q4_k_m
    kv: f16
    batch: 1
    prompt_tokens: 0
    output_tokens: 512
    metric: tg_tok_s
    value: 130.58
    notes: "tg512"
  - hw: rtx-4090
    hw_count: 1
    model: llama-3.1-8b
    weights: q4_k_m
    batch: 1
    prompt_tokens: 512
    output_tokens: null
    metric: pp_tok_s
    value: 7138.99
)";

// Replaces the first occurrence of `from` in kGood by `to`.
std::string variant(const std::string& from, const std::string& to) {
  std::string s = kGood;
  const auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

std::string refusal(const std::string& text) {
  PublishedDataset d;
  parse_published(kGood, "before.yaml", d);  // a file already loaded
  try {
    parse_published(text, "x.yaml", d);
  } catch (const InputError& e) {
    CHECK(d.records.size() == 2);  // refused whole: nothing of x.yaml was kept, before.yaml intact
    CHECK(d.sources.size() == 1);
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("published: a valid file gives its records as written") {
  PublishedDataset d;
  parse_published(kGood, "x.yaml", d);
  REQUIRE(d.records.size() == 2);
  REQUIRE(d.sources.size() == 1);
  CHECK(d.sources[0].engine == "llama.cpp");
  CHECK(d.sources[0].url == "https://example.com/bench");
  const auto& r = d.records[0];
  CHECK(r.hw == "rtx-4090");
  CHECK(r.value == 130.58);
  CHECK(r.output_tokens == 512);
  CHECK(r.prompt_tokens == 0);
  CHECK(r.line == 9);  // the line of "- hw: rtx-4090"
  CHECK(d.records[1].kv == "default");
  CHECK_FALSE(d.records[1].output_tokens.has_value());
  CHECK_FALSE(d.records[1].ubatch.has_value());
  CHECK(d.duplicates.empty());
  // A stated microbatch (llama-bench -ub 4): kept, and part of the conditions (the same row at another -ub is no duplicate).
  PublishedDataset u;
  parse_published(variant("    output_tokens: null\n", "    output_tokens: null\n    ubatch: 4\n"), "u.yaml", u);
  REQUIRE(u.records.size() == 2);
  CHECK(u.records[1].ubatch == 4);
  parse_published(kGood, "v.yaml", u);
  CHECK(u.duplicates.size() == 1);  // the tg512 rows are the same; the pp512 rows differ in their microbatch
}

TEST_CASE("published: missing, unknown or out-of-range entries are refused with file:line and the key") {
  CHECK_THAT(refusal(variant("  url: https://example.com/bench\n", "")), Catch::Contains("source.url: missing"));
  CHECK_THAT(refusal(variant("https://example.com/bench", "example.com")), Catch::Contains("source.url: expected an http(s) address"));
  CHECK_THAT(refusal(variant("value: 130.58", "value: 0")), Catch::Contains("x.yaml:20: value"));
  CHECK_THAT(refusal(variant("value: 130.58", "value: -3")), Catch::Contains("value"));
  CHECK_THAT(refusal(variant("value: 130.58", "value: .nan")), Catch::Contains("value"));
  CHECK_THAT(refusal(variant("value: 130.58", "value: fast")), Catch::Contains("expected a number"));
  CHECK_THAT(refusal(variant("metric: tg_tok_s", "metric: tokens")), Catch::Contains("metric: unknown 'tokens'"));
  CHECK_THAT(refusal(variant("    batch: 1\n    prompt_tokens: 0", "    batch: 0\n    prompt_tokens: 0")), Catch::Contains("batch: got 0"));
  CHECK_THAT(refusal(variant("    output_tokens: null\n", "    output_tokens: null\n    ubatch: 0\n")), Catch::Contains("ubatch"));
  CHECK_THAT(refusal(variant("    hw_count: 1\n    interconnect", "    hw_count: 1e30\n    interconnect")), Catch::Contains("hw_count"));
  CHECK_THAT(refusal(variant("    notes: \"tg512\"", "    notes: \"tg512\"\n    speedup: 2")), Catch::Contains("speedup: unknown key"));
  CHECK_THAT(refusal(variant("  - hw: rtx-4090\n    hw_count: 1\n    interconnect", "  - hw_count: 1\n    interconnect")), Catch::Contains("hw: missing"));
  CHECK_THAT(refusal("records: [1, 2"), Catch::Contains("not valid YAML"));
  CHECK_THAT(refusal("[[[[[[[["), Catch::Contains("x.yaml"));
  CHECK_THAT(refusal(std::string(kGood) + "engine: vllm\n"), Catch::Contains("duplicate key"));
  CHECK_THAT(refusal(std::string(kGood) + "harness: http\n"), Catch::Contains("harness: got 'http'"));
  PublishedDataset d;
  parse_published(std::string(kGood) + "harness: client\n", "c.yaml", d);
  parse_published(kGood, "p.yaml", d);
  CHECK(d.sources[0].client);
  CHECK_FALSE(d.sources[1].client);  // the default: the engine's own benchmark
}

TEST_CASE("published: the same conditions twice are flagged as duplicates") {
  PublishedDataset d;
  parse_published(kGood, "a.yaml", d);
  parse_published(kGood, "b.yaml", d);
  REQUIRE(d.duplicates.size() == 2);
  CHECK(d.duplicates[0] == "b.yaml:9 duplicates a.yaml:9");
}

TEST_CASE("published: the embedded dataset loads: at least 150 records, 6 engines, 12 chips, most on chips with a card") {
  const PublishedDataset d = rooftop::validate::load_published();
  CHECK(d.records.size() >= 150);  // issue 13: at least 150 records
  std::set<std::string> engines, chips;
  for (const auto& r : d.records) {
    engines.insert(d.sources[size_t(r.source)].engine);
    chips.insert(r.hw);
    CHECK(r.value > 0);
  }
  CHECK(engines.size() >= 6);
  CHECK(chips.size() >= 12);
  for (const auto& s : d.sources) CHECK(s.url.rfind("http", 0) == 0);
  const auto db = rooftop::hwdb::load();
  int with_card = 0;
  for (const auto& r : d.records) with_card += db.find(r.hw) != nullptr;
  WARN(d.records.size() << " records, " << with_card << " on chips with a card, " << engines.size() << " engines, "
                        << chips.size() << " chips, " << d.duplicates.size() << " flagged duplicates");
  CHECK(with_card * 2 > static_cast<int>(d.records.size()));
}
