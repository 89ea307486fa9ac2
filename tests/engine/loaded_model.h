// Test helper: a model file loaded for the engine tests, with its tokenizer and a thread pool.
#pragma once
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

}  // namespace rooftop::test
