// Nearest-name suggestions for error messages (Levenshtein distance, ties broken by shared prefix).
#include "base/suggest.h"

#include <algorithm>
#include <cctype>

namespace rooftop {
namespace {
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (std::tolower(a[i - 1]) == std::tolower(b[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}
size_t shared_prefix(std::string_view a, std::string_view b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && std::tolower(a[n]) == std::tolower(b[n])) ++n;
  return n;
}
}  // namespace

std::vector<std::string> closest_matches(std::string_view name, const std::vector<std::string>& candidates,
                                         size_t max) {
  std::vector<std::pair<long, std::string>> scored;
  for (const auto& c : candidates) {
    // A candidate that contains the name (or is contained) is a strong match.
    // "h100" -> "h100-sxm": a candidate that contains what was typed is a strong match (not the
    // reverse: "hiden" contains "id", yet means "hidden").
    bool contains = name.size() >= 3 && c.find(name) != std::string::npos;
    long score = static_cast<long>(edit_distance(name, c)) * 4 - static_cast<long>(shared_prefix(name, c)) * 3 -
                 (contains ? 20 : 0);
    scored.emplace_back(score, c);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && out.size() < max; ++i) out.push_back(scored[i].second);
  return out;
}

std::string unknown_id_message(std::string_view what, std::string_view name,
                               const std::vector<std::string>& candidates) {
  std::string msg = "unknown " + std::string(what) + " '" + std::string(name) + "'";
  auto near = closest_matches(name, candidates);
  if (!near.empty()) {
    msg += "; closest: ";
    for (size_t i = 0; i < near.size(); ++i) msg += (i ? ", " : "") + near[i];
  }
  return msg;
}

}  // namespace rooftop
