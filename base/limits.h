// The bounds on every dimension and size that enters from outside (files, flags), written once.
// They are generous (several times the largest model published) but finite, so that a hostile
// header cannot make a loop run 7e16 times, a product wrap around or an allocation ask for exabytes.
#pragma once
#include <cstdint>

namespace rooftop::limits {

// Model shape (largest published today: 126 layers and hidden 16,384 (Llama 3.1 405B),
// vocabulary 262,144 (Gemma 3), 384 experts (Kimi K2), 128 heads).
inline constexpr int64_t kLayers = 10'000;
inline constexpr int64_t kHidden = 1'000'000;        // hidden, FFN, head_dim, LoRA ranks
inline constexpr int64_t kHeads = 100'000;
inline constexpr int64_t kVocab = 1'000'000'000;
inline constexpr int64_t kExperts = 100'000;
inline constexpr int64_t kContext = int64_t(1) << 32;  // tokens per sequence (4.3e9)
inline constexpr int64_t kBatch = 1'000'000'000;       // sequences or tokens in flight
inline constexpr int64_t kDevices = 1'000'000;          // tp x pp x ep
inline constexpr double kParams = 1e15;                  // parameters of one model (largest today ~2e12)
inline constexpr double kMemoryBytes = 1e18;            // a chip card's memory (1 EB)
inline constexpr double kRate = 1e21;                   // any rate on a card: FLOP/s, B/s (1 zetta)

// Files read whole. (A GGUF file is not read whole: gguf/gguf.cpp bounds each count, string and
// tensor by the bytes left in the file and checks every product for overflow.)
inline constexpr int64_t kTextFileBytes = int64_t(64) << 20;  // a JSON/YAML file (64 MiB)
inline constexpr int kJsonDepth = 64;                         // nesting of objects/arrays in a JSON file

}  // namespace rooftop::limits
