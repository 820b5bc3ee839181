#include "orchestrator/common/utc_time.hpp"

#include <cstdio>
#include <ctime>

namespace scalestudy::common {

std::string format_utc(std::time_t seconds, const char* format) {
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char text[64];
  return std::strftime(text, sizeof(text), format, &parts) > 0 ? text : "";
}

std::string utc_iso8601(std::time_t seconds) {
  return format_utc(seconds, "%Y-%m-%dT%H:%M:%SZ");
}

std::string utc_now_iso8601() {
  return utc_iso8601(std::time(nullptr));
}

std::optional<double> parse_utc_timestamp(const std::string& text) {
  std::tm utc{};
  int year = 0, month = 0, day = 0, hour = 0, minute = 0;
  double second = 0;
  char zone = 0;
  if (std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%lf%c", &year, &month, &day, &hour, &minute,
                  &second, &zone) != 7 ||
      zone != 'Z') {
    return std::nullopt;
  }
  utc.tm_year = year - 1900;
  utc.tm_mon = month - 1;
  utc.tm_mday = day;
  utc.tm_hour = hour;
  utc.tm_min = minute;
  return static_cast<double>(timegm(&utc)) + second;
}

}  // namespace scalestudy::common
