// UTC times as the databases hold them, ISO-8601 with a Z ("2025-01-01T00:10:00Z"): the
// study database's claim, submit and attempt times, the run databases' windows.
#pragma once

#include <optional>
#include <string>

namespace scalestudy::common {

// Now, to the second: "2025-01-01T00:10:00Z".
std::string utc_now_iso8601();

// "2025-01-01T00:10:00Z" or with a fraction ("…:00.250Z") → seconds since the epoch;
// nothing for any other form.
std::optional<double> parse_utc_timestamp(const std::string& text);

}  // namespace scalestudy::common
