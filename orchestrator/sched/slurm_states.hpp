// Reading SLURM's answers: state names (sacct's "CANCELLED by 0", squeue's COMPLETING ...)
// mapped onto JobState, "3:0" exit codes, sacct/squeue parsable output, and array job ids
// ("12_[3-5%2]" = tasks 3..5 still pending). Shared by the slurm (CLI) and slurmrest
// backends. Pure functions.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/sched/scheduler.hpp"

namespace scalestudy::sched {

// SLURM's job state name (any case, extra words after a space ignored) as a JobState;
// nullopt for names that say nothing about a job's fate (e.g. empty).
std::optional<JobState> map_slurm_state(const std::string& slurm_state);

// "EXIT:SIGNAL" as sacct prints it -> the exit code (128 + signal when killed by one).
std::optional<int> parse_slurm_exit_code(const std::string& text);

// A JobStatus with a readable reason from SLURM's state, exit code and reason fields.
std::optional<JobStatus> make_slurm_status(const std::string& state, std::optional<int> exit_code,
                                           const std::string& reason);

// The '|'-separated fields of one line of --parsable2 output (trailing empty field kept).
std::vector<std::string> parsable_fields(const std::string& line);
// A sacct field, "" where it says there is none yet ("Unknown", "None", "None assigned").
std::string sacct_value(const std::string& field);

// `sacct -X -n --parsable2 --format=JobID,State,ExitCode,Reason[,NodeList,Submit,Start,End]`
// output, keyed by job id (pending array ranges expanded to one entry per task); the
// optional fields fill each status's placement.
std::map<std::string, JobStatus> parse_sacct(const std::string& output);
// `squeue -h -r -t all -o %i|%T|%r` output, keyed by job id.
std::map<std::string, JobStatus> parse_squeue(const std::string& output);

// "12_[3-5,7%2]" -> {12_3, 12_4, 12_5, 12_7}; any other id -> {id}.
std::vector<std::string> expand_array_job_id(const std::string& job_id);
// "12_4" -> "12"; "12" -> "12".
std::string base_job_id(const std::string& job_id);

}  // namespace scalestudy::sched
