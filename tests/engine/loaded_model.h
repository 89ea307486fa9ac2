// Test helper: a model file loaded for the engine tests, with its tokenizer and a thread pool.
#pragma once
#include <map>
#include <memory>
#include <string>

#include "engine/model.h"
#include "engine/tokenizer.h"
#include "kernels/cpu/thread_pool.h"

namespace rooftop::test {

// The GGUF at `path` loaded as a LlamaModel, its tokenizer and a 2-thread pool.
struct LoadedModel {
  engine::LlamaModel model;
  engine::Tokenizer tok;
  kernels::ThreadPool pool{2};
  explicit LoadedModel(const std::string& path)
      : model(engine::load_llama(path)), tok(engine::Tokenizer::from_gguf(model.file)) {}
};

// The model at `path`, loaded once per test process and shared by the tests that ask for it.
inline LoadedModel& loaded(const std::string& path) {
  static std::map<std::string, std::unique_ptr<LoadedModel>> cache;
  auto& m = cache[path];
  if (!m) m = std::make_unique<LoadedModel>(path);
  return *m;
}

// A config's shape as one line to compare: "30 layers, dim 576, 9 heads / 3 KV heads of 64, FFN 1536, vocabulary 49152".
inline std::string llama_shape(const engine::LlamaConfig& c) {
  return std::to_string(c.layers) + " layers, dim " + std::to_string(c.dim) + ", " + std::to_string(c.heads) +
         " heads / " + std::to_string(c.kv_heads) + " KV heads of " + std::to_string(c.head_dim) + ", FFN " +
         std::to_string(c.ffn_dim) + ", vocabulary " + std::to_string(c.vocab);
}

}  // namespace rooftop::test
