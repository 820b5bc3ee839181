#include "orchestrator/study/run_id.hpp"

#include "orchestrator/study/run_spec_names.hpp"
#include "orchestrator/study/workload_params.hpp"

namespace scalestudy {
namespace {

// Bump when the serialisation changes shape, so old and new ids never collide by accident.
constexpr std::string_view kSerializationVersion = "scalestudy-run/1\n";

class Serializer {
 public:
  explicit Serializer(std::string& out) : out_(out) {}
  void field(std::string_view name, std::string_view value) {
    out_.append(name);
    out_ += '=';
    out_ += std::to_string(value.size());
    out_ += ':';
    out_.append(value);
    out_ += '\n';
  }
  void field(std::string_view name, long long value) { field(name, std::to_string(value)); }
  void map(std::string_view name, const std::map<std::string, std::string>& values) {
    field(name, static_cast<long long>(values.size()));
    for (const auto& [key, value] : values) {
      field("k", key);
      field("v", value);
    }
  }
  void list(std::string_view name, const std::vector<std::string>& values) {
    field(name, static_cast<long long>(values.size()));
    for (const auto& value : values) field("i", value);
  }

 private:
  std::string& out_;
};

}  // namespace

std::string canonical_run_serialization(const RunSpec& spec) {
  std::string out;
  out.reserve(512);
  out.append(kSerializationVersion);
  Serializer s(out);
  s.field("study", spec.study);
  s.field("kind", study_kind_name(spec.kind));
  s.field("repeat", spec.repeat);
  s.field("nodes", spec.nodes);
  s.field("tasks_per_node", spec.tasks_per_node);
  s.field("world_size", spec.world_size);
  s.field("global_batch", spec.global_batch);
  s.field("per_gpu_batch", spec.per_gpu_batch);
  s.field("workload", spec.workload);
  s.map("params", workload_params(spec));  // batch_size hashed as it always was
  s.field("slurm.partition", spec.slurm.partition);
  s.field("slurm.account", spec.slurm.account);
  s.field("slurm.qos", spec.slurm.qos);
  s.field("slurm.constraint", spec.slurm.constraint);
  s.field("slurm.time_limit_minutes", spec.slurm.time_limit_minutes);
  s.field("slurm.cpus_per_task", spec.slurm.cpus_per_task);
  s.field("slurm.memory_mb", spec.slurm.memory_mb);
  s.field("slurm.gpus_per_node", spec.slurm.gpus_per_node);
  s.list("slurm.extra_options", spec.slurm.extra_options);
  // Only when set, so the ids of runs without a reservation stay what they were.
  if (!spec.slurm.reservation.empty()) s.field("slurm.reservation", spec.slurm.reservation);
  s.field("launcher", launcher_name(spec.launcher));
  s.list("modules", spec.modules);
  s.field("container.image", spec.container.image);
  s.list("container.binds", spec.container.binds);
  s.map("env", spec.env);
  // Only when set, so the ids of studies without one stay what they were.
  if (!spec.env_passthrough.empty()) s.list("env_passthrough", spec.env_passthrough);
  s.field("profile", spec.profile);
  // Only when set, so the ids of studies written before invocations existed stay the same.
  // The metrics are left out: they change what is read from a run, not what runs.
  if (!spec.invocation.is_default()) {
    s.list("invocation.args", spec.invocation.args);
    s.field("invocation.flag_style", flag_form_name(spec.invocation.flag_form));
    s.map("invocation.env_params", spec.invocation.env_params);
    s.field("invocation.run_flags", spec.invocation.run_flags ? 1 : 0);
    if (!spec.invocation.is_classic()) {
      s.field("invocation.booleans", boolean_form_name(spec.invocation.booleans));
      s.map("invocation.flag_names", spec.invocation.flag_names);
      s.list("invocation.positional", spec.invocation.positional);
      s.list("invocation.not_passed", spec.invocation.not_passed);
    }
  }
  // Only when a study renders files, so the ids of others stay the same; the rendered
  // content, not the template: a template's change changes the runs it renders for.
  if (!spec.files.empty()) s.map("files", spec.files);
  // A named system makes the same point on two systems two runs; the hash covers its
  // scheduler settings, srun flags and node shape, which no field above holds.
  if (spec.system.named) {
    s.field("system", spec.system.label());
    s.field("system.hash", spec.system.hash);
  }
  return out;
}

std::string fnv1a_128_hex(std::string_view bytes) {
  using u128 = unsigned __int128;
  const u128 kOffsetBasis = (u128{0x6c62272e07bb0142ULL} << 64) | 0x62b821756295c58dULL;
  const u128 kPrime = (u128{0x0000000001000000ULL} << 64) | 0x000000000000013BULL;
  u128 hash = kOffsetBasis;
  for (unsigned char byte : bytes) {
    hash ^= byte;
    hash *= kPrime;
  }
  static const char kHex[] = "0123456789abcdef";
  std::string hex(32, '0');
  for (int i = 31; i >= 0; --i) {
    hex[i] = kHex[static_cast<unsigned>(hash & 0xF)];
    hash >>= 4;
  }
  return hex;
}

std::string compute_run_id(const RunSpec& spec) {
  return fnv1a_128_hex(canonical_run_serialization(spec)).substr(0, 16);
}

}  // namespace scalestudy
