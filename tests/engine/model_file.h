// Test helper: the SmolLM2 GGUF fetched by scripts/setup.sh; a test FAILS (never skips) when it is absent.
#pragma once
#include <catch2/catch.hpp>

#include "engine/quant_error.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "engine/model_path.h"

namespace rooftop::test {

// The model file at `p`, which scripts/setup.sh fetches; FAILS when it is absent.
inline std::string required_model_file(std::string p) {
  if (!std::filesystem::is_regular_file(p))
    FAIL("model file " << p << " is missing: run scripts/setup.sh to fetch it");
  return p;
}

// The SmolLM2-135M GGUF fetched by scripts/setup.sh; FAILS when absent.
inline std::string smollm2_path() { return required_model_file(rooftop::engine::default_model_path()); }

// The Gemma 3 270M Q4_K_M GGUF fetched by scripts/setup.sh; FAILS when absent.
inline std::string gemma3_path() { return required_model_file(rooftop::engine::gemma_model_path()); }

}  // namespace rooftop::test

namespace rooftop::test {

// tests/data/perplexity_paragraph.txt, the project's fixed English paragraph.
inline std::string perplexity_paragraph() {
  std::ifstream f(std::string(ROOFTOP_SOURCE_DIR) + "/tests/data/perplexity_paragraph.txt");
  REQUIRE(f);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// exp(mean over i of -log softmax(logits row i)[ids[i + 1]]) (engine/quant_error.h).
inline double perplexity(std::span<const float> logits, const std::vector<int32_t>& ids, int64_t V) {
  return engine::perplexity(logits, ids, V);
}

}  // namespace rooftop::test
