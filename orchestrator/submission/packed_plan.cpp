#include "orchestrator/submission/packed_plan.hpp"

#include "orchestrator/common/process_runner.hpp"
#include "orchestrator/study/scalar_values.hpp"

namespace scalestudy::submission {
namespace {

std::vector<const RunSpec*> run_pointers(const Study& study) {
  std::vector<const RunSpec*> runs;
  for (const RunSpec& run : study.runs) runs.push_back(&run);
  return runs;
}

}  // namespace

PackingInputs packing_inputs(const Study& study,
                             const std::vector<results::MeasuredRunTime>& measured) {
  PackingInputs inputs;
  inputs.measured_run_s = results::measured_run_seconds(study.runs, measured);
  if (common::find_on_path("scontrol")) {
    auto answer = common::run_process({{"scontrol", "show", "partition", "-o"}, {}, 10'000});
    if (answer && answer->succeeded()) {
      inputs.partitions = sched::parse_scontrol_partitions(answer->stdout_text);
      inputs.partitions_read = true;
    }
  }
  return inputs;
}

Result<std::vector<sched::PackedAllocationPlan>> plan_study_allocations(
    const Study& study, const PackingInputs& inputs) {
  return sched::plan_packed_sweep(run_pointers(study), inputs.measured_run_s, study.pack_concurrent,
                                  inputs.partitions);
}

std::string describe_allocations(const Study& study, const PackingInputs& inputs,
                                 const std::vector<sched::PackedAllocationPlan>& allocations) {
  std::string text = "packed, policy " +
                     std::string(study.pack_concurrent ? "concurrent" : "serial") + ": " +
                     std::to_string(allocations.size()) +
                     (allocations.size() == 1 ? " allocation" : " allocations");
  text += inputs.partitions_read ? " (partitions' MaxTime from scontrol"
                                 : " (no partition MaxTime known here: scontrol does not answer";
  text += "; " + std::to_string(inputs.measured_run_s.size()) + " of " +
          std::to_string(study.runs.size()) +
          " runs estimated from earlier measured runs, the others from slurm.time)\n";
  for (size_t number = 0; number < allocations.size(); ++number) {
    const sched::PackedAllocationPlan& allocation = allocations[number];
    text += "  allocation " + std::to_string(number + 1) + ": " + std::to_string(allocation.nodes) +
            (allocation.nodes == 1 ? " node, " : " nodes, ") +
            (allocation.time_minutes > 0 ? format_time_limit(allocation.time_minutes)
                                         : std::string("the partition's default time")) +
            ", steps estimated at " + format_time_limit((allocation.estimated_s + 59) / 60) + ", " +
            std::to_string(allocation.runs.size()) + " runs:";
    for (size_t index : allocation.runs) text += " " + study.runs[index].run_id;
    text += "\n";
  }
  return text;
}

}  // namespace scalestudy::submission
