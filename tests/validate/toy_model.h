// The toy model the validate tests share: small enough to sweep in milliseconds.
#pragma once
#include "analyzer/model_spec.h"
#include "tests/analyzer/seed_models.h"

namespace rooftop::test {

// A llama-shaped toy: hidden 64, 2 layers, 4 heads of 16, 2 KV heads, FFN 128, vocab 256.
inline ModelSpec toy_model() {
  ModelSpec m = dense_spec("toy-64", 256, 64, 2, 4, 2, 16, 128);
  m.name = "toy";
  m.family = "llama";
  m.max_context = 4096;
  return m;
}

}  // namespace rooftop::test
