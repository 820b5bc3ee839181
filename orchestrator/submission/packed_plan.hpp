// A packed study's allocations as they are planned before any scheduler is asked (for
// `plan --packed` and submit's GPU-hour gate), with the same estimator the submit uses:
// earlier measured run times from the study databases under the results dir, the
// partitions' MaxTime from `scontrol show partition` where scontrol answers, and each named
// system's limits.max_time.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/results/analysis/cost_estimate.hpp"
#include "orchestrator/sched/packing_plan.hpp"
#include "orchestrator/study/study.hpp"

namespace scalestudy::submission {

struct PackingInputs {
  std::map<std::string, double> measured_run_s;  // run id -> median measured seconds
  sched::PartitionTimes partitions;
  bool partitions_read = false;  // scontrol answered
};

// `measured`: results::load_measured_run_times of the results dir.
PackingInputs packing_inputs(const Study& study,
                             const std::vector<results::MeasuredRunTime>& measured);

Result<std::vector<sched::PackedAllocationPlan>> plan_study_allocations(
    const Study& study, const PackingInputs& inputs);

// One line per allocation: nodes, time limit, estimated steps and the runs, after a line on
// the policy and where the caps come from.
std::string describe_allocations(const Study& study, const PackingInputs& inputs,
                                 const std::vector<sched::PackedAllocationPlan>& allocations);

}  // namespace scalestudy::submission
