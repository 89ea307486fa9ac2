// The bounds on every dimension and size that enters from outside (files, flags), written once.
// They are generous (several times the largest model published) but finite, so that a hostile
// header cannot make a loop run 7e16 times, a product wrap around or an allocation ask for exabytes.
#pragma once
#include <cstdint>
#include <limits>
#include <string>

namespace rooftop::limits {

// Model shape (largest published today: ~130 layers, hidden 25,600 (Llama 3.1 405B: 16,384),
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

// Files and their parts.
inline constexpr int64_t kTensorDims = 8;               // dimensions of one tensor
inline constexpr int64_t kTensorElements = int64_t(1) << 44;  // elements of one tensor
inline constexpr int64_t kStringBytes = int64_t(1) << 24;     // one string in a GGUF header (16 MiB)
inline constexpr int64_t kArrayItems = int64_t(1) << 28;      // one metadata array (268M items)
inline constexpr int64_t kTextFileBytes = int64_t(64) << 20;  // a JSON/YAML file read whole (64 MiB)
inline constexpr int kJsonDepth = 64;                   // nesting of objects/arrays in a JSON file

// a * b, or nullopt-like false when the product leaves [0, max]: every product of sizes read from
// a file goes through here instead of a plain multiplication.
inline bool mul_within(int64_t a, int64_t b, int64_t max, int64_t& out) {
  if (a < 0 || b < 0) return false;
  if (a != 0 && b > max / a) return false;
  out = a * b;
  return out <= max;
}

// Throws InputError "<what> is <v>; expected <lo> to <hi>" unless lo <= v <= hi.
void check_range(const std::string& what, int64_t v, int64_t lo, int64_t hi);
// The same for a real number; NaN and infinities are always refused.
void check_range(const std::string& what, double v, double lo, double hi);

}  // namespace rooftop::limits
