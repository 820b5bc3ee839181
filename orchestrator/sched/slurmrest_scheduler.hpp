// The `slurmrest` backend: the slurm backend's behaviour through slurmrestd's REST API over
// libcurl, in the newest data parser both this backend and the server speak (read from the
// server's /openapi/v3 once, on first use; slurmrest_api.hpp), or the one pinned. The URL comes
// from SlurmRestOptions::rest_url or $SCALESTUDY_SLURMRESTD ("unix:/run/slurmrestd.sock" or
// "https://host:port"); the JWT from $SCALESTUDY_SLURMRESTD_TOKEN or $SLURM_JWT, sent as
// X-SLURM-USER-TOKEN with X-SLURM-USER-NAME ($SCALESTUDY_SLURMRESTD_USER, $SLURM_USER_NAME, else
// the current user). The token lives only in this object's memory: it is never logged or written,
// and every error message is scrubbed of it. Jobs run as the token's user. Not thread-safe.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>

#include "orchestrator/sched/batch_jobs.hpp"
#include "orchestrator/sched/http_client.hpp"
#include "orchestrator/sched/scheduler.hpp"
#include "orchestrator/sched/scheduler_registry.hpp"
#include "orchestrator/sched/slurmrest_api.hpp"
#include "orchestrator/sched/submit_limits.hpp"

namespace scalestudy::sched {

struct SlurmRestOptions {
  BatchOptions batch;
  std::string rest_url{};  // "unix:/path/slurmrestd.sock" or "https://host:port"; empty: from env
  std::string rest_api_version{};  // "v0.0.42": pinned; empty: the newest both sides speak
};

// The registry's entry: name "slurmrest", detected when $SCALESTUDY_SLURMRESTD is set;
// shares job ids with "slurm".
SchedulerEntry slurmrest_scheduler_entry();

class SlurmRestScheduler : public Scheduler {
 public:
  // An error when no URL is configured.
  static Result<std::unique_ptr<SlurmRestScheduler>> create(const SlurmRestOptions& options);

  std::string name() const override { return "slurmrest"; }
  // GET /slurm/<version>/ping: an error when slurmrestd does not answer, slurmctld is down,
  // or no data parser is common to both sides (a pinned one the server lacks included).
  Status check_reachable() override;
  std::string job_user() const override { return user_; }
  // The rendered job script (<out_dir>/job.sbatch).
  Result<PreparedRun> prepare(const RunSpec& spec,
                              const RunPreparation& preparation) const override;
  Result<std::vector<Submission>> submit(const std::vector<PreparedRun>& runs,
                                         const SubmitCallbacks& callbacks) override;
  Result<std::map<std::string, JobStatus>> poll(const std::vector<std::string>& job_ids) override;
  Status cancel(const std::vector<std::string>& job_ids) override;

  int requests_sent() const { return http_.requests_sent(); }
  // The data parser spoken: negotiated on first use, then kept.
  Result<RestApi> api();

 private:
  SlurmRestScheduler(const SlurmRestOptions& options, std::string url, std::string user,
                     std::string token);
  // GET/POST/DELETE of `path` under /slurm/<version> or, with `accounting`,
  // /slurmdb/<version>; the parsed JSON answer.
  Result<nlohmann::json> call(const std::string& method, const std::string& path,
                              const std::string& body = "", bool accounting = false);
  Result<nlohmann::json> call_raw(const std::string& method, const std::string& path,
                                  const std::string& body);
  Status scrubbed(const Status& status) const;
  // The user's submit limits, their queued jobs and the partitions' MaxTime
  // (slurmrest_limits.hpp); what cannot be read stays unknown.
  WaveCapacity read_wave_capacity();

  SlurmRestOptions options_;
  std::string user_;
  std::string token_;
  HttpClient http_;
  std::optional<RestApi> api_;
};

}  // namespace scalestudy::sched
