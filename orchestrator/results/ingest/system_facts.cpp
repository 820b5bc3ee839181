#include "orchestrator/results/ingest/system_facts.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "orchestrator/results/ingest/measurement_schema.hpp"

namespace scalestudy::results {
namespace {

struct Declared {
  std::string system;  // its label
  int gpus = -1;       // -1: not declared
  std::string gpu_model, hostname_pattern;
  int cores = 0;  // 0: not declared
  // The runs execute on the host `detect` matches (the local executor); a batch system's
  // pattern names its login nodes, not the compute nodes its runs see.
  bool runs_on_detected_host = false;
};

// What the ranks of one run saw.
struct Observed {
  std::set<std::string> hosts;
  int gpus = 0;  // CUDA devices visible to rank 0; 0 on a CPU run
  std::string gpu_model;
  int cores = 0;  // hardware threads of rank 0's host
};

std::optional<Declared> declared_of(const std::string& spec_json) {
  auto spec = nlohmann::json::parse(spec_json, nullptr, false);
  if (!spec.is_object() || !spec.contains("system")) return std::nullopt;
  const nlohmann::json& system = spec["system"];
  if (!system.is_object() || system.value("id", "").empty()) return std::nullopt;
  Declared declared;
  declared.system = system.value("label", system.value("id", ""));
  const nlohmann::json node = system.value("node", nlohmann::json::object());
  declared.gpus = node.value("gpus", -1);
  declared.gpu_model = node.value("gpu_model", "");
  declared.cores = node.value("cores", 0);
  declared.hostname_pattern = node.value("hostname_pattern", "");
  declared.runs_on_detected_host = system.value("scheduler", "") == "local";
  return declared;
}

int whole_number(const std::string& text) {
  try {
    return std::stoi(text);
  } catch (const std::exception&) {
    return 0;
  }
}

Result<std::map<std::string, Observed>> observed_runs(sqlite::Database& db) {
  std::map<std::string, Observed> runs;
  auto hosts = db.query("SELECT run_id, host FROM m_run");
  if (!hosts) return hosts.status();
  for (const auto& row : *hosts)
    runs[sqlite::to_string(row[0])].hosts.insert(sqlite::to_string(row[1]));
  auto facts = db.query(
      "SELECT run_id, key, value FROM m_provenance WHERE rank = 0 AND key IN ('gpu_count', "
      "'gpu_model', 'cpu_cores')");
  if (!facts) return facts.status();
  for (const auto& row : *facts) {
    Observed& run = runs[sqlite::to_string(row[0])];
    const std::string key = sqlite::to_string(row[1]), value = sqlite::to_string(row[2]);
    if (key == "gpu_count") run.gpus = whole_number(value);
    if (key == "gpu_model") run.gpu_model = value;
    if (key == "cpu_cores") run.cores = whole_number(value);
  }
  return runs;
}

bool matches(const std::string& host, const std::string& pattern) {
  try {
    return std::regex_match(host, std::regex(pattern));
  } catch (const std::regex_error&) {
    return true;  // the system check refuses such patterns; nothing to say here
  }
}

void compare(const std::string& run_id, const Declared& declared, const Observed& seen,
             std::vector<std::string>& lines) {
  const std::string prefix = "system " + declared.system + " declares ";
  const std::string run = "; run " + run_id + " saw ";
  // A job sees the GPUs it asked for, not always all of the node's: fewer is no mismatch,
  // none on a GPU node and more than declared are.
  if (declared.gpus >= 0 && (seen.gpus > declared.gpus || (declared.gpus > 0 && seen.gpus == 0))) {
    lines.push_back(prefix + std::to_string(declared.gpus) + " GPUs per node" + run +
                    std::to_string(seen.gpus));
  }
  if (!declared.gpu_model.empty() && !seen.gpu_model.empty() &&
      seen.gpu_model != declared.gpu_model) {
    lines.push_back(prefix + "GPU model '" + declared.gpu_model + "'" + run + "'" + seen.gpu_model +
                    "'");
  }
  if (declared.cores > 0 && seen.cores > 0 && seen.cores < declared.cores) {
    lines.push_back(prefix + std::to_string(declared.cores) + " cores per node" + run +
                    std::to_string(seen.cores));
  }
  if (declared.runs_on_detected_host && !declared.hostname_pattern.empty()) {
    for (const std::string& host : seen.hosts) {
      if (matches(host, declared.hostname_pattern)) continue;
      lines.push_back(prefix + "hosts matching '" + declared.hostname_pattern + "'" + run +
                      "host '" + host + "'");
    }
  }
}

}  // namespace

Result<std::vector<std::string>> system_mismatches(sqlite::Database& study_db) {
  auto current = current_runs_condition(study_db);
  if (!current) return current.status();
  auto rows = study_db.query("SELECT run_id, spec_json FROM runs WHERE " + *current +
                             " AND run_id IN (SELECT run_id FROM m_ingest WHERE status = "
                             "'ingested') ORDER BY run_id");
  if (!rows) return rows.status();
  auto observed = observed_runs(study_db);
  if (!observed) return observed.status();
  std::vector<std::string> lines;
  for (const auto& row : *rows) {
    const std::string run_id = sqlite::to_string(row[0]);
    auto declared = declared_of(sqlite::to_string(row[1]));
    auto seen = observed->find(run_id);
    if (declared && seen != observed->end()) compare(run_id, *declared, seen->second, lines);
  }
  return lines;
}

}  // namespace scalestudy::results
