// Runtime profile cards (hwdb/runtimes/*.yaml, embedded in the binary): read strictly, written by the fit.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/runtime.h"

namespace rooftop::hwdb {

// Parse one card. Anything unknown, mistyped or out of range is InputError "file:line: key: what; expected ...",
// and the file is refused whole.
RuntimeProfile parse_runtime_card(std::string_view yaml_text, const std::string& file);

// Every embedded profile (and `generic`, built in) plus each *.yaml of `extra_dirs` (a user card may replace one).
std::vector<RuntimeProfile> load_runtimes(const std::vector<std::string>& extra_dirs = {});

// The profile with this id; unknown id: InputError listing the valid ids.
RuntimeProfile find_runtime(const std::vector<RuntimeProfile>& all, std::string_view id);
std::vector<std::string> runtime_ids(const std::vector<RuntimeProfile>& all);

// The card as YAML (what parse_runtime_card reads back), with `header` as leading comment lines.
std::string runtime_card_yaml(const RuntimeProfile& p, const std::string& header);

}  // namespace rooftop::hwdb
