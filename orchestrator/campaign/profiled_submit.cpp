#include "orchestrator/campaign/profiled_submit.hpp"

#include "orchestrator/campaign/claim_lease.hpp"
#include "orchestrator/campaign/job_directory.hpp"
#include "orchestrator/campaign/launch_prepared.hpp"
#include "orchestrator/study/run_id.hpp"

namespace scalestudy::campaign {

RunSpec make_profiled_spec(const RunSpec& measured, const ProfileDefinition& profile) {
  RunSpec spec = measured;
  spec.profile = profile.name;
  for (const auto& [key, value] : profile.params) spec.params[key] = value;
  spec.run_id = compute_run_id(spec);
  return spec;
}

Result<ProfiledSubmission> submit_profiled_run(StudyState& state, const RunSpec& spec,
                                               const std::string& out_dir,
                                               sched::Scheduler& scheduler,
                                               const PrepareRun& prepare) {
  ProfiledSubmission result;
  result.run_id = spec.run_id;
  result.out_dir = out_dir;
  const ClaimLease lease(state.database().path());
  const std::string& token = lease.token();
  auto present = state.register_profiled_run(spec, out_dir, token);
  if (!present) return present.status();
  if (*present) {
    result.already_present = true;
    result.state = **present;
    return result;
  }

  const Status directory = prepare_job_directory(out_dir, scheduler.job_user());
  Result<sched::PreparedRun> prepared =
      directory ? prepare(spec, out_dir) : Result<sched::PreparedRun>(directory);
  if (!prepared) {
    state.release_claim(spec.run_id, token, prepared.status().message());
    return prepared.status().with_context("run " + spec.run_id);
  }
  auto launched = launch_prepared(state, scheduler, {*prepared}, token, {});
  if (!launched) return launched.status();
  if (!launched->errors.empty()) return Status::error(launched->errors.front());
  result.job_id = launched->submitted.front().job_id;
  auto now = state.run_state(spec.run_id);
  if (!now) return now.status();
  result.state = *now;
  return result;
}

}  // namespace scalestudy::campaign
