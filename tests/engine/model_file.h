// Test helper: the SmolLM2 GGUF fetched by scripts/setup.sh; a test FAILS (never skips) when it is absent.
#pragma once
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "engine/model_path.h"

namespace rooftop::test {

inline std::string smollm2_path() {
  std::string p = rooftop::engine::default_model_path();
  if (!std::filesystem::is_regular_file(p))
    FAIL("model file " << p << " is missing: run scripts/setup.sh to fetch it");
  return p;
}

}  // namespace rooftop::test

namespace rooftop::test {

// The Gemma 3 270M Q4_K_M GGUF fetched by scripts/setup.sh; FAILS when absent.
inline std::string gemma3_path() {
  std::string p = rooftop::engine::gemma_model_path();
  if (!std::filesystem::is_regular_file(p))
    FAIL("model file " << p << " is missing: run scripts/setup.sh to fetch it");
  return p;
}

}  // namespace rooftop::test
