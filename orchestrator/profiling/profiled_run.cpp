#include "orchestrator/profiling/profiled_run.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "orchestrator/campaign/run_spec_json.hpp"
#include "orchestrator/common/process_runner.hpp"
#include "orchestrator/sched/render/profile_wrapper.hpp"
#include "orchestrator/study/run_id.hpp"
#include "orchestrator/study/workload_params.hpp"

namespace scalestudy::profiling {
namespace {

std::string position(const std::string& path, const YAML::Mark& mark) {
  return path + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

}  // namespace

Result<ProfileDefinition> load_profile_definition(const std::string& profiles_dir,
                                                  const std::string& name) {
  const std::string path = (std::filesystem::path(profiles_dir) / (name + ".yaml")).string();
  if (!std::filesystem::is_regular_file(path)) {
    return Status::error("profile '" + name + "': no file " + path);
  }
  ProfileDefinition profile;
  profile.name = name;
  try {
    YAML::Node root = YAML::LoadFile(path);
    if (YAML::Node params = root["params"]) {
      if (!params.IsMap()) {
        return Status::error(position(path, params.Mark()) + ": field 'params': expected a map");
      }
      for (const auto& entry : params) {
        if (!entry.second.IsScalar()) {
          return Status::error(position(path, entry.second.Mark()) + ": field 'params." +
                               entry.first.Scalar() + "': expected a single value");
        }
        profile.params[entry.first.Scalar()] = entry.second.Scalar();
      }
    }
    if (YAML::Node wrapper = root["wrapper"]) {
      if (!wrapper.IsSequence()) {
        return Status::error(position(path, wrapper.Mark()) + ": field 'wrapper': expected a list");
      }
      for (const auto& word : wrapper) {
        if (!word.IsScalar()) {
          return Status::error(position(path, word.Mark()) +
                               ": field 'wrapper': each word is a single value");
        }
        profile.wrapper.push_back(word.Scalar());
      }
    }
  } catch (const YAML::Exception& error) {
    return Status::error(position(path, error.mark) + ": " + error.msg);
  }
  return profile;
}

RunSpec make_profiled_spec(const RunSpec& measured, const ProfileDefinition& profile) {
  RunSpec spec = measured;
  spec.profile = profile.name;
  for (const auto& [key, value] : profile.params) spec.params[key] = value;
  spec.run_id = compute_run_id(spec);
  return spec;
}

Result<std::vector<std::string>> local_wrapper_argv(const ProfileDefinition& profile,
                                                    const std::string& out_dir,
                                                    const std::string& run_id) {
  std::vector<std::string> words;
  for (const auto& word : profile.wrapper) {
    words.push_back(expand_wrapper_word(word, out_dir, run_id));
  }
  if (!words.empty() && words[0].find('/') == std::string::npos) {
    auto program = common::find_on_path(words[0]);
    if (!program) {
      return Status::error("profile '" + profile.name + "': '" + words[0] + "' is not on PATH");
    }
    words[0] = *program;
  }
  return words;
}

campaign::PrepareRun make_profiled_preparer(campaign::PrepareRun base, ProfileDefinition profile) {
  return [base = std::move(base), profile = std::move(profile)](
             const RunSpec& spec, const std::string& out_dir) -> Result<sched::PreparedRun> {
    auto run = base(spec, out_dir);
    if (!run) return run;
    auto wrapper = local_wrapper_argv(profile, out_dir, spec.run_id);
    if (!wrapper) return wrapper.status();
    wrapper->insert(wrapper->end(), run->workload_argv.begin(), run->workload_argv.end());
    run->workload_argv = std::move(*wrapper);
    return run;
  };
}

Result<ProfiledSubmission> submit_profiled_run(campaign::StudyState& state, const RunSpec& spec,
                                               const std::string& out_dir,
                                               sched::Scheduler& scheduler,
                                               const campaign::PrepareRun& prepare) {
  ProfiledSubmission result;
  result.run_id = spec.run_id;
  result.out_dir = out_dir;
  const std::string token = campaign::make_claim_token();
  sqlite::Database& db = state.database();
  // Claims the run: a new row, or an existing one that is neither in flight nor completed.
  Status claimed = sqlite::in_transaction(db, [&]() -> Status {
    auto existing = db.query("SELECT state FROM runs WHERE run_id = ?", {spec.run_id});
    if (!existing) return existing.status();
    if (!existing->empty()) {
      const std::string current = sqlite::to_string((*existing)[0][0]);
      if (current == "COMPLETED" || campaign::is_in_flight(current) ||
          current == campaign::kStateSubmitting) {
        result.already_present = true;
        result.state = current;
        return Status::ok();
      }
    }
    auto upsert = db.query(
        "INSERT INTO runs(run_id, repeat, nodes, tasks_per_node, world_size, gpus_per_node, "
        "global_batch, per_gpu_batch, varied_json, params_json, spec_json, profiled, state, "
        "out_dir, planned, claim_token, claimed_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, 'SUBMITTING', ?, 1, ?, ?) "
        "ON CONFLICT(run_id) DO UPDATE SET state = 'SUBMITTING', profiled = 1, planned = 1, "
        "claim_token = excluded.claim_token, claimed_at = excluded.claimed_at",
        {spec.run_id, int64_t{spec.repeat}, int64_t{spec.nodes}, int64_t{spec.tasks_per_node},
         int64_t{spec.world_size}, int64_t{spec.slurm.gpus_per_node}, int64_t{spec.global_batch},
         int64_t{spec.per_gpu_batch}, nlohmann::json(spec.varied).dump(),
         nlohmann::json(workload_params(spec)).dump(), campaign::run_spec_to_json(spec).dump(),
         out_dir, token, campaign::utc_now_iso8601()});
    return upsert.status();
  });
  if (!claimed) return claimed.with_context("registering profiled run " + spec.run_id);
  if (result.already_present) return result;

  std::error_code error;
  std::filesystem::create_directories(out_dir, error);
  Result<sched::PreparedRun> prepared =
      error ? Result<sched::PreparedRun>(Status::error(out_dir + ": " + error.message()))
            : prepare(spec, out_dir);
  if (!prepared) {
    state.release_claim(spec.run_id, token, prepared.status().message());
    return prepared.status().with_context("run " + spec.run_id);
  }
  Status record_error;
  sched::SubmitCallbacks callbacks;
  callbacks.submitted = [&](const sched::Submission& submission) {
    result.job_id = submission.job_id;
    Status recorded = state.record_submission(submission, scheduler.name(), token);
    if (!recorded && record_error.is_ok()) record_error = recorded;
  };
  callbacks.finished = [&](const sched::Submission& submission, const common::JobStatus& status) {
    Status recorded = state.record_job_status(submission.run_id, submission.job_id, status);
    if (!recorded && record_error.is_ok()) record_error = recorded;
  };
  auto submitted = scheduler.submit({*prepared}, callbacks);
  if (result.job_id.empty()) {
    std::string why = submitted ? "not submitted" : submitted.status().message();
    state.release_claim(spec.run_id, token, why);
    return Status::error("run " + spec.run_id + ": " + why);
  }
  if (!record_error.is_ok()) return record_error;
  auto now = db.query_value("SELECT state FROM runs WHERE run_id = ?", {spec.run_id});
  if (!now) return now.status();
  result.state = *now ? sqlite::to_string(**now) : "";
  return result;
}

}  // namespace scalestudy::profiling
