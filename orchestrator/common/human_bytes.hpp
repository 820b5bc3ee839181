// Byte counts for people: "23.5 GiB" (binary units, one decimal above bytes). Used by the
// machine inventory and the download progress line. Pure function.
#pragma once

#include <string>

namespace scalestudy::common {

std::string human_bytes(unsigned long long bytes);

}  // namespace scalestudy::common
