// Argument checks at the kernels' public entry points: the engine and the sweeps check their inputs first, so a bad
// shape here is the caller's bug: InternalError (exit 1) with one clear line.
#pragma once
#include <cstdint>
#include <string>

#include "base/errors.h"
#include "kernels/cpu/kernels.h"

namespace rooftop::kernels {

inline void check_size(const char* op, const char* what, int64_t got, int64_t expected) {
  if (got != expected)
    throw InternalError(std::string(op) + ": " + what + " has " + std::to_string(got) + " values; expected " +
                     std::to_string(expected));
}

// k must be a whole number of blocks and the data present.
inline void check_weight(const char* op, const WeightView& W) {
  if (W.m < 0 || W.k < 0)
    throw InternalError(std::string(op) + ": weight shape (" + std::to_string(W.m) + ", " + std::to_string(W.k) +
                     ") is negative; expected (m >= 0, k >= 0)");
  row_bytes(W.format, W.k);  // throws when k is not a multiple of the block size
  if (W.data == nullptr && W.m > 0 && W.k > 0)
    throw InternalError(std::string(op) + ": weight data is null; expected " + std::to_string(W.bytes()) + " bytes");
}

}  // namespace rooftop::kernels
