// Messages for bad input: the closest valid choices to a wrong name (InputError is in base/errors.h).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "base/errors.h"

namespace rooftop {

// Up to `max` candidates closest to `name` (edit distance, then shared prefix), best first.
std::vector<std::string> closest_matches(std::string_view name, const std::vector<std::string>& candidates,
                                         size_t max = 3);

// "unknown chip 'h100'; closest: h100-sxm, h200, a100-80g" style message helper.
std::string unknown_id_message(std::string_view what, std::string_view name,
                               const std::vector<std::string>& candidates);

}  // namespace rooftop
