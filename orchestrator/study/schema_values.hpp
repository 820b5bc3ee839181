// The typed value readers every section of the study schema shares. Each reads one node and
// reports a problem as "file:line:col: field 'a.b': message" into Diagnostics, then gives
// nullopt (or nothing), so a section reads on and one pass shows every error. Pure
// functions apart from the diagnostics they add to.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/study/config_tree.hpp"
#include "orchestrator/study/diagnostics.hpp"

namespace scalestudy {

// Reports each key of `map` not in `allowed` (with a did-you-mean); `prefix` leads the
// field names ("slurm.").
void check_keys(const ConfigNode& map, const std::string& prefix,
                const std::vector<std::string>& allowed, Diagnostics& diagnostics);

// Whether `node` is a map; reports it when not.
bool expect_map(const ConfigNode& node, const std::string& field, Diagnostics& diagnostics);

// A single value in its canonical text (canonical_scalar).
std::optional<std::string> read_scalar(const ConfigNode& node, const std::string& field,
                                       Diagnostics& diagnostics);

// A scalar that may reach a job script line: no control characters (a newline in an
// #SBATCH line would start a new shell command).
std::optional<std::string> read_line_scalar(const ConfigNode& node, const std::string& field,
                                            Diagnostics& diagnostics);

// A whole number from `minimum` to 10^9.
std::optional<long long> read_integer(const ConfigNode& node, const std::string& field,
                                      long long minimum, Diagnostics& diagnostics);

// A time limit longer than zero (MM, HH:MM:SS or D-HH:MM:SS), in minutes.
std::optional<int> read_time_limit(const ConfigNode& node, const std::string& field,
                                   Diagnostics& diagnostics);

// A memory size above zero (16G, 4000M), in MB.
std::optional<long long> read_memory_size(const ConfigNode& node, const std::string& field,
                                          Diagnostics& diagnostics);

// A number no smaller than zero: percentages, thresholds and budgets.
std::optional<double> read_non_negative_number(const ConfigNode& node, const std::string& field,
                                               Diagnostics& diagnostics);

// Whether a list field also takes a single scalar, as a list of one.
enum class SingleValue { kRefused, kListOfOne };

// The items of a list field; an empty list, or a value that is no list, is reported.
std::vector<const ConfigNode*> read_list(const ConfigNode& node, const std::string& field,
                                         Diagnostics& diagnostics,
                                         SingleValue single = SingleValue::kRefused);

// "field[index]": the field name of a list item.
std::string indexed_field(const std::string& field, size_t index);

// Text that may carry ${references}: syntax-checked now, substituted per run.
void check_reference_syntax(const ConfigNode& node, const std::string& field,
                            const std::string& text, Diagnostics& diagnostics);

// A string run setting: its references checked, and where it was written kept in
// `field_locations` so a substitution error per run can point there.
void remember_setting(const std::string& field, const ConfigNode& node, const std::string& text,
                      std::map<std::string, SourceLocation>& field_locations,
                      Diagnostics& diagnostics);

}  // namespace scalestudy
