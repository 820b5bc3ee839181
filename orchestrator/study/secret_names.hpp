// Which environment variable names look like they hold a secret (HF_TOKEN, SLURM_JWT,
// AWS_SECRET_ACCESS_KEY, DB_PASSWORD): such values are never written into a study, a job
// script, a database, a report or a site page. A study names them under `env_passthrough`
// and the job receives them from the submitter's environment. Pure; thread-safe.
#pragma once

#include <string_view>

namespace scalestudy {

// Whether `name`, in any case, contains TOKEN, SECRET, PASSWORD, PASSWD, KEY, JWT or
// CREDENTIAL.
bool looks_secret(std::string_view name);

// What stands for a secret value wherever one would be shown.
inline constexpr std::string_view kSecretNotShown = "(secret, not shown)";

}  // namespace scalestudy
