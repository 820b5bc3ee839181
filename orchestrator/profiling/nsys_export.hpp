// Reader of an Nsight Systems SQLite export (`nsys export --type sqlite R.nsys-rep`):
//   CUPTI_ACTIVITY_KIND_KERNEL (start, end, demangledName -> StringIds.id)
//   CUPTI_ACTIVITY_KIND_MEMCPY (start, end, copyKind), CUPTI_ACTIVITY_KIND_MEMSET (start, end)
//   NVTX_EVENTS (start, end, eventType, text, textId -> StringIds.id, domainId): push/pop
//     ranges are eventType 59, and each domain's name is the text of its eventType 75 row
// Tables an export lacks (nsys creates them lazily) contribute nothing. Times are
// nanoseconds. Pure apart from reading the file (opened read-only).
#pragma once

#include <string>

#include "harness/core/status.hpp"
#include "orchestrator/profiling/profile_data.hpp"

namespace scalestudy::profiling {

inline constexpr int kNvtxPushPopRangeEvent = 59;
inline constexpr int kNvtxDomainCreateEvent = 75;

Result<ProfileData> read_nsys_export(const std::string& path);

// "[CUDA memcpy HtoD]" for CUPTI's copy kinds, as nsys stats names them.
std::string memcpy_name(int copy_kind);

}  // namespace scalestudy::profiling
