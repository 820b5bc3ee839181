#include "orchestrator/sched/slurmrest_scheduler.hpp"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "orchestrator/sched/batch_jobs.hpp"
#include "orchestrator/sched/job_environment.hpp"
#include "orchestrator/sched/job_script_preparation.hpp"
#include "orchestrator/sched/packed_allocation.hpp"
#include "orchestrator/sched/redact.hpp"
#include "orchestrator/sched/slurm_states.hpp"
#include "orchestrator/sched/slurmrest_json.hpp"
#include "orchestrator/sched/slurmrest_limits.hpp"
#include "orchestrator/sched/slurmrest_url.hpp"

namespace scalestudy::sched {
namespace {

std::string first_env(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (const char* value = std::getenv(name); value != nullptr && *value != '\0') return value;
  }
  return "";
}

std::string current_user_name() {
  if (const passwd* entry = getpwuid(geteuid()); entry != nullptr) return entry->pw_name;
  return "";
}

}  // namespace

SchedulerEntry slurmrest_scheduler_entry() {
  SchedulerEntry entry;
  entry.name = "slurmrest";
  entry.family = "slurm";
  entry.options = batch_job_options();
  entry.options.push_back({"--url", "URL",
                           "slurmrest's slurmrestd, unix:/path/to/socket or https://host:port "
                           "(default $SCALESTUDY_SLURMRESTD)"});
  entry.options.push_back({"--rest-api", "VERSION",
                           "slurmrest's data parser, e.g. v0.0.42 (default: the newest both "
                           "slurmrestd and scalestudy speak)"});
  entry.system_keys = batch_system_keys();
  entry.system_keys.push_back(
      {"url", "URL", "slurmrestd: unix:/path/to/socket or https://host:port"});
  entry.system_keys.push_back(
      {"rest_api", "VERSION", "slurmrestd's data parser to speak, e.g. v0.0.42 (pins it)"});
  entry.cancels_with = "slurmrestd DELETE";
  entry.detect_order = 0;
  entry.detect_when = "$SCALESTUDY_SLURMRESTD is set";
  entry.detect = []() { return !first_env({"SCALESTUDY_SLURMRESTD"}).empty(); };
  entry.make = [](const SchedulerContext& context,
                  const SchedulerOptionValues& values) -> Result<std::unique_ptr<Scheduler>> {
    SlurmRestOptions options;
    options.batch = parse_batch_options(context, values);
    if (auto url = values.find("--url"); url != values.end()) options.rest_url = url->second;
    if (auto api = values.find("--rest-api"); api != values.end()) {
      options.rest_api_version = api->second;
    }
    auto made = SlurmRestScheduler::create(options);
    if (!made) return made.status();
    return std::unique_ptr<Scheduler>(std::move(*made));
  };
  return entry;
}

Result<PreparedRun> SlurmRestScheduler::prepare(const RunSpec& spec,
                                                const RunPreparation& preparation) const {
  return prepare_job_script(spec, preparation);
}

Result<std::unique_ptr<SlurmRestScheduler>> SlurmRestScheduler::create(
    const SlurmRestOptions& options) {
  std::string url =
      options.rest_url.empty() ? first_env({"SCALESTUDY_SLURMRESTD"}) : options.rest_url;
  if (url.empty()) {
    return Status::error(
        "slurmrest: no slurmrestd URL (set SCALESTUDY_SLURMRESTD to "
        "unix:/path/to/slurmrestd.sock or https://host:port)");
  }
  if (Status safe = check_slurmrest_url(url); !safe) return safe;
  std::string user = first_env({"SCALESTUDY_SLURMRESTD_USER", "SLURM_USER_NAME"});
  if (user.empty()) user = current_user_name();
  std::string token = first_env({"SCALESTUDY_SLURMRESTD_TOKEN", "SLURM_JWT"});
  return std::unique_ptr<SlurmRestScheduler>(
      new SlurmRestScheduler(options, std::move(url), std::move(user), std::move(token)));
}

SlurmRestScheduler::SlurmRestScheduler(const SlurmRestOptions& options, std::string url,
                                       std::string user, std::string token)
    : options_(options),
      user_(user),
      token_(token),
      http_(std::move(url),
            token.empty()
                ? std::vector<std::pair<std::string, std::string>>{{"X-SLURM-USER-NAME", user}}
                : std::vector<std::pair<std::string, std::string>>{{"X-SLURM-USER-NAME", user},
                                                                   {"X-SLURM-USER-TOKEN", token}},
            options.batch.command_timeout_ms) {}

Status SlurmRestScheduler::scrubbed(const Status& status) const {
  if (status.is_ok() || token_.empty()) return status;
  return Status::error(redact(status.message(), token_, "<token>"));
}

Result<RestApi> SlurmRestScheduler::api() {
  if (api_) return *api_;
  auto openapi = call_raw("GET", "/openapi/v3", "");
  if (!openapi) {
    return openapi.status().with_context(
        "slurmrestd unreachable (reading its API versions, GET /openapi/v3)");
  }
  auto chosen = choose_rest_api(offered_rest_apis(*openapi), options_.rest_api_version);
  if (!chosen) return chosen.status();
  api_ = *chosen;
  return *api_;
}

Result<nlohmann::json> SlurmRestScheduler::call(const std::string& method, const std::string& path,
                                                const std::string& body, bool accounting) {
  auto version = api();
  if (!version) return version.status();
  return call_raw(method, (accounting ? "/slurmdb/" : "/slurm/") + version->name() + path, body);
}

Result<nlohmann::json> SlurmRestScheduler::call_raw(const std::string& method,
                                                    const std::string& path,
                                                    const std::string& body) {
  auto response = http_.request(method, path, body);
  if (!response) return scrubbed(response.status());
  auto answer = nlohmann::json::parse(response->body, nullptr, false);
  if (answer.is_discarded()) {
    return scrubbed(Status::error(method + " " + path + ": HTTP " +
                                  std::to_string(response->status_code) + ": " +
                                  response->body.substr(0, 300)));
  }
  return answer;
}

Status SlurmRestScheduler::check_reachable() {
  if (auto version = api(); !version) return version.status();
  auto answer = call("GET", "/ping");
  if (!answer) return answer.status().with_context("slurmrestd unreachable");
  if (std::string errors = rest_errors(*answer); !errors.empty()) {
    return scrubbed(Status::error("slurmrestd answered the ping with errors: " + errors));
  }
  return Status::ok();
}

WaveCapacity SlurmRestScheduler::read_wave_capacity() {
  WaveCapacity capacity;
  if (auto partitions = call("GET", "/partitions")) {
    capacity.partitions = rest_partition_times(*partitions);
  }
  auto associations = call("GET", "/associations?user=" + user_, "", true);
  auto qos = call("GET", "/qos", "", true);
  if (!associations || !qos) return capacity;
  auto limit = rest_submit_limit(*associations, *qos, user_);
  if (!limit) return capacity;
  auto jobs = call("GET", "/jobs");
  if (!jobs) return capacity;
  capacity.free_slots = std::max(0, limit->jobs - rest_queued_jobs(*jobs, user_));
  capacity.limit = limit->source;
  return capacity;
}

Result<std::vector<Submission>> SlurmRestScheduler::submit(const std::vector<PreparedRun>& runs,
                                                           const SubmitCallbacks& callbacks) {
  auto version = api();
  if (!version) return version.status();
  const WaveCapacity capacity = read_wave_capacity();
  const Environment submitter = current_environment();
  auto post = [&](const BatchJob& job,
                  const std::vector<std::string>& submit_options) -> Result<std::string> {
    std::ifstream file(job.script_path);
    std::stringstream script;
    script << file.rdbuf();
    if (!file) return Status::error(job.script_path + ": cannot read the job script");
    std::string working_directory = job.is_array
                                        ? job.script_path.substr(0, job.script_path.rfind('/'))
                                        : job.runs.front()->out_dir;
    // slurmrestd inherits no environment; the data parser it was submitted with goes to
    // the run's provenance.
    Environment environment = rest_job_environment(job.runs, submitter);
    environment["SCALESTUDY_SLURMREST_API"] = version->name();
    auto body =
        rest_submit_body(script.str(), submit_options, environment, working_directory, *version);
    if (!body) return body.status();
    auto answer = call("POST", "/job/submit", body->dump());
    if (!answer) return answer.status();
    auto job_id = parse_rest_submit_response(*answer);
    return job_id ? job_id : scrubbed(job_id.status());
  };
  return submit_wave(runs, options_.batch, capacity, post, callbacks);
}

Result<std::map<std::string, JobStatus>> SlurmRestScheduler::poll(
    const std::vector<std::string>& all_job_ids) {
  std::map<std::string, JobStatus> states;
  std::vector<std::string> job_ids, packed_ids;
  for (const auto& job_id : all_job_ids) {
    (is_packed_job_id(job_id) ? packed_ids : job_ids).push_back(job_id);
  }
  for (const auto& allocation : packed_allocation_ids(packed_ids)) {  // steps: accounting
    auto accounted = call("GET", "/job/" + allocation, "", true);
    if (!accounted) return accounted.status();
    auto packed = packed_run_states(parse_rest_db_allocations(*accounted), packed_ids);
    states.insert(packed.begin(), packed.end());
  }
  if (job_ids.empty()) return states;
  auto live = call("GET", "/jobs");
  if (!live) return live.status();
  auto known = parse_rest_jobs(*live);
  std::set<std::string> missing_bases;
  for (const auto& job_id : job_ids) {
    if (auto found = known.find(job_id); found != known.end()) {
      states[job_id] = found->second;
    } else {
      missing_bases.insert(base_job_id(job_id));
    }
  }
  // Finished jobs slurmctld has forgotten: ask the accounting database.
  for (const auto& base : missing_bases) {
    auto accounted = call("GET", "/job/" + base, "", true);
    if (!accounted) return accounted.status();
    for (const auto& [job_id, status] : parse_rest_db_jobs(*accounted)) {
      if (std::find(job_ids.begin(), job_ids.end(), job_id) != job_ids.end() &&
          states.count(job_id) == 0) {
        states[job_id] = status;
      }
    }
  }
  return states;
}

Status SlurmRestScheduler::cancel(const std::vector<std::string>& job_ids) {
  for (const auto& job_id : job_ids) {
    auto answer = call("DELETE", "/job/" + job_id);
    if (!answer) return answer.status();
    if (std::string errors = rest_errors(*answer); !errors.empty()) {
      return scrubbed(Status::error("cancel " + job_id + ": " + errors));
    }
  }
  return Status::ok();
}

}  // namespace scalestudy::sched
