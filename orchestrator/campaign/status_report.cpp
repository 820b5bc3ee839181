#include "orchestrator/campaign/status_report.hpp"

#include <algorithm>

namespace scalestudy::campaign {
namespace {

// {"precision":"bf16","world_size":"2"} -> "precision=bf16 world_size=2"
std::string varied_text(const std::string& varied_json) {
  auto varied = nlohmann::json::parse(varied_json, nullptr, false);
  if (!varied.is_object()) return "";
  std::string text;
  for (const auto& [key, value] : varied.items()) {
    text += (text.empty() ? "" : " ") + key + "=" +
            (value.is_string() ? value.get<std::string>() : value.dump());
  }
  return text;
}

std::string shown_state(const StudyProgress& progress, const RunRecord& run) {
  return progress.exhausted(run) ? run.state + " (final)" : run.state;
}

// A failed run's evidence, and whether it is retried; other runs' reason.
std::string shown_reason(const StudyProgress& progress, const RunRecord& run) {
  if (progress.exhausted(run)) return failure_summary(run);
  if (run.failure_class.empty()) return run.reason;
  auto verdict = run_retry_verdict(run, progress.max_attempts, progress.retry);
  return run.failure_evidence + (verdict ? " (retried: " + verdict->why + ")" : "");
}

std::string aligned_table(const std::vector<std::string>& headers,
                          const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths(headers.size());
  for (size_t column = 0; column < headers.size(); ++column) {
    widths[column] = headers[column].size();
    for (const auto& row : rows) widths[column] = std::max(widths[column], row[column].size());
  }
  auto format_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t column = 0; column < cells.size(); ++column) {
      bool last = column + 1 == cells.size();
      line += last ? cells[column]
                   : cells[column] + std::string(widths[column] - cells[column].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line + "\n";
  };
  std::string table = format_row(headers);
  for (const auto& row : rows) table += format_row(row);
  return table;
}

}  // namespace

std::string progress_line(const StudyProgress& progress, int bar_width) {
  int filled = progress.total == 0 ? 0 : progress.completed * bar_width / progress.total;
  int failed = progress.total == 0 ? 0 : progress.failed * bar_width / progress.total;
  std::string bar = "[" + std::string(filled, '#') + std::string(failed, 'x') +
                    std::string(std::max(0, bar_width - filled - failed), '-') + "]";
  std::string line = bar + " " + std::to_string(progress.completed) + "/" +
                     std::to_string(progress.total) + " done";
  auto part = [&](int count, const char* what) {
    if (count > 0) line += ", " + std::to_string(count) + " " + what;
  };
  part(progress.failed, "failed");
  part(progress.retryable, "to retry");
  part(progress.in_flight, "in flight");
  part(progress.planned - progress.waiting, "not submitted");
  part(progress.waiting, "waiting for a submit slot");
  return line;
}

std::string status_table(const StudyProgress& progress) {
  std::vector<std::vector<std::string>> rows;
  for (const RunRecord& run : progress.runs) {
    rows.push_back({run.run_id, varied_text(run.varied_json), shown_state(progress, run),
                    std::to_string(run.attempts) + "/" + std::to_string(progress.max_attempts),
                    run.failure_class, run.job_id, shown_reason(progress, run)});
  }
  return aligned_table({"run", "varied", "state", "attempts", "class", "job", "reason"}, rows);
}

std::string failures_table(const StudyProgress& progress) {
  if (progress.failed_attempts.empty()) return "";
  std::vector<std::vector<std::string>> rows;
  for (const common::FailedAttempt& attempt : progress.failed_attempts) {
    rows.push_back({attempt.run_id, std::to_string(attempt.attempt), attempt.state,
                    common::to_string(attempt.kind), attempt.node_list, attempt.evidence});
  }
  return "failed attempts\n" +
         aligned_table({"run", "attempt", "state", "class", "nodes", "evidence"}, rows);
}

std::string nodes_table(const StudyProgress& progress) {
  if (progress.nodes.empty()) return "";
  std::vector<std::vector<std::string>> rows;
  for (const common::NodeFailures& node : progress.nodes) {
    rows.push_back({node.node, common::failure_counts_text(node.failures),
                    common::failure_counts_text(node.elsewhere),
                    node.flagged ? "flagged: " + std::to_string(common::kFlaggedNodeFailures) +
                                       " or more node/hang failures"
                                 : ""});
  }
  return "nodes with failed attempts\n" +
         aligned_table({"node", "failures", "other studies in the results folder", "note"}, rows);
}

nlohmann::json status_json(const std::string& study_name, const StudyProgress& progress) {
  nlohmann::json runs = nlohmann::json::array();
  for (const RunRecord& run : progress.runs) {
    auto varied = nlohmann::json::parse(run.varied_json, nullptr, false);
    runs.push_back({{"run_id", run.run_id},
                    {"varied", varied.is_discarded() ? nlohmann::json::object() : varied},
                    {"state", run.state},
                    {"final", progress.exhausted(run) || run.state == "COMPLETED"},
                    {"attempts", run.attempts},
                    {"scheduler", run.scheduler},
                    {"job_id", run.job_id},
                    {"reason", shown_reason(progress, run)},
                    {"failure_class", run.failure_class},
                    {"failure_evidence", run.failure_evidence},
                    {"submitted_at", run.submitted_at},
                    {"started_at", run.started_at},
                    {"finished_at", run.finished_at},
                    {"out_dir", run.out_dir}});
  }
  nlohmann::json failed = nlohmann::json::array();
  for (const common::FailedAttempt& attempt : progress.failed_attempts) {
    failed.push_back({{"run_id", attempt.run_id},
                      {"attempt", attempt.attempt},
                      {"state", attempt.state},
                      {"failure_class", common::to_string(attempt.kind)},
                      {"failure_evidence", attempt.evidence},
                      {"node_list", attempt.node_list}});
  }
  nlohmann::json nodes = nlohmann::json::array();
  for (const common::NodeFailures& node : progress.nodes) {
    nlohmann::json failures = nlohmann::json::object();
    nlohmann::json elsewhere = nlohmann::json::object();
    for (const auto& [kind, count] : node.failures) failures[common::to_string(kind)] = count;
    for (const auto& [kind, count] : node.elsewhere) elsewhere[common::to_string(kind)] = count;
    nodes.push_back({{"node", node.node},
                     {"failures", failures},
                     {"other_studies", elsewhere},
                     {"flagged", node.flagged}});
  }
  return {{"study", study_name},
          {"max_attempts", progress.max_attempts},
          {"total", progress.total},
          {"completed", progress.completed},
          {"failed", progress.failed},
          {"to_retry", progress.retryable},
          {"in_flight", progress.in_flight},
          {"not_submitted", progress.planned},
          {"waiting_for_slot", progress.waiting},
          {"runs", runs},
          {"failed_attempts", failed},
          {"nodes", nodes}};
}

}  // namespace scalestudy::campaign
