// The toy model the validate tests share: small enough to sweep in milliseconds.
#pragma once
#include "analyzer/model_spec.h"

namespace rooftop::test {

// A llama-shaped toy: hidden 64, 2 layers, 4 heads of 16, 2 KV heads, FFN 128, vocab 256.
inline ModelSpec toy_model() {
  ModelSpec m;
  m.id = "toy-64";
  m.name = "toy";
  m.family = "llama";
  m.vocab = 256;
  m.hidden = 64;
  m.layers = 2;
  m.heads = 4;
  m.kv_heads = 2;
  m.head_dim = 16;
  m.ffn = 128;
  m.max_context = 4096;
  return m;
}

}  // namespace rooftop::test
