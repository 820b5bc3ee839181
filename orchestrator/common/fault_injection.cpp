#include "orchestrator/common/fault_injection.hpp"

#include <signal.h>

#include <algorithm>
#include <array>
#include <cstdlib>

namespace scalestudy::common {
namespace {

constexpr std::array<std::string_view, 7> kPoints = {
    "submit.claimed",  "submit.prepared",    "submit.recorded",  "submit.launched",
    "submit.finished", "ingest.run_written", "ingest.committed",
};

}  // namespace

Result<FaultInjector> FaultInjector::parse(const std::string& text) {
  const size_t colon = text.find(':');
  FaultInjector injector;
  injector.point_ = text.substr(0, colon);
  injector.remaining_passes_ = 1;
  if (colon != std::string::npos) {
    const std::string count = text.substr(colon + 1);
    char* end = nullptr;
    const long passes = std::strtol(count.c_str(), &end, 10);
    if (count.empty() || *end != '\0' || passes < 1) {
      return Status::error("SCALESTUDY_FAULT=" + text + ": the pass count must be 1 or more");
    }
    injector.remaining_passes_ = static_cast<int>(passes);
  }
  if (std::find(kPoints.begin(), kPoints.end(), injector.point_) == kPoints.end()) {
    std::string known;
    for (std::string_view point : kPoints)
      known += (known.empty() ? "" : ", ") + std::string(point);
    return Status::error("SCALESTUDY_FAULT=" + text + ": unknown point (known: " + known + ")");
  }
  return injector;
}

Result<FaultInjector> FaultInjector::from_environment() {
  const char* text = std::getenv("SCALESTUDY_FAULT");
  if (text == nullptr || *text == '\0') return FaultInjector();
  return parse(text);
}

void FaultInjector::reached(std::string_view point) {
  if (point != point_ || remaining_passes_ < 1) return;
  if (--remaining_passes_ == 0) raise(SIGKILL);
}

}  // namespace scalestudy::common
