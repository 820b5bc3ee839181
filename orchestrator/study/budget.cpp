#include "orchestrator/study/budget.hpp"

#include <cstdio>

namespace scalestudy {
std::string format_hours(double hours) {
  char text[48];
  std::snprintf(text, sizeof text, hours >= 1 || hours == 0 ? "%.2f" : "%.3g", hours);
  return text;
}

RequestedCost requested_cost(const std::vector<RunSpec>& runs) {
  RequestedCost cost;
  for (const auto& run : runs) {
    ++cost.runs;
    if (run.slurm.time_limit_minutes <= 0) {
      ++cost.runs_without_time_limit;
      continue;
    }
    const double node_hours = run.slurm.time_limit_minutes / 60.0 * run.nodes;
    cost.node_hours += node_hours;
    cost.gpu_hours += node_hours * run.slurm.gpus_per_node;
  }
  return cost;
}

std::string describe_cost(const RequestedCost& cost) {
  std::string text = std::to_string(cost.runs) + (cost.runs == 1 ? " run, " : " runs, ") +
                     format_hours(cost.node_hours) + " node-hours, " +
                     format_hours(cost.gpu_hours) +
                     " GPU-hours requested (time limit × nodes × GPUs)";
  if (cost.runs_without_time_limit > 0) {
    text +=
        "; " + std::to_string(cost.runs_without_time_limit) + " without a time limit not counted";
  }
  return text;
}

Status check_budget(const RequestedCost& cost, std::optional<double> study_budget_gpu_hours,
                    std::optional<double> max_gpu_hours) {
  std::optional<double> budget;
  std::string source;
  if (study_budget_gpu_hours) {
    budget = study_budget_gpu_hours;
    source = "the study's budget.gpu_hours";
  }
  if (max_gpu_hours && (!budget || *max_gpu_hours < *budget)) {
    budget = max_gpu_hours;
    source = "--max-gpu-hours";
  }
  if (!budget) return Status::ok();
  if (cost.runs_without_time_limit > 0) {
    return Status::error(std::to_string(cost.runs_without_time_limit) +
                         " runs have no time limit (slurm.time), so their GPU-hours are "
                         "unknown; " +
                         source + " " + format_hours(*budget) + " cannot be checked");
  }
  if (cost.gpu_hours <= *budget) return Status::ok();
  return Status::error("over budget by " + format_hours(cost.gpu_hours - *budget) +
                       " GPU-hours: the sweep requests " + format_hours(cost.gpu_hours) +
                       " GPU-hours, " + source + " allows " + format_hours(*budget) +
                       "; nothing was submitted");
}

}  // namespace scalestudy
