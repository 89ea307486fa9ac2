// The cache-folder rule of scripts/fetch-model.sh, in C++.
#include "engine/model_path.h"

#include <cstdlib>
#include <filesystem>

#include "base/errors.h"

namespace rooftop::engine {

std::string default_model_path() { return cache_dir() + "/models/" + kDefaultModelFile; }
std::string gemma_model_path() { return cache_dir() + "/models/" + kGemmaModelFile; }

namespace {
std::string require(const std::string& p) {
  if (!std::filesystem::is_regular_file(p))
    throw InputError("model file '" + p + "' not found; run scripts/setup.sh to fetch it (or pass --gguf FILE)");
  return p;
}
}  // namespace

std::string require_default_model() { return require(default_model_path()); }

std::string resolve_model(const std::string& arg) {
  if (arg.empty()) return require_default_model();
  if (std::filesystem::exists(arg)) return arg;
  if (arg == "smollm2") return require_default_model();
  if (arg == "gemma3") return require(gemma_model_path());
  return arg;  // opening it reports a missing file
}

}  // namespace rooftop::engine
