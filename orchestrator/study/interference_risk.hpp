// Whether a study's settings let its runs measure each other: runs that share a node
// (sbatch without --exclusive while the array throttle lets several run at once), runs
// executed several at once on this host, or more ranks × CPUs than this host has hardware
// threads. `plan` and `submit` print these; the report flags runs that did overlap
// (results/interference.hpp). Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "orchestrator/study/study.hpp"

namespace scalestudy {

// Where the runs execute: on this host (the submitting process runs them), on a cluster's
// nodes, or not known yet (plan).
enum class RunPlacement { kUnknown, kThisHost, kCluster };

struct ExecutionSettings {
  RunPlacement placement = RunPlacement::kUnknown;
  int max_parallel_runs = 1;  // on this host: runs at once
  int hardware_threads = 0;   // of this host; 0: unknown
};

// One sentence per risk, naming the setting that allows it and how to avoid it.
std::vector<std::string> interference_risks(const Study& study, const ExecutionSettings& settings);

}  // namespace scalestudy
