#include "orchestrator/results/report/run_device.hpp"

#include <set>

namespace scalestudy::results {

Result<RunDevice> load_run_device(PreparedQueries& queries, const std::string& run_id) {
  RunDevice recorded;
  std::set<std::string> kinds;  // sorted: the joined name does not depend on rank order
  Status read = queries.for_each_row(
      "SELECT device FROM m_run WHERE run_id = ?", {run_id}, [&](const sqlite::Statement& row) {
        const std::string device = sqlite::to_string(row.column_value(0));
        const std::string kind = device.substr(0, device.find(':'));  // "cuda:0" → "cuda"
        kinds.insert(kind);
        recorded.gpus += kind == "cuda";
      });
  if (!read) return read;
  for (const std::string& kind : kinds) {
    recorded.device += (recorded.device.empty() ? "" : "+") + kind;
  }
  auto model = queries.value(
      "SELECT value FROM m_provenance WHERE run_id = ? AND key = 'gpu_model' ORDER BY rank LIMIT 1",
      {run_id});
  if (!model) return model.status();
  if (*model) recorded.gpu_model = sqlite::to_string(**model);
  return recorded;
}

}  // namespace scalestudy::results
