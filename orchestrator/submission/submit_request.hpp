// What a submit is asked to do, as plain values: the study, where its results go, the
// scheduler and its options, the campaign, and the gates checked before anything is
// submitted; and why a submit could not be set up. The command line fills a request from
// its flags (cli/submit_flow); tests, the Python package or a service fill it themselves.
// make_submit_sessions (submit_sessions.hpp) turns it into sessions.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/sched/scheduler_options.hpp"
#include "orchestrator/study/study.hpp"

namespace scalestudy::submission {

struct SubmitRequest {
  Study study;              // loaded on the systems `systems` names (system_choice.hpp)
  std::string results_dir;  // the database is <results_dir>/<study>[@<campaign>].sqlite
  // The backend of the runs without a named system, and of a named system's family for
  // theirs; unset: a named system's own, else the backend detected.
  std::optional<std::string> scheduler;
  // The schedulers' options as flag and value ("--max-parallel" -> "2"; "" for a switch),
  // as the registry declares them (sched::scheduler_entries).
  sched::SchedulerOptionValues scheduler_options;
  std::vector<std::string> systems;  // the labels the study was loaded with, recorded for waves
  // A campaign name, or "auto" (named from the UTC date and the workload's git commit);
  // unset: the default campaign.
  std::optional<std::string> campaign;
  bool dry_run = false;  // write the job scripts and report what would be submitted
  bool packed = false;   // the sweep as job steps of allocations (the study's allocation: packed)
  // Refuse a study whose runs request more GPU-hours (the study's budget applies as well):
  // a number ≥ 0 as given (`--max-gpu-hours`), checked after the workload parameters, the
  // campaign and the scheduler options, as the command line always checked it.
  std::optional<std::string> max_gpu_hours;
  // Only runs never submitted or waiting for a submit slot: the later waves of `wait`.
  bool planned_only = false;
  std::function<void(const std::string& line)> log;  // the submit's progress lines; may be empty
  // Ctrl-C on the caller, for the backends that run runs themselves (local); may be null.
  common::InterruptWatch* interrupts = nullptr;
  bool detach = false;  // with interrupts: Ctrl-C leaves the runs started going on
};

// Why a submit could not be set up, by what is at fault.
struct SubmitFailure {
  enum class Kind {
    kInvalidParams,  // workload parameters the binaries refuse: every one, file:line:column
    kBadRequest,     // the request: campaign name, scheduler options, GPU-hour cap, systems,
                     // fault hook
    kRefused,        // the study cannot go as asked: budget, allocations, the waves' study
    kUnavailable,    // what it needs cannot be made or reached: a scheduler, a folder, a file
  };
  Kind kind;
  Status status;
};

}  // namespace scalestudy::submission
