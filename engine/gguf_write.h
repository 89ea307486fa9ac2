// GGUF v3 writer: a llama model (a file's or a synthetic one) with its metadata, readable by open_gguf and by
// llama.cpp. `rooftop synth` writes model files of any card's shape with it, to measure files nobody tuned for.
#pragma once
#include <map>
#include <string>

#include "gguf/gguf.h"
#include "engine/model.h"

namespace rooftop::engine {

// The GGUF bytes of a metadata value (its type id first, then the value; arrays: element type, count, elements).
void append_gguf_value(std::string& out, const GgufValue& v);

// Writes `m` as a llama GGUF at `path` (atomically): the llama.* keys of m.cfg, then `extra` metadata (for
// example a tokenizer's tokenizer.* keys), then every tensor in llama.cpp's names. InputError when the file
// cannot be written.
void write_llama_gguf(const std::string& path, const LlamaModel& m, const std::map<std::string, GgufValue>& extra);

// The tokenizer.* keys of a GGUF (its vocabulary, merges, special ids), to copy into another file.
std::map<std::string, GgufValue> tokenizer_metadata(const GgufFile& f);

}  // namespace rooftop::engine
