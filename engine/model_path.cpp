// The cache-folder rule of scripts/fetch-model.sh, in C++.
#include "engine/model_path.h"

#include <cstdlib>
#include <filesystem>

#include "base/errors.h"

namespace rooftop::engine {

std::string default_model_path() { return cache_dir() + "/models/" + kDefaultModelFile; }

std::string require_default_model() {
  std::string p = default_model_path();
  if (!std::filesystem::is_regular_file(p))
    throw InputError("model file '" + p + "' not found; run scripts/setup.sh to fetch it (or pass --gguf FILE)");
  return p;
}

}  // namespace rooftop::engine
