#include "orchestrator/campaign/run_spec_json.hpp"

#include "orchestrator/study/run_spec_names.hpp"
#include "orchestrator/study/workload_params.hpp"

namespace scalestudy::campaign {

nlohmann::json run_spec_to_json(const RunSpec& spec) {
  const SlurmOptions& slurm = spec.slurm;
  return {
      {"run_id", spec.run_id},
      {"study", spec.study},
      {"kind", study_kind_name(spec.kind)},
      {"repeat", spec.repeat},
      {"nodes", spec.nodes},
      {"tasks_per_node", spec.tasks_per_node},
      {"world_size", spec.world_size},
      {"global_batch", spec.global_batch},
      {"per_gpu_batch", spec.per_gpu_batch},
      {"workload", spec.workload},
      {"params", workload_params(spec)},
      {"invocation",
       {{"args", spec.invocation.args},
        {"flag_style", flag_form_name(spec.invocation.flag_form)},
        {"booleans", boolean_form_name(spec.invocation.booleans)},
        {"flag_names", spec.invocation.flag_names},
        {"positional", spec.invocation.positional},
        {"not_passed", spec.invocation.not_passed},
        {"env_params", spec.invocation.env_params},
        {"run_flags", spec.invocation.run_flags}}},
      {"files", spec.files},
      {"metrics", metric_specs_to_json(spec.metrics)},
      {"varied", spec.varied},
      {"slurm",
       {{"partition", slurm.partition},
        {"account", slurm.account},
        {"qos", slurm.qos},
        {"constraint", slurm.constraint},
        {"reservation", slurm.reservation},
        {"time_limit_minutes", slurm.time_limit_minutes},
        {"cpus_per_task", slurm.cpus_per_task},
        {"memory_mb", slurm.memory_mb},
        {"gpus_per_node", slurm.gpus_per_node},
        {"extra_options", slurm.extra_options}}},
      {"launcher", launcher_name(spec.launcher)},
      {"modules", spec.modules},
      {"container", {{"image", spec.container.image}, {"binds", spec.container.binds}}},
      {"env", spec.env},
      {"env_passthrough", spec.env_passthrough},
      {"profile", spec.profile},
      {"system",
       {{"label", spec.system.label()},
        {"id", spec.system.id},
        {"variant", spec.system.variant},
        {"hash", spec.system.hash},
        {"named", spec.system.named},
        {"scheduler", spec.system.scheduler},
        {"scheduler_settings", spec.system.scheduler_settings},
        {"srun_flags", spec.system.srun_flags},
        {"node",
         {{"gpus", spec.system.node.gpus},
          {"gpu_model", spec.system.node.gpu_model},
          {"cores", spec.system.node.cores},
          {"hostname_pattern", spec.system.node.hostname_pattern}}},
        {"peak_tflops", spec.system.peak_tflops},
        {"resolved_yaml", spec.system.resolved_yaml}}},
  };
}

}  // namespace scalestudy::campaign
