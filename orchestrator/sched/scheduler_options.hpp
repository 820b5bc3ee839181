// What a scheduler is configured from: the command-line options each backend declares (with
// their help text, which the CLI's usage shows), the values a user gave them, and the few
// settings every backend shares. Each backend parses the values into its own typed options.
// Plain data.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace scalestudy::common {
class InterruptWatch;  // common/interrupt_watch.hpp
}  // namespace scalestudy::common

namespace scalestudy::sched {

// One command-line option of a backend, e.g. {"--max-parallel", "N", "runs at once (default 1)"}.
struct SchedulerOption {
  std::string flag;
  std::string value_name;  // empty: a flag that takes no value
  std::string help;        // one line, without the backend's name
};

// The options a user gave: flag -> value ("" for flags without a value).
using SchedulerOptionValues = std::map<std::string, std::string>;

// What every backend may use, whichever options it takes.
struct SchedulerContext {
  std::string bin_dir;  // where scalestudy's helpers live (scalestudy-launch); may be empty
  std::string array_script_dir{};  // where job-array wrapper scripts go; empty: beside the runs
  int array_throttle = 0;          // the study's array_throttle; 0: none
  // The runs of one submission share one allocation, each a job step (`allocation: packed`,
  // `submit --packed`); backends without allocations (local) ignore it.
  bool packed = false;
  // How a packed allocation runs its steps: one after another, or side by side on
  // disjoint nodes (the study's `pack: {policy: ...}`).
  bool packed_concurrent = false;
  // Run id -> the median measured run time of earlier runs of its configuration
  // (results/cost_estimate.hpp), which sizes packed allocations.
  std::map<std::string, double> measured_run_s{};
  int command_timeout_ms = 120'000;
  // Ctrl-C on the command that runs runs itself (the local scheduler): the first stops the
  // runs it started and records them cancelled, the second leaves at once. Null: none
  // watched (SIGINT acts as it always does).
  common::InterruptWatch* interrupts = nullptr;
  // `run --detach`: the first Ctrl-C already leaves the runs started going on (their ends
  // recorded beside them), as the second does otherwise.
  bool detach_on_interrupt = false;
};

}  // namespace scalestudy::sched
