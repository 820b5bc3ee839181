#include "orchestrator/profiling/breakdown_report.hpp"

#include <cstdarg>
#include <cstdio>

namespace scalestudy::profiling {
namespace {

std::string format(const char* pattern, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* pattern, ...) {
  char text[512];
  va_list args;
  va_start(args, pattern);
  std::vsnprintf(text, sizeof(text), pattern, args);
  va_end(args);
  return text;
}

void render_categories(const StoredProfile& profile, int bar_width, std::string& out) {
  int64_t total_ns = 0;
  for (const CategoryTime& time : profile.categories) total_ns += time.total_ns;
  if (total_ns == 0) return;
  const double ranks = profile.ranks > 0 ? profile.ranks : 1;
  out += "  GPU time by kernel category (per rank)\n";
  out += format("    %-12s %12s %7s\n", "category", "time_ms", "share");
  for (const CategoryTime& time : profile.categories) {
    double share = static_cast<double>(time.total_ns) / static_cast<double>(total_ns);
    out += format("    %-12s %12.3f %6.1f%% ", category_name(time.category),
                  static_cast<double>(time.total_ns) / ranks / 1e6, share * 100.0);
    out += std::string(static_cast<size_t>(share * bar_width + 0.5), '#');
    out += '\n';
  }
  out += format("    %-12s %12.3f\n", "total", static_cast<double>(total_ns) / ranks / 1e6);
}

void render_ranges(const StoredProfile& profile, std::string& out) {
  if (profile.ranges.empty()) return;
  const double ranks = profile.ranks > 0 ? profile.ranks : 1;
  out += "  NVTX ranges (per rank)\n";
  out += format("    %-28s %8s %12s %10s\n", "range", "count", "total_ms", "mean_ms");
  for (const RangeTime& range : profile.ranges) {
    std::string name = range.domain.empty() ? range.name : range.domain + ":" + range.name;
    double total_ms = static_cast<double>(range.total_ns) / ranks / 1e6;
    double count = static_cast<double>(range.instances) / ranks;
    out += format("    %-28s %8.0f %12.3f %10.3f\n", name.c_str(), count, total_ms,
                  count > 0 ? total_ms / count : 0.0);
  }
}

}  // namespace

std::string render_profile_breakdown(const std::vector<StoredProfile>& profiles, int bar_width) {
  if (profiles.empty()) return "no profile data (run `scalestudy profile-report STUDY --ingest`)\n";
  std::string out;
  for (const StoredProfile& profile : profiles) {
    out += format("run %s (%s, %d rank%s)\n", profile.run_id.c_str(), profile.source.c_str(),
                  profile.ranks, profile.ranks == 1 ? "" : "s");
    render_categories(profile, bar_width, out);
    render_ranges(profile, out);
  }
  return out;
}

}  // namespace scalestudy::profiling
