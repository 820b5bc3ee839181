#include "orchestrator/profiling/nvtx_trace.hpp"

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "orchestrator/profiling/time_totals.hpp"

namespace scalestudy::profiling {

Result<NvtxTrace> read_nvtx_trace(const std::string& path) {
  std::ifstream file(path);
  if (!file) return Status::error(path + ": cannot read the trace");
  std::ostringstream text;
  text << file.rdbuf();
  std::string json_text = text.str();
  nlohmann::json events = nlohmann::json::parse(json_text, nullptr, false);
  if (events.is_discarded()) events = nlohmann::json::parse(json_text + "]", nullptr, false);
  if (events.is_discarded() || !events.is_array()) {
    return Status::error(path + ": not a Chrome trace (a JSON array of events)");
  }

  NvtxTrace trace;
  // Open ranges per (pid, tid, domain): indices into trace.ranges.
  std::map<std::tuple<long, long, std::string>, std::vector<int>> open;
  std::vector<bool> closed;
  for (size_t i = 0; i < events.size(); ++i) {
    const auto& event = events[i];
    if (!event.is_object() || !event.contains("ph") || !event.contains("ts")) {
      return Status::error(path + ": event " + std::to_string(i + 1) +
                           ": field 'ph'/'ts': missing");
    }
    const std::string phase = event.value("ph", "");
    std::string domain = event.value("cat", "");
    long pid = event.value("pid", 0L), tid = event.value("tid", 0L);
    double at_us = event.value("ts", 0.0);
    std::optional<int64_t> payload;
    if (event.contains("args") && event["args"].contains("payload")) {
      payload = event["args"]["payload"].get<int64_t>();
    }
    auto& stack = open[{pid, tid, domain}];
    if (phase == "B") {
      TraceRange range;
      range.domain = domain;
      range.name = event.value("name", "");
      range.pid = pid;
      range.tid = tid;
      range.begin_us = at_us;
      range.depth = static_cast<int>(stack.size());
      range.parent = stack.empty() ? -1 : stack.back();
      range.payload = payload;
      stack.push_back(static_cast<int>(trace.ranges.size()));
      trace.ranges.push_back(std::move(range));
      closed.push_back(false);
    } else if (phase == "E") {
      if (stack.empty()) {
        return Status::error(path + ": event " + std::to_string(i + 1) +
                             ": field 'ph': an end without an open range on thread " +
                             std::to_string(tid));
      }
      trace.ranges[stack.back()].end_us = at_us;
      closed[stack.back()] = true;
      stack.pop_back();
    } else if (phase == "i") {
      trace.marks.push_back({domain, event.value("name", ""), tid, at_us, payload});
    }
  }
  // Drop ranges a crash left open, remapping parents.
  std::vector<int> new_index(trace.ranges.size(), -1);
  std::vector<TraceRange> kept;
  for (size_t i = 0; i < trace.ranges.size(); ++i) {
    if (!closed[i]) continue;
    new_index[i] = static_cast<int>(kept.size());
    TraceRange range = trace.ranges[i];
    range.parent = range.parent < 0 ? -1 : new_index[range.parent];
    kept.push_back(std::move(range));
  }
  trace.ranges = std::move(kept);
  return trace;
}

ProfileData summarize_trace(const NvtxTrace& trace) {
  RangeTotals totals;
  for (const TraceRange& range : trace.ranges) {
    totals.add(range.domain, range.name,
               static_cast<int64_t>((range.end_us - range.begin_us) * 1000.0 + 0.5));
  }
  ProfileData data;
  data.source = "nvtx-trace";
  data.ranges = totals.sorted();
  return data;
}

}  // namespace scalestudy::profiling
