#include "orchestrator/sched/slurmrest_json.hpp"

#include <ctime>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "orchestrator/common/host_list.hpp"
#include "orchestrator/common/utc_time.hpp"
#include "orchestrator/sched/job_arrays.hpp"
#include "orchestrator/sched/slurm_states.hpp"
#include "orchestrator/sched/slurmrest_values.hpp"

namespace scalestudy::sched {
namespace {

using nlohmann::json;

const std::map<std::string, std::string>& short_options() {
  static const std::map<std::string, std::string> kShort = {
      {"-J", "job-name"},   {"-N", "nodes"},     {"-n", "ntasks"},  {"-c", "cpus-per-task"},
      {"-t", "time"},       {"-p", "partition"}, {"-A", "account"}, {"-q", "qos"},
      {"-C", "constraint"}, {"-o", "output"},    {"-e", "error"},   {"-a", "array"},
      {"-d", "dependency"}, {"-H", "hold"},      {"-D", "chdir"},   {"-x", "exclude"},
  };
  return kShort;
}

const std::set<std::string>& flag_options() {
  static const std::set<std::string> kFlags = {"hold", "requeue", "no-requeue", "exclusive"};
  return kFlags;
}

// sbatch --time formats: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S -> whole minutes (rounded up).
Result<int> parse_time_minutes(const std::string& text) {
  int days = 0;
  std::string clock = text;
  if (size_t dash = text.find('-'); dash != std::string::npos) {
    days = std::stoi(text.substr(0, dash));
    clock = text.substr(dash + 1);
  }
  std::vector<int> parts;
  size_t start = 0;
  while (start <= clock.size()) {
    size_t colon = clock.find(':', start);
    parts.push_back(std::stoi(clock.substr(start, colon - start)));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  long seconds = 0;
  if (days > 0) {  // D-H[:M[:S]]
    const long scale[] = {3600, 60, 1};
    for (size_t i = 0; i < parts.size() && i < 3; ++i) seconds += parts[i] * scale[i];
    seconds += days * 86400L;
  } else if (parts.size() == 1) {
    seconds = parts[0] * 60L;
  } else if (parts.size() == 2) {
    seconds = parts[0] * 60L + parts[1];
  } else {
    seconds = parts[0] * 3600L + parts[1] * 60L + parts[2];
  }
  return static_cast<int>((seconds + 59) / 60);
}

// --mem values: a number of megabytes, or with a K/M/G/T suffix.
long long parse_memory_mb(const std::string& text) {
  size_t used = 0;
  long long amount = std::stoll(text, &used);
  std::string suffix = text.substr(used);
  if (suffix == "K" || suffix == "k") return std::max(1LL, amount / 1024);
  if (suffix == "G" || suffix == "g") return amount * 1024;
  if (suffix == "T" || suffix == "t") return amount * 1024 * 1024;
  return amount;
}

// --nodes as v0.0.38's [min, max], or from v0.0.40 on as text ("2", "2-4").
json node_range(const std::string& text, const RestApi& api) {
  size_t dash = text.find('-');
  int low = std::stoi(text.substr(0, dash));
  int high = dash == std::string::npos ? low : std::stoi(text.substr(dash + 1));
  if (!api.typed_numbers()) return json::array({low, high});
  return low == high ? std::to_string(low) : std::to_string(low) + "-" + std::to_string(high);
}

// A number as the version writes it: bare (v0.0.38) or {set, infinite, number}.
json rest_number_field(long long number, const RestApi& api) {
  if (!api.typed_numbers()) return number;
  return json{{"set", true}, {"infinite", false}, {"number", number}};
}

// --signal=[B:|R:]SIG[@SECONDS]. v0.0.38 takes "SIG@SECONDS" and rejects the target prefix;
// from v0.0.40 on the signal, its delay and BATCH_JOB (B:, the batch shell only: what the
// packed allocations' stop alarm needs) are fields of their own.
void apply_signal(json& job, const std::string& value, const RestApi& api) {
  std::string signal = value;
  const bool batch_only = signal.rfind("B:", 0) == 0;
  if (signal.size() > 2 && signal[1] == ':') signal = signal.substr(2);
  if (!api.typed_numbers()) {
    job["signal"] = signal;
    return;
  }
  size_t at = signal.find('@');
  job["kill_warning_signal"] = signal.substr(0, at);
  if (at != std::string::npos) {
    job["kill_warning_delay"] = rest_number_field(std::stoi(signal.substr(at + 1)), api);
  }
  if (batch_only) job["kill_warning_flags"] = json::array({"BATCH_JOB"});
}

// Sets one job property; false for an option the REST API has no field for.
bool apply_option(json& job, const std::string& name, const std::string& value,
                  const RestApi& api) {
  static const std::map<std::string, std::string> kStrings = {
      {"job-name", "name"},          {"partition", "partition"},
      {"account", "account"},        {"qos", "qos"},
      {"constraint", "constraints"}, {"output", "standard_output"},
      {"error", "standard_error"},   {"array", "array"},
      {"dependency", "dependency"},  {"chdir", "current_working_directory"},
      {"comment", "comment"},        {"reservation", "reservation"},
  };
  static const std::map<std::string, std::string> kIntegers = {
      {"ntasks", "tasks"},
      {"ntasks-per-node", "tasks_per_node"},
      {"cpus-per-task", "cpus_per_task"},
  };
  if (auto text = kStrings.find(name); text != kStrings.end()) {
    job[text->second] = value;
  } else if (auto number = kIntegers.find(name); number != kIntegers.end()) {
    job[number->second] = std::stoi(value);
  } else if (name == "nodes") {
    job["nodes"] = node_range(value, api);
  } else if (name == "time") {
    auto minutes = parse_time_minutes(value);
    job["time_limit"] = rest_number_field(*minutes, api);
  } else if (name == "mem") {
    job["memory_per_node"] = rest_number_field(parse_memory_mb(value), api);
  } else if (name == "signal") {
    apply_signal(job, value, api);
  } else if (name == "gpus-per-node") {
    // v0.0.40 on: as sbatch sends it, a TRES per node.
    job[api.typed_numbers() ? "tres_per_node" : "gpus_per_node"] =
        api.typed_numbers() ? "gres/gpu:" + value : value;
  } else if (name == "hold") {
    job["hold"] = true;
  } else if (name == "requeue" || name == "no-requeue") {
    job["requeue"] = name == "requeue";
  } else if (name == "exclude") {
    // v0.0.40 on: a list of host lists; v0.0.38 took sbatch's comma-separated text.
    if (api.typed_numbers()) {
      job["excluded_nodes"] = common::host_list_items(value);
    } else {
      job["exclude"] = value;
    }
  } else if (name == "exclusive") {
    // v0.0.42 dropped "exclusive"; sharing nothing is what sbatch --exclusive asks.
    if (api.typed_numbers()) {
      job["shared"] = json::array({"none"});
    } else {
      job["exclusive"] = "exclusive";
    }
  } else {
    return false;
  }
  return true;
}

std::optional<int> optional_int(const json& value) {
  auto number = rest_number(value);
  if (!number) return std::nullopt;
  return static_cast<int>(*number);
}

long long number_or_zero(const json& job, const char* key) {
  return rest_number(job.value(key, json())).value_or(0);
}

// sbatch's file name patterns as SLURM expands them for one job: %j, %A, %a, %u, %%.
std::string expand_file_pattern(const std::string& pattern, const json& job) {
  std::string expanded;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 == pattern.size()) {
      expanded += pattern[i];
      continue;
    }
    switch (pattern[++i]) {
      case 'j':
        expanded += std::to_string(number_or_zero(job, "job_id"));
        break;
      case 'A':
        expanded += std::to_string(number_or_zero(job, "array_job_id"));
        break;
      case 'a':
        expanded += std::to_string(number_or_zero(job, "array_task_id"));
        break;
      case 'u':
        expanded += job.value("user_name", "");
        break;
      default:
        expanded += pattern.substr(i - 1, 2);
    }
  }
  return expanded;
}

// A batch job SLURM could not start. Its exit code (4021, or signal 53 in accounting)
// means nothing to a user; what usually failed is creating the output file as the job's
// user, so the reason names both.
std::string launch_failure_reason(const json& job) {
  const std::string user = job.value("user_name", "");
  const std::string output = expand_file_pattern(job.value("standard_output", ""), job);
  std::string reason = "JobLaunchFailure: SLURM could not start the batch script";
  if (!user.empty()) reason += " as user " + user;
  if (!output.empty())
    reason += " (can " + (user.empty() ? "its user" : user) + " create " + output + "?)";
  return reason;
}

}  // namespace

Result<std::vector<std::pair<std::string, std::string>>> parse_sbatch_options(
    const std::vector<std::string>& words) {
  std::vector<std::pair<std::string, std::string>> options;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    std::string name, value;
    bool has_value = false;
    if (word.rfind("--", 0) == 0) {
      size_t equals = word.find('=');
      name = word.substr(2, equals == std::string::npos ? std::string::npos : equals - 2);
      if (equals != std::string::npos) {
        value = word.substr(equals + 1);
        has_value = true;
      }
    } else if (word.size() >= 2 && word[0] == '-') {
      auto known = short_options().find(word.substr(0, 2));
      if (known == short_options().end()) return Status::error("unknown sbatch option " + word);
      name = known->second;
      if (word.size() > 2) {
        value = word.substr(word[2] == '=' ? 3 : 2);
        has_value = true;
      }
    } else {
      return Status::error("stray word in sbatch options: " + word);
    }
    if (!has_value && flag_options().count(name) == 0) {
      if (i + 1 >= words.size()) return Status::error("sbatch option " + word + " needs a value");
      value = words[++i];
    }
    options.emplace_back(name, value);
  }
  return options;
}

Result<nlohmann::json> rest_submit_body(const std::string& script_text,
                                        const std::vector<std::string>& options,
                                        const std::map<std::string, std::string>& environment,
                                        const std::string& working_directory, const RestApi& api) {
  std::vector<std::string> words = sbatch_directives(script_text);
  words.insert(words.end(), options.begin(), options.end());
  auto parsed = parse_sbatch_options(words);
  if (!parsed) return parsed.status();
  json job = {{"current_working_directory", working_directory}};
  if (api.typed_numbers()) {  // NAME=value words, as execve takes them
    job["environment"] = json::array();
    for (const auto& [name, value] : environment) job["environment"].push_back(name + "=" + value);
  } else {
    job["environment"] = json(environment);
  }
  for (const auto& [name, value] : *parsed) {
    try {
      if (!apply_option(job, name, value, api)) {
        return Status::error("sbatch option --" + name + " has no slurmrestd " + api.name() +
                             " equivalent; use the slurm scheduler");
      }
    } catch (const std::exception&) {
      return Status::error("sbatch option --" + name + "=" + value + ": not a valid value");
    }
  }
  // sbatch derives the task count from --nodes x --ntasks-per-node; slurmrestd defaults it
  // to 1, which would start one rank.
  if (!job.contains("tasks") && job.contains("tasks_per_node") && job.contains("nodes")) {
    const int nodes = job["nodes"].is_array() ? job["nodes"][0].get<int>()
                                              : std::stoi(job["nodes"].get<std::string>());
    job["tasks"] = nodes * job["tasks_per_node"].get<int>();
  }
  if (!api.typed_numbers()) return json{{"script", script_text}, {"job", job}};
  job["script"] = script_text;  // v0.0.42 deprecates the top-level script
  return json{{"job", job}};
}

std::string rest_errors(const nlohmann::json& answer) {
  std::string joined;
  if (!answer.contains("errors") || !answer["errors"].is_array()) return joined;
  for (const auto& error : answer["errors"]) {
    std::string text = error.value("error", "");
    if (error.contains("description")) text += " (" + error.value("description", "") + ")";
    joined += (joined.empty() ? "" : "; ") + text;
  }
  return joined;
}

Result<std::string> parse_rest_submit_response(const nlohmann::json& answer) {
  // A held job comes back with its id *and* an "error" saying it is held.
  if (answer.contains("job_id") && answer["job_id"].is_number_integer()) {
    return std::to_string(answer["job_id"].get<long long>());
  }
  std::string errors = rest_errors(answer);
  return Status::error("slurmrestd refused the job" + (errors.empty() ? "" : ": " + errors));
}

namespace {

// Epoch seconds (0 or absent: not yet) as "2026-01-01T10:00:00Z".
std::string rest_time(const json& value) {
  auto seconds = optional_int(value);
  if (!seconds || *seconds <= 0) return "";
  return common::utc_iso8601(static_cast<std::time_t>(*seconds));
}

// Where and when a job ran: slurmctld's "nodes" and "submit_time" / "start_time" /
// "end_time" (`times` null), or the accounting's "nodes" and "time": {submission, start,
// end}. The study database keeps it per attempt: a node or hang failure's retry leaves
// these nodes out (campaign/submit.cpp).
common::JobPlacement rest_placement(const json& job, const json& times) {
  common::JobPlacement placement;
  placement.node_list = job.value("nodes", "");
  if (placement.node_list == "None assigned") placement.node_list.clear();
  auto time_of = [&](const char* live, const char* accounted) {
    return rest_time(times.is_object() ? times.value(accounted, json()) : job.value(live, json()));
  };
  placement.queued_at = time_of("submit_time", "submission");
  placement.started_at = time_of("start_time", "start");
  placement.ended_at = time_of("end_time", "end");
  return placement;
}

}  // namespace

std::map<std::string, JobStatus> parse_rest_jobs(const nlohmann::json& answer) {
  std::map<std::string, JobStatus> states;
  if (!answer.contains("jobs") || !answer["jobs"].is_array()) return states;
  for (const auto& job : answer["jobs"]) {
    auto status = make_slurm_status(rest_state(job.value("job_state", json())),
                                    rest_exit_code(job.value("exit_code", json())),
                                    job.value("state_reason", ""));
    if (!status) continue;
    status->restarts = optional_int(job.value("restart_cnt", json())).value_or(0);
    status->placement = rest_placement(job, json());
    // slurmctld's end_time of a job still going is when its time limit would end it.
    if (!common::is_terminal(status->state)) status->placement.ended_at.clear();
    if (job.value("state_reason", "") == "JobLaunchFailure") {
      status->exit_code.reset();
      status->reason = launch_failure_reason(job);
    }
    for (const auto& id : rest_job_ids(job)) states[id] = *status;
  }
  return states;
}

std::vector<std::string> rest_job_ids(const nlohmann::json& job) {
  std::string job_id = std::to_string(number_or_zero(job, "job_id"));
  auto task = optional_int(job.value("array_task_id", json()));
  std::string pending_tasks = job.value("array_task_string", "");
  if (task)
    return {std::to_string(number_or_zero(job, "array_job_id")) + "_" + std::to_string(*task)};
  if (!pending_tasks.empty()) return expand_array_job_id(job_id + "_[" + pending_tasks + "]");
  return {job_id};
}

namespace {

// How new one of a job's accounting records is. slurmrestd lists every run of a requeued job
// (sacct without --duplicates only the newest), in no promised order: the newest was
// submitted last (epoch seconds, a record without one before any with), then (submitted
// within a second) restarted more often, then is not the REQUEUED one. A full tie keeps the
// record listed first.
using RecordAge = std::tuple<long long, long long, bool>;

RecordAge record_age(const json& job) {
  const json times = job.value("time", json::object());
  const long long submitted = rest_number(times.value("submission", json())).value_or(-1);
  const std::string state = rest_state(job.value("state", json::object()).value("current", json()));
  return {submitted, number_or_zero(job, "restart_cnt"), state.rfind("REQUEUE", 0) != 0};
}

// Keeps `value` under `key` unless a newer record put one there.
template <typename Value>
void keep_newest(std::map<std::string, std::pair<RecordAge, Value>>& newest, const std::string& key,
                 const RecordAge& age, Value value) {
  auto [known, fresh] = newest.try_emplace(key, age, value);
  if (!fresh && age > known->second.first) known->second = {age, std::move(value)};
}

template <typename Value>
std::map<std::string, Value> values_of(std::map<std::string, std::pair<RecordAge, Value>> aged) {
  std::map<std::string, Value> values;
  for (auto& [key, pair] : aged) values.emplace(key, std::move(pair.second));
  return values;
}

}  // namespace

std::map<std::string, JobStatus> parse_rest_db_jobs(const nlohmann::json& answer) {
  std::map<std::string, std::pair<RecordAge, JobStatus>> states;
  if (!answer.contains("jobs") || !answer["jobs"].is_array()) return {};
  for (const auto& job : answer["jobs"]) {
    json state = job.value("state", json::object());
    auto status = make_slurm_status(rest_state(state.value("current", json())),
                                    rest_exit_code(job.value("exit_code", json())),
                                    state.value("reason", ""));
    if (!status) continue;
    status->placement = rest_placement(job, job.value("time", json::object()));
    json array = job.value("array", json::object());
    auto task = optional_int(array.value("task_id", json()));
    std::string job_id =
        task ? std::to_string(number_or_zero(array, "job_id")) + "_" + std::to_string(*task)
             : std::to_string(number_or_zero(job, "job_id"));
    keep_newest(states, job_id, record_age(job), *status);
  }
  return values_of(std::move(states));
}

namespace {

// A numbered step's number: v0.0.38's bare 3, or from v0.0.40 on "1040.3"; none for the
// batch and extern steps ("1040.batch").
std::optional<long long> step_number(const json& id) {
  if (id.is_number_integer()) return id.get<long long>();
  if (!id.is_string()) return std::nullopt;
  const std::string text = id.get<std::string>();
  const std::string number = text.substr(text.find('.') + 1);
  if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return std::stoll(number);
}

}  // namespace

std::map<std::string, AllocationRecord> parse_rest_db_allocations(const json& answer) {
  std::map<std::string, std::pair<RecordAge, AllocationRecord>> allocations;
  if (!answer.contains("jobs") || !answer["jobs"].is_array()) return {};
  for (const auto& job : answer["jobs"]) {
    const std::string id = std::to_string(job.value("job_id", 0LL));
    AllocationRecord allocation;
    allocation.state = rest_state(job.value("state", json::object()).value("current", json()));
    allocation.exit_code = rest_exit_code(job.value("exit_code", json()));
    json times = job.value("time", json::object());
    allocation.queued_at = rest_time(times.value("submission", json()));
    for (const auto& step : job.value("steps", json::array())) {
      json names = step.value("step", json::object());
      auto step_id = step_number(names.value("id", json()));
      if (!step_id) continue;  // batch, extern
      json step_times = step.value("time", json::object());
      allocation.steps.push_back({id + "." + std::to_string(*step_id), names.value("name", ""),
                                  rest_state(step.value("state", json())),
                                  rest_exit_code(step.value("exit_code", json())),
                                  step.value("nodes", json::object()).value("range", ""),
                                  rest_time(step_times.value("start", json())),
                                  rest_time(step_times.value("end", json()))});
    }
    // Of a requeued allocation's runs the newest counts; the earlier ones' steps are history.
    keep_newest(allocations, id, record_age(job), std::move(allocation));
  }
  return values_of(std::move(allocations));
}

}  // namespace scalestudy::sched
