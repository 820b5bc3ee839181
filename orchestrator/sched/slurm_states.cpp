#include "orchestrator/sched/slurm_states.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <utility>

namespace scalestudy::sched {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> fields;
  std::string field;
  std::stringstream stream(text);
  while (std::getline(stream, field, separator)) fields.push_back(field);
  if (!text.empty() && text.back() == separator) fields.emplace_back();
  return fields;
}

std::string trim(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  size_t start = 0;
  while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start]))) ++start;
  return text.substr(start);
}

template <typename LineParser>
std::map<std::string, JobStatus> parse_lines(const std::string& output, LineParser parse_line) {
  std::map<std::string, JobStatus> states;
  std::stringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    auto fields = split(trim(line), '|');
    if (fields.size() < 3) continue;
    auto status = parse_line(fields);
    if (!status) continue;
    for (const auto& job_id : expand_array_job_id(trim(fields[0]))) states[job_id] = *status;
  }
  return states;
}

}  // namespace

std::optional<JobState> map_slurm_state(const std::string& slurm_state) {
  std::string name = trim(slurm_state);
  name = name.substr(0, name.find(' '));  // "CANCELLED by 1000"
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if (auto direct = parse_job_state(name)) return direct;
  static const std::map<std::string, JobState> kAliases = {
      {"CONFIGURING", JobState::kRunning},   {"COMPLETING", JobState::kRunning},
      {"RESIZING", JobState::kRunning},      {"SUSPENDED", JobState::kRunning},
      {"STOPPED", JobState::kRunning},       {"SIGNALING", JobState::kRunning},
      {"STAGE_OUT", JobState::kRunning},     {"REQUEUED", JobState::kPending},
      {"REQUEUE_HOLD", JobState::kPending},  {"REQUEUE_FED", JobState::kPending},
      {"RESV_DEL_HOLD", JobState::kPending}, {"BOOT_FAIL", JobState::kNodeFail},
      {"DEADLINE", JobState::kTimeout},      {"REVOKED", JobState::kCancelled},
      {"SPECIAL_EXIT", JobState::kFailed},
  };
  if (auto alias = kAliases.find(name); alias != kAliases.end()) return alias->second;
  return std::nullopt;
}

std::optional<int> parse_slurm_exit_code(const std::string& text) {
  auto parts = split(trim(text), ':');
  if (parts.empty() || parts[0].empty()) return std::nullopt;
  try {
    int exit_code = std::stoi(parts[0]);
    int signal_number = parts.size() > 1 && !parts[1].empty() ? std::stoi(parts[1]) : 0;
    return signal_number != 0 && exit_code == 0 ? 128 + signal_number : exit_code;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<JobStatus> make_slurm_status(const std::string& state, std::optional<int> exit_code,
                                           const std::string& reason) {
  auto mapped = map_slurm_state(state);
  if (!mapped) return std::nullopt;
  JobStatus status;
  status.state = *mapped;
  status.exit_code = exit_code;
  std::string cleaned = trim(reason);
  if (cleaned == "None" || cleaned == "(null)") cleaned.clear();
  std::string state_words = trim(state);
  if (size_t space = state_words.find(' '); space != std::string::npos) {
    cleaned = state_words;  // "CANCELLED by 0" says who
  }
  if ((status.state == JobState::kFailed || status.state == JobState::kOutOfMemory) && exit_code &&
      *exit_code != 0) {
    std::string code = "exit code " + std::to_string(*exit_code);
    cleaned = cleaned.empty() ? code : code + " (" + cleaned + ")";
  }
  if (status.state == JobState::kTimeout && cleaned.empty()) cleaned = "TimeLimit";
  // A completed job needs no reason; what SLURM still shows is stale (a requeued job keeps
  // the "BeginTime" it waited for before its second start).
  if (status.state == JobState::kCompleted) cleaned.clear();
  status.reason = cleaned;
  return common::classify_checkpointed(std::move(status));
}

std::vector<std::string> parsable_fields(const std::string& line) {
  return split(trim(line), '|');
}

std::string sacct_value(const std::string& field) {
  std::string value = trim(field);
  return value == "Unknown" || value == "None" || value == "None assigned" ? "" : value;
}

std::map<std::string, JobStatus> parse_sacct(const std::string& output) {
  return parse_lines(output, [](const std::vector<std::string>& fields) {
    std::string reason = fields.size() > 3 ? fields[3] : "";
    auto status = make_slurm_status(fields[1], parse_slurm_exit_code(fields[2]), reason);
    if (status && fields.size() >= 8) {
      status->placement = {"", sacct_value(fields[4]), sacct_value(fields[5]),
                           sacct_value(fields[6]), sacct_value(fields[7])};
    }
    return status;
  });
}

std::map<std::string, JobStatus> parse_squeue(const std::string& output) {
  return parse_lines(output, [](const std::vector<std::string>& fields) {
    return make_slurm_status(fields[1], std::nullopt, fields[2]);
  });
}

std::vector<std::string> expand_array_job_id(const std::string& job_id) {
  size_t open = job_id.find("_[");
  if (open == std::string::npos || job_id.back() != ']') return {job_id};
  std::string base = job_id.substr(0, open);
  std::string ranges = job_id.substr(open + 2, job_id.size() - open - 3);
  ranges = ranges.substr(0, ranges.find('%'));
  std::vector<std::string> ids;
  for (const auto& range : split(ranges, ',')) {
    auto bounds = split(range, '-');
    try {
      int first = std::stoi(bounds.at(0));
      int last = bounds.size() > 1 ? std::stoi(bounds[1]) : first;
      for (int task = first; task <= last; ++task) ids.push_back(base + "_" + std::to_string(task));
    } catch (const std::exception&) {
      return {job_id};
    }
  }
  return ids;
}

std::string base_job_id(const std::string& job_id) {
  return job_id.substr(0, job_id.find('_'));
}

}  // namespace scalestudy::sched
