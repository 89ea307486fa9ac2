// Card parsing: good cards round-trip, bad cards give one-line errors naming file:model:key; load() and resolve().
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>

#include "base/suggest.h"
#include "analyzer/params.h"
#include "models/models.h"

using namespace rooftop;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {
const char* kGood = R"(# a test card
id: tiny
name: Tiny
family: llama
source: test
vocab: 1000
hidden: 64
layers: 2
heads: 4
kv_heads: 2
ffn: 128
tied_embeddings: true
published_params: 1.2e5
)";

std::string with(const std::string& extra) { return std::string(kGood) + extra; }

std::string message_of(const std::string& yaml) {
  try {
    models::parse_card(yaml, "bad.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST_CASE("a good card parses, with head_dim defaulting to hidden / heads", "[models][parser]") {
  const ModelSpec m = models::parse_card(kGood, "good.yaml");
  CHECK(m.id == "tiny");
  CHECK(m.head_dim == 16);
  CHECK(m.kv_heads == 2);
  CHECK(m.tied_embeddings);
  CHECK(*m.published_params == 1.2e5);
  // 1000 x 64 embeddings + 2 x (64x64 q + 64x32 k + 64x32 v + 64x64 o + 3 x 64x128 FFN + 2 x 64 norms) + 64.
  CHECK(count_params(m).total == 64000.0 + 2 * (4096 + 2048 + 2048 + 4096 + 3 * 8192 + 128) + 64);
}

TEST_CASE("random valid cards parse back to the numbers written", "[models][parser]") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    const int64_t kv = 1 + rng() % 8, group = 1 + rng() % 4, hd = 8 * (1 + rng() % 16);
    const int64_t layers = 1 + rng() % 100, vocab = 1 + rng() % 300000, ffn = 1 + rng() % 50000;
    const std::string y = "id: r\nname: R\nfamily: f\nsource: s\nvocab: " + std::to_string(vocab) +
                          "\nhidden: 1024\nlayers: " + std::to_string(layers) + "\nheads: " + std::to_string(kv * group) +
                          "\nkv_heads: " + std::to_string(kv) + "\nhead_dim: " + std::to_string(hd) +
                          "\nffn: " + std::to_string(ffn) + "\n";
    const ModelSpec m = models::parse_card(y, "r.yaml");
    CHECK(m.vocab == vocab);
    CHECK(m.layers == layers);
    CHECK(m.heads == kv * group);
    CHECK(m.kv_heads == kv);
    CHECK(m.head_dim == hd);
    CHECK(m.ffn == ffn);
  }
}

TEST_CASE("an unknown key names file:model:key and suggests the nearest valid key", "[models][parser]") {
  const std::string msg = message_of(with("kv_head: 2\n"));
  CHECK_THAT(msg, Contains("bad.yaml:tiny:kv_head"));
  CHECK_THAT(msg, Contains("unknown key"));
  CHECK_THAT(msg, Contains("did you mean kv_heads?"));
  const std::string nested = message_of(with("moe:\n  experts: 8\n  active_expert: 2\n  expert_ffn: 64\n"));
  CHECK_THAT(nested, Contains("bad.yaml:tiny:moe.active_expert"));
  CHECK_THAT(nested, Contains("did you mean active_experts?"));
}

TEST_CASE("a duplicate key is an error, not silently one of the two", "[models][parser]") {
  const std::string msg = message_of(with("hidden: 128\n"));
  CHECK_THAT(msg, Contains("bad.yaml:tiny:hidden"));
  CHECK_THAT(msg, Contains("duplicate"));
}

TEST_CASE("wrong types, negative numbers and missing keys are errors naming the key", "[models][parser]") {
  std::string text = kGood;
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  CHECK_THAT(message_of(replace("layers: 2", "layers: two")), Contains("bad.yaml:tiny:layers: expected a whole number"));
  CHECK_THAT(message_of(replace("layers: 2", "layers: 2.5")), Contains("bad.yaml:tiny:layers"));
  CHECK_THAT(message_of(replace("layers: 2", "layers: -2")), Contains("bad.yaml:tiny:layers: must be >= 0"));
  CHECK_THAT(message_of(replace("tied_embeddings: true", "tied_embeddings: 3")),
             Contains("bad.yaml:tiny:tied_embeddings: expected true or false"));
  CHECK_THAT(message_of(replace("published_params: 1.2e5", "published_params: lots")),
             Contains("bad.yaml:tiny:published_params: expected a number"));
  CHECK_THAT(message_of(with("ffn_kind: relu\n")), Contains("bad.yaml:tiny:ffn_kind: expected swiglu, geglu or gelu"));
  CHECK_THAT(message_of(replace("vocab: 1000\n", "")), Contains("bad.yaml:tiny:vocab: missing"));
  CHECK_THAT(message_of(replace("kv_heads: 2", "kv_heads: 3")), Contains("multiple of kv_heads"));
  CHECK_THAT(message_of("id: [x\n"), StartsWith("bad.yaml:") && Contains(": not valid YAML: "));
  CHECK_THAT(message_of("- just\n- a list\n"), Contains("expected a map"));
}

TEST_CASE("load() adds user cards from a directory; a user card overrides a shipped one", "[models][database]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "rooftop-test-models-cards";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "tiny.yaml") << kGood;
  std::string smol = "id: smollm2-135m\nname: Mine\nfamily: llama\nsource: mine\nvocab: 10\nhidden: 8\nlayers: 1\nheads: 1\nffn: 8\n";
  std::ofstream(dir / "smol.yaml") << smol;
  const auto base = models::load();
  const auto db = models::load({dir.string()});
  CHECK(db.models.size() == base.models.size() + 1);
  REQUIRE(db.find("tiny") != nullptr);
  CHECK(db.find("smollm2-135m")->name == "Mine");

  std::ofstream(dir / "tiny2.yaml") << kGood;  // the same id twice among user cards
  CHECK_THROWS_WITH(models::load({dir.string()}), Contains("duplicate model id"));
  fs::remove_all(dir);
  CHECK_THROWS_AS(models::load({dir.string()}), InputError);
}

TEST_CASE("resolve(): ids, unknown ids with the closest ids, and paths", "[models][database]") {
  const auto db = models::load();
  CHECK(models::resolve(db, "llama-3.1-8b").hidden == 4096);
  try {
    models::resolve(db, "llama-3.1-8");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), Contains("unknown model 'llama-3.1-8'"));
    CHECK_THAT(std::string(e.what()), Contains("llama-3.1-8b"));
  }
  const std::string cfg = std::string(ROOFTOP_SOURCE_DIR) + "/tests/models/data/smollm2-135m/config.json";
  CHECK(models::resolve(db, cfg).layers == 30);
  CHECK(models::resolve(db, std::string(ROOFTOP_SOURCE_DIR) + "/tests/models/data/smollm2-135m").layers == 30);
  CHECK_THROWS_WITH(models::resolve(db, "/no/such/config.json"), Contains("/no/such/config.json"));
}
