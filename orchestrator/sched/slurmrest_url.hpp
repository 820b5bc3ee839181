// Which slurmrestd URLs may carry a user's token: unix sockets, https:// anywhere, and
// plain http:// only to this machine (localhost, 127.0.0.0/8, ::1), where nobody on the
// network reads the request. Pure; thread-safe.
#pragma once

#include <string>

#include "harness/core/status.hpp"

namespace scalestudy::sched {

// OK, or why `url` is refused (it names the URL's host).
Status check_slurmrest_url(const std::string& url);

}  // namespace scalestudy::sched
