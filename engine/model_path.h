// Where the set-up keeps the two real models: $ROOFTOP_CACHE_DIR, else $XDG_CACHE_HOME/rooftop, else ~/.cache/rooftop.
#pragma once
#include <string>

#include "base/files.h"  // cache_dir()

namespace rooftop::engine {

inline constexpr const char* kDefaultModelFile = "SmolLM2-135M-Instruct.Q4_1.gguf";
inline constexpr const char* kGemmaModelFile = "gemma-3-270m-q4_k_m.gguf";

// <cache_dir>/models/SmolLM2-135M-Instruct.Q4_1.gguf (no check that it exists).
std::string default_model_path();
// <cache_dir>/models/gemma-3-270m-q4_k_m.gguf (no check that it exists).
std::string gemma_model_path();
// default_model_path() if the file exists; otherwise InputError telling to run scripts/setup.sh.
std::string require_default_model();
// The file a --gguf argument names: "" = the SmolLM2 file; "smollm2" and "gemma3" = the fetched files (unless a
// file of that name exists here); anything else is a path. InputError when a fetched file is missing.
std::string resolve_model(const std::string& arg);

}  // namespace rooftop::engine
