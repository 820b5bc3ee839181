// UTC times as the databases hold them, ISO-8601 with a Z ("2025-01-01T00:10:00Z"): the
// study database's claim, submit and attempt times, ingest's, slurmrestd's epoch seconds,
// the run databases' windows.
#pragma once

#include <ctime>
#include <optional>
#include <string>

namespace scalestudy::common {

// `seconds` since the epoch as UTC in strftime's `format`.
std::string format_utc(std::time_t seconds, const char* format);

// `seconds` since the epoch, and now, to the second: "2025-01-01T00:10:00Z".
std::string utc_iso8601(std::time_t seconds);
std::string utc_now_iso8601();

// "2025-01-01T00:10:00Z" or with a fraction ("…:00.250Z") → seconds since the epoch;
// nothing for any other form.
std::optional<double> parse_utc_timestamp(const std::string& text);

}  // namespace scalestudy::common
