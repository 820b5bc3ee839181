// Whether a text is TOML (1.0) by its syntax: tables and arrays of tables, dotted and
// quoted keys, the four kinds of string with their escapes, integers (decimal, hex, octal,
// binary), floats, booleans, dates and times, arrays over several lines and inline tables.
// Only the syntax: a key defined twice is not looked for. For rendered run files
// (workload_files.hpp); the orchestrator has no TOML library. Pure function; thread-safe.
#pragma once

#include <string_view>

#include "harness/core/status.hpp"

namespace scalestudy {

// OK, or an error "line N: what was expected".
Status check_toml_syntax(std::string_view text);

}  // namespace scalestudy
