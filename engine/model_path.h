// Where the set-up keeps the SmolLM2 model: $ROOFTOP_CACHE_DIR, else $XDG_CACHE_HOME/rooftop, else ~/.cache/rooftop.
#pragma once
#include <string>

#include "base/files.h"  // cache_dir()

namespace rooftop::engine {

inline constexpr const char* kDefaultModelFile = "SmolLM2-135M-Instruct.Q4_1.gguf";

// <cache_dir>/models/SmolLM2-135M-Instruct.Q4_1.gguf (no check that it exists).
std::string default_model_path();
// default_model_path() if the file exists; otherwise InputError telling to run scripts/setup.sh.
std::string require_default_model();

}  // namespace rooftop::engine
