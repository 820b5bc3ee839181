#include "harness/core/nearest_name.hpp"

#include <algorithm>

namespace scalestudy {
namespace {

// Levenshtein distance, one row at a time.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> previous(b.size() + 1), current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t substitute = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitute});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

}  // namespace

std::optional<std::string> nearest_name(const std::string& word,
                                        const std::vector<std::string>& candidates) {
  const std::string* best = nullptr;
  size_t best_distance = 0;
  for (const std::string& candidate : candidates) {
    size_t distance = edit_distance(word, candidate);
    if (best == nullptr || distance < best_distance) {
      best = &candidate;
      best_distance = distance;
    }
  }
  if (best == nullptr) return std::nullopt;
  bool close = best_distance <= std::max<size_t>(2, word.size() / 3) ||
               best->find(word) != std::string::npos || word.find(*best) != std::string::npos;
  if (!close || word.empty()) return std::nullopt;
  return *best;
}

}  // namespace scalestudy
