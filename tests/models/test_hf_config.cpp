// HF config.json import: committed sample configs give the same architecture as the cards; bad configs name file and key.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "analyzer/errors.h"
#include "analyzer/params.h"
#include "models/models.h"
#include "tests/models/spec_compare.h"

using namespace rooftop;
using Catch::Matchers::Contains;

namespace {
std::string data(const std::string& rel) { return std::string(ROOFTOP_SOURCE_DIR) + "/tests/models/data/" + rel; }

std::string write_temp(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "rooftop-test-hf" / name;
  std::filesystem::create_directories(dir);
  const auto p = dir / "config.json";
  std::ofstream(p) << text;
  return p.string();
}
}  // namespace

TEST_CASE("each committed config.json imports to its card's architecture", "[models][hf]") {
  const auto db = models::load();
  for (const char* id : {"smollm2-135m", "qwen2.5-0.5b", "mistral-7b", "mixtral-8x7b", "gpt-oss-120b", "deepseek-v3",
                         "qwen3-30b-a3b", "gemma-3-270m"}) {
    INFO(id);
    const ModelSpec imported = models::from_hf_config(data(std::string(id) + "/config.json"));
    const ModelSpec* card = db.find(id);
    REQUIRE(card != nullptr);
    CHECK(imported.id == id);  // the folder name
    CHECK(test::architecture_diff(imported, *card) == "");
    CHECK(count_params(imported).total == count_params(*card).total);
  }
}

TEST_CASE("bad config.json files give one line naming the file and the key", "[models][hf]") {
  const std::string broken = write_temp("broken", "{\"model_type\": \"llama\", ");
  CHECK_THROWS_WITH(models::from_hf_config(broken), Contains(broken + ": invalid JSON"));

  const std::string missing = write_temp("missing", R"({"model_type": "llama", "vocab_size": 10, "hidden_size": 8,
      "num_attention_heads": 2, "intermediate_size": 16})");
  CHECK_THROWS_WITH(models::from_hf_config(missing), Contains(missing + ": key 'num_hidden_layers' is missing"));

  const std::string typed = write_temp("typed", R"({"model_type": "llama", "vocab_size": "many", "hidden_size": 8,
      "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 16})");
  CHECK_THROWS_WITH(models::from_hf_config(typed), Contains("key 'vocab_size' must be a whole number"));

  const std::string moe = write_temp("moe", R"({"model_type": "mixtral", "vocab_size": 10, "hidden_size": 8,
      "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 16, "num_experts_per_tok": 2})");
  CHECK_THROWS_WITH(models::from_hf_config(moe), Contains("key 'num_local_experts' is missing"));

  const std::string unknown = write_temp("unknown", R"({"model_type": "lama"})");
  CHECK_THROWS_WITH(models::from_hf_config(unknown), Contains("unknown model_type 'lama'; closest: llama"));

  CHECK_THROWS_AS(models::from_hf_config("/no/such/dir/config.json"), InputError);
  std::filesystem::remove_all(std::filesystem::temp_directory_path() / "rooftop-test-hf");
}
