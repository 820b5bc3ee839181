// redact(): a secret (an API token) replaced by a placeholder wherever it occurs in a
// message, so errors that quote requests or answers never print it. Stateless.
#pragma once

#include <string>

namespace scalestudy::sched {

// Every occurrence of `secret` in `text` becomes `placeholder`; replacements are never
// searched again, so a secret that occurs inside the placeholder cannot loop. An empty
// secret leaves `text` as it is.
std::string redact(const std::string& text, const std::string& secret,
                   const std::string& placeholder);

}  // namespace scalestudy::sched
