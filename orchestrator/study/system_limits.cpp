#include "orchestrator/study/system_limits.hpp"

#include "orchestrator/study/scalar_values.hpp"

namespace scalestudy {
namespace {

// "limits.max_nodes 2 of system testcluster-small (systems/testcluster-small.yaml:9:14)"
std::string limit_text(const SystemLimit& limit, const std::string& value,
                       const StudySystem& system) {
  return limit.field + " " + value + " of system " + system.run.label() + " (" +
         limit.location.to_string() + ")";
}

// The scale point a run came from, for the error's position.
SourceLocation scale_location(const RunSpec& run, const LimitSources& sources) {
  for (const ScalePoint& point : sources.scale) {
    if (point.nodes == run.nodes && point.tasks_per_node == run.tasks_per_node) {
      return point.location;
    }
  }
  return sources.fallback;
}

SourceLocation field_location(const std::string& field, const LimitSources& sources) {
  auto found = sources.field_locations.find(field);
  return found == sources.field_locations.end() ? sources.fallback : found->second;
}

void check_run(const RunSpec& run, const LimitSources& sources, const StudySystem& system,
               Diagnostics& diagnostics) {
  const std::string ranks = std::to_string(run.world_size) + " ranks";
  if (system.max_nodes && run.nodes > system.max_nodes->value) {
    diagnostics.add(
        scale_location(run, sources), "scale",
        ranks + " on " + std::to_string(run.nodes) + " nodes is more than " +
            limit_text(*system.max_nodes, std::to_string(system.max_nodes->value), system));
  }
  const int gpus = run.slurm.gpus_per_node;
  if (system.gpus_per_node && gpus > system.gpus_per_node->value) {
    diagnostics.add(
        scale_location(run, sources), "scale",
        ranks + " with " + std::to_string(gpus) + " GPUs per node is more than " +
            limit_text(*system.gpus_per_node, std::to_string(system.gpus_per_node->value), system));
  }
  const long long cores = static_cast<long long>(run.tasks_per_node) * run.slurm.cpus_per_task;
  if (system.cores_per_node && cores > system.cores_per_node->value) {
    diagnostics.add(scale_location(run, sources), "scale",
                    ranks + " at " + std::to_string(run.tasks_per_node) + " per node × " +
                        std::to_string(run.slurm.cpus_per_task) + " cpus_per_task need " +
                        std::to_string(cores) + " cores per node, more than " +
                        limit_text(*system.cores_per_node,
                                   std::to_string(system.cores_per_node->value), system));
  }
  const int minutes = run.slurm.time_limit_minutes;
  if (system.max_time_minutes && minutes > system.max_time_minutes->value) {
    diagnostics.add(
        field_location("slurm.time", sources), "slurm.time",
        format_time_limit(minutes) + " is longer than " +
            limit_text(*system.max_time_minutes,
                       format_time_limit(static_cast<int>(system.max_time_minutes->value)),
                       system));
  }
  if (system.memory_mb && run.slurm.memory_mb > system.memory_mb->value) {
    diagnostics.add(
        field_location("slurm.mem", sources), "slurm.mem",
        format_memory(run.slurm.memory_mb) + " per node is more than " +
            limit_text(*system.memory_mb, format_memory(system.memory_mb->value), system));
  }
}

}  // namespace

void check_system_limits(const std::vector<RunSpec>& runs, const LimitSources& sources,
                         const StudySystem& system, Diagnostics& diagnostics) {
  for (const RunSpec& run : runs) check_run(run, sources, system, diagnostics);
}

}  // namespace scalestudy
