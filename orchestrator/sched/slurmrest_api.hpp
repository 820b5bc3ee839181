// slurmrestd's data parsers ("API versions", the v0.0.NN in every path): which ones this
// backend speaks, which ones a server offers, and the one a client uses. SLURM keeps a
// parser for about three releases (22.05: v0.0.36-38; 23.02: -39; 23.11: v0.0.39-41;
// 24.11: v0.0.40-42; 25.11: v0.0.42-44; 26.05: v0.0.42-45), so a client must ask the
// server (SLURM's own guide: read /openapi/v3, use the highest version both sides know).
// The shapes that changed at v0.0.40 (numbers as {set, infinite, number}, states as flag
// lists, the job's script and environment inside "job") are read by the parsers
// themselves (slurmrest_values.hpp) and written by rest_submit_body. Pure.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::sched {

// One data parser, "v0.0.<minor>".
struct RestApi {
  int minor = 38;

  std::string name() const { return "v0.0." + std::to_string(minor); }
  // v0.0.40 on: the job's script inside "job", its environment a list of NAME=value,
  // node counts as text, limits as {set, infinite, number}, the batch signal's flags.
  bool typed_numbers() const { return minor >= 40; }
  bool operator<(const RestApi& other) const { return minor < other.minor; }
  bool operator==(const RestApi& other) const { return minor == other.minor; }
};

// "v0.0.42" (or "dbv0.0.42", as 22.05 names its accounting paths); an error for anything
// else.
Result<RestApi> parse_rest_api(const std::string& text);

// The versions this backend speaks, newest first: v0.0.45 down to v0.0.40, and v0.0.38
// (v0.0.39, only ever the newest of 23.02, is left out: 23.02 also serves v0.0.38).
std::vector<RestApi> spoken_rest_apis();

// Every version a server's OpenAPI document (GET /openapi/v3) has paths for, ascending.
std::vector<RestApi> offered_rest_apis(const nlohmann::json& openapi);

// "v0.0.40, v0.0.41, v0.0.42".
std::string rest_api_names(const std::vector<RestApi>& apis);

// The version to speak: `pinned` when set (an error when this backend does not speak it,
// or `offered` does not have it, naming what the server offers), else the newest
// version in both `offered` and spoken_rest_apis() (an error when none is).
Result<RestApi> choose_rest_api(const std::vector<RestApi>& offered, const std::string& pinned);

}  // namespace scalestudy::sched
