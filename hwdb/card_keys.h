// The keys a chip card may hold, their types, and which are required (one table, used by the parser and tests).
#pragma once
#include <string>
#include <vector>

namespace rooftop::hwdb {

enum class CardValue {
  text,          // a non-empty string
  positive,      // a number > 0 (bytes, bytes/s, watts, dollars)
  count,         // an integer > 0
  text_list,     // a list of strings
  flops_map,     // format name -> positive FLOP/s
  provenance_map // figure key -> "datasheet" | "derived" | "assumed"
};

struct CardKey {
  const char* name;
  CardValue value;
  bool required;
  const char* expected;  // what the error message says was expected
};

// Every valid top-level key of a card, in the order cards write them.
const std::vector<CardKey>& card_keys();
// Every valid compute format under peak_flops.
const std::vector<std::string>& flops_formats();
// Valid values of a card's `architecture` key.
const std::vector<std::string>& architectures();
// Figure keys a `provenance:` entry may name: numeric top-level keys and "peak_flops.<format>".
std::vector<std::string> provenance_keys();

}  // namespace rooftop::hwdb
