#include "orchestrator/results/compare/provenance_diff.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <tuple>

#include "orchestrator/study/secret_names.hpp"

namespace scalestudy::results {
namespace {

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Keys that name one job or attempt: they differ between any two runs and explain nothing.
bool names_one_job(const std::string& key) {
  return key == "slurm_job_id" || key == "slurm_array_task_id" || key == "master_port" ||
         starts_with(key, "attempt.");
}

DifferenceKind kind_of(const std::string& key) {
  static const std::set<std::string> build = {"binary_build_id", "git_commit", "git_dirty",
                                              "compiler",        "build_type", "scalestudy_version",
                                              "workload",        "recorder"};
  static const std::set<std::string> hosts = {
      "host",        "hostname",       "slurm_nodelist",   "cpu_model",
      "cpu_cores",   "cpu_isa",        "gpu_model",        "gpu_count",
      "master_addr", "gpu_pci_bus_id", "gpu_memory_bytes", "gpu_compute_capability"};
  if (build.count(key)) return DifferenceKind::kBuild;
  if (ends_with(key, "_version") || ends_with(key, "_version_built") || key == "gloo") {
    return DifferenceKind::kVersions;
  }
  if (starts_with(key, "param.")) return DifferenceKind::kParameters;
  if (starts_with(key, "env.")) return DifferenceKind::kEnvironment;
  if (hosts.count(key)) return DifferenceKind::kHosts;
  return DifferenceKind::kRuntime;  // optimizer_impl, intra_op_threads, device, backend, ...
}

// A variable whose name looks secret, recorded by a version that stored its value, is
// compared and shown as the same placeholder: a rotated token is no difference to publish.
std::string shown_value(const std::string& key, std::string value) {
  if (starts_with(key, "env.") && looks_secret(key.substr(4))) return std::string(kSecretNotShown);
  return value;
}

void add_json_map(const std::string& text, const std::string& prefix, ProvenanceValues& values) {
  auto json = nlohmann::json::parse(text, nullptr, false);
  if (!json.is_object()) return;
  for (const auto& [key, value] : json.items()) {
    values[prefix + key].insert(
        shown_value(prefix + key, value.is_string() ? value.get<std::string>() : value.dump()));
  }
}

}  // namespace

const char* to_string(DifferenceKind kind) {
  switch (kind) {
    case DifferenceKind::kBuild:
      return "build";
    case DifferenceKind::kVersions:
      return "versions";
    case DifferenceKind::kParameters:
      return "parameters";
    case DifferenceKind::kEnvironment:
      return "environment";
    case DifferenceKind::kRuntime:
      return "runtime";
    case DifferenceKind::kHosts:
      break;
  }
  return "hosts";
}

Result<std::map<std::string, ProvenanceValues>> load_run_provenance(
    sqlite::Database& study_db, const std::vector<std::string>& run_ids) {
  std::map<std::string, ProvenanceValues> by_run;
  for (const std::string& run_id : run_ids) {
    ProvenanceValues& values = by_run[run_id];
    auto recorded =
        study_db.query("SELECT key, value FROM m_provenance WHERE run_id = ?", {run_id});
    if (!recorded) return recorded.status();
    for (const auto& row : *recorded) {
      const std::string key = sqlite::to_string(row[0]);
      if (!names_one_job(key)) values[key].insert(shown_value(key, sqlite::to_string(row[1])));
    }
    auto ranks = study_db.query(
        "SELECT host, device, backend, workload FROM m_run WHERE run_id = ?", {run_id});
    if (!ranks) return ranks.status();
    for (const auto& row : *ranks) {
      values["host"].insert(sqlite::to_string(row[0]));
      values["device"].insert(sqlite::to_string(row[1]));
      values["backend"].insert(sqlite::to_string(row[2]));
      values["workload"].insert(sqlite::to_string(row[3]));
    }
    auto planned =
        study_db.query("SELECT params_json, spec_json FROM runs WHERE run_id = ?", {run_id});
    if (!planned) return planned.status();
    for (const auto& row : *planned) {
      add_json_map(sqlite::to_string(row[0]), "param.", values);
      auto spec = nlohmann::json::parse(sqlite::to_string(row[1]), nullptr, false);
      if (spec.is_object() && spec.contains("env"))
        add_json_map(spec["env"].dump(), "env.", values);
    }
    if (values.empty()) by_run.erase(run_id);
  }
  return by_run;
}

ProvenanceValues merge_provenance(const std::map<std::string, ProvenanceValues>& by_run,
                                  const std::vector<std::string>& run_ids) {
  ProvenanceValues merged;
  for (const std::string& run_id : run_ids) {
    auto found = by_run.find(run_id);
    if (found == by_run.end()) continue;
    for (const auto& [key, values] : found->second)
      merged[key].insert(values.begin(), values.end());
  }
  return merged;
}

std::vector<ProvenanceDifference> diff_provenance(const ProvenanceValues& a,
                                                  const ProvenanceValues& b) {
  std::set<std::string> keys;
  for (const auto& [key, values] : a) keys.insert(key);
  for (const auto& [key, values] : b) keys.insert(key);
  std::vector<ProvenanceDifference> differences;
  for (const std::string& key : keys) {
    auto in_a = a.find(key), in_b = b.find(key);
    ProvenanceDifference difference{kind_of(key), key};
    if (in_a != a.end()) difference.a = in_a->second;
    if (in_b != b.end()) difference.b = in_b->second;
    if (difference.a != difference.b) differences.push_back(std::move(difference));
  }
  std::stable_sort(differences.begin(), differences.end(),
                   [](const ProvenanceDifference& x, const ProvenanceDifference& y) {
                     return std::tie(x.kind, x.key) < std::tie(y.kind, y.key);
                   });
  return differences;
}

std::string joined_values(const std::set<std::string>& values) {
  if (values.empty()) return "(none)";
  std::string text;
  for (const auto& value : values) text += (text.empty() ? "" : "|") + value;
  return text;
}

}  // namespace scalestudy::results
