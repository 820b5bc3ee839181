#include "orchestrator/study/policy_section.hpp"

#include <algorithm>
#include <utility>

#include "orchestrator/study/scalar_values.hpp"
#include "orchestrator/study/schema_values.hpp"

namespace scalestudy {
namespace {

const std::vector<std::string> kBudgetKeys = {"gpu_hours"};
const std::vector<std::string> kReportKeys = {"target_gain_pct", "thresholds", "throughput_unit",
                                              "tokens_per_sample"};
const std::vector<std::string> kPolicyKeys = {"max_node_failures", "retry", "exclude_flagged_nodes",
                                              "hang_after"};
const std::vector<std::string> kRetryClasses = {"program", "setup", "time", "hang"};
const std::vector<std::string> kThroughputUnits = {"samples", "tokens"};
// The thresholds the report reads (docs/study-database.md, "Report settings").
const std::vector<std::string> kThresholdKeys = {"efficiency_pct", "input_bound_pct",
                                                 "comm_bound_pct", "cv_warn_pct",
                                                 "min_repeats",    "regression_pct"};

// A whole-number field of at least 1, when the document gives it.
std::optional<long long> read_count(const ConfigNode& document, const std::string& key,
                                    Diagnostics& diagnostics) {
  const ConfigNode* node = document.find(key);
  return node ? read_integer(*node, key, 1, diagnostics) : std::nullopt;
}

// The tokens a sample holds for a program that records none: a whole number, or the name
// of the workload parameter that gives it (a context length).
void read_tokens_per_sample(const ConfigNode& node, const StudyTemplate& study,
                            StudyReportSettings& settings, Diagnostics& diagnostics) {
  const std::string field = "report.tokens_per_sample";
  auto text = read_scalar(node, field, diagnostics);
  if (!text) return;
  auto count = parse_integer(*text);
  if ((count && *count > 0) || study.params.count(*text)) {
    settings.tokens_per_sample = *text;
  } else {
    diagnostics.add(node.location, field,
                    "expected a whole number of tokens (1 or more) or the name of a workload "
                    "parameter that gives it, got '" +
                        *text + "'");
  }
}

void read_report(const ConfigNode& report, const StudyTemplate& study,
                 StudyReportSettings& settings, Diagnostics& diagnostics) {
  if (!expect_map(report, "report", diagnostics)) return;
  check_keys(report, "report.", kReportKeys, diagnostics);
  if (const ConfigNode* gain = report.find("target_gain_pct")) {
    settings.target_gain_pct =
        read_non_negative_number(*gain, "report.target_gain_pct", diagnostics);
  }
  if (const ConfigNode* unit = report.find("throughput_unit")) {
    auto text = read_scalar(*unit, "report.throughput_unit", diagnostics);
    if (text && std::find(kThroughputUnits.begin(), kThroughputUnits.end(), *text) ==
                    kThroughputUnits.end()) {
      diagnostics.add(unit->location, "report.throughput_unit",
                      "'" + *text + "' is not one of samples, tokens");
    } else if (text) {
      settings.throughput_unit = *text;
    }
  }
  if (const ConfigNode* tokens = report.find("tokens_per_sample")) {
    read_tokens_per_sample(*tokens, study, settings, diagnostics);
  }
  const ConfigNode* thresholds = report.find("thresholds");
  if (!thresholds || !expect_map(*thresholds, "report.thresholds", diagnostics)) return;
  check_keys(*thresholds, "report.thresholds.", kThresholdKeys, diagnostics);
  for (const auto& entry : thresholds->entries) {
    if (auto value =
            read_non_negative_number(entry.value, "report.thresholds." + entry.key, diagnostics)) {
      settings.thresholds[entry.key] = *value;
    }
  }
}

// `policy: {max_node_failures, retry: {program, setup, time, hang}, exclude_flagged_nodes,
// hang_after}`.
void read_retry_policy(const ConfigNode& policy, RetryPolicy& retry, Diagnostics& diagnostics) {
  if (!expect_map(policy, "policy", diagnostics)) return;
  check_keys(policy, "policy.", kPolicyKeys, diagnostics);
  if (const ConfigNode* bound = policy.find("max_node_failures")) {
    if (auto value = read_integer(*bound, "policy.max_node_failures", 0, diagnostics)) {
      retry.max_node_failures = static_cast<int>(*value);
    }
  }
  if (const ConfigNode* hang = policy.find("hang_after")) {
    if (hang->is_scalar() && hang->scalar == "off") {
      retry.hang_after_s = 0;
    } else if (auto seconds = read_integer(*hang, "policy.hang_after", 0, diagnostics)) {
      retry.hang_after_s = static_cast<int>(*seconds);
    }
  }
  if (const ConfigNode* flagged = policy.find("exclude_flagged_nodes")) {
    auto text = read_scalar(*flagged, "policy.exclude_flagged_nodes", diagnostics);
    if (text && (*text == "true" || *text == "false")) {
      retry.exclude_flagged_nodes = *text == "true";
    } else if (text) {
      diagnostics.add(flagged->location, "policy.exclude_flagged_nodes",
                      "'" + *text + "' is not true or false");
    }
  }
  const ConfigNode* retries = policy.find("retry");
  if (!retries || !expect_map(*retries, "policy.retry", diagnostics)) return;
  check_keys(*retries, "policy.retry.", kRetryClasses, diagnostics);
  const std::pair<const char*, int*> fields[] = {{"program", &retry.program_retries},
                                                 {"setup", &retry.setup_retries},
                                                 {"time", &retry.time_retries},
                                                 {"hang", &retry.hang_retries}};
  for (const auto& [name, field] : fields) {
    const ConfigNode* node = retries->find(name);
    if (!node) continue;
    if (auto value = read_integer(*node, std::string("policy.retry.") + name, 0, diagnostics)) {
      *field = static_cast<int>(*value);
    }
  }
}

}  // namespace

void read_policy_section(const ConfigNode& document, StudyTemplate& study,
                         Diagnostics& diagnostics) {
  if (auto repeats = read_count(document, "repeats", diagnostics)) {
    study.repeats = static_cast<int>(*repeats);
  }
  if (auto max_runs = read_count(document, "max_runs", diagnostics)) {
    study.max_runs = static_cast<size_t>(*max_runs);
    study.max_runs_location = document.find("max_runs")->location;
  }
  if (auto attempts = read_count(document, "max_attempts", diagnostics)) {
    study.info.max_attempts = static_cast<int>(*attempts);
  }
  if (auto throttle = read_count(document, "array_throttle", diagnostics)) {
    study.info.array_throttle = static_cast<int>(*throttle);
  }
  if (const ConfigNode* policy = document.find("policy")) {
    read_retry_policy(*policy, study.info.retry, diagnostics);
  }
  const ConfigNode* budget = document.find("budget");
  if (budget && expect_map(*budget, "budget", diagnostics)) {
    check_keys(*budget, "budget.", kBudgetKeys, diagnostics);
    if (const ConfigNode* hours = budget->find("gpu_hours")) {
      study.info.budget_gpu_hours =
          read_non_negative_number(*hours, "budget.gpu_hours", diagnostics);
    }
  }
  if (const ConfigNode* report = document.find("report")) {
    read_report(*report, study, study.info.report, diagnostics);
  }
}

}  // namespace scalestudy
