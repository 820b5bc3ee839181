// "Did you mean …?" for every unknown name a user can type: CLI commands and flags, study
// YAML keys, `where` names, workload flags. Pure function; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace scalestudy {

// The candidate with the smallest edit distance to `word`, when it is close: at most a
// third of the word changes (at least 2 edits allowed), or one contains the other.
std::optional<std::string> nearest_name(const std::string& word,
                                        const std::vector<std::string>& candidates);

}  // namespace scalestudy
