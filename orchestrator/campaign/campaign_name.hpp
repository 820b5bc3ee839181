// A study measured again is a new campaign (`submit`/`run --campaign NAME`): its database
// and run folders are the study's with "@NAME" added (<results>/<study>@<name>.sqlite,
// <results>/<study>@<name>/runs/<run id>/), so resume, idempotency and the fault guarantees
// hold within each campaign as they do for a study, and run ids stay as they are. Without
// the flag the study's own database is its default campaign. Pure functions.
#pragma once

#include <string>

#include "harness/core/status.hpp"

namespace scalestudy::campaign {

inline constexpr const char* kDefaultCampaign = "default";

// The name a database and run folders are stored under: `study`, or "study@campaign".
std::string campaign_storage_name(const std::string& study, const std::string& campaign);

// A campaign name as given: 1 to 64 of [A-Za-z0-9._-], not starting with '.' or '-', and
// not "auto" or "default" (which name the others); an error saying so otherwise.
Status check_campaign_name(const std::string& name);

// `--campaign auto`: the UTC date and the workload's build, "20261127-3cc7183-9f8e7d6c"
// (the git commit's first 7 digits when the binary says it, and the first 8 of the
// binary's content key), so measuring one build again the same day resumes its campaign
// and any other build starts one.
// `git_commit` "unknown" or empty: not said; `content_key` as binary_content_key gives it
// ("build-id-<hex>", "sha256-<hex>").
std::string auto_campaign_name(const std::string& utc_date_yyyymmdd, const std::string& git_commit,
                               const std::string& content_key);

}  // namespace scalestudy::campaign
