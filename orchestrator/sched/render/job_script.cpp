#include "orchestrator/sched/render/job_script.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "orchestrator/sched/render/embedded_templates.hpp"
#include "orchestrator/sched/render/profile_wrapper.hpp"
#include "orchestrator/sched/render/shell_quote.hpp"
#include "orchestrator/sched/render/text_template.hpp"
#include "orchestrator/study/scalar_values.hpp"
#include "orchestrator/study/workload_command_line.hpp"

namespace scalestudy {
namespace {

enum Placeholder : int {
  kSbatchDirectives,
  kStudy,
  kRunId,
  kModuleLoads,
  kEnvExports,
  kOutDir,
  kLaunchLine,
  kPlaceholderCount
};
const std::vector<std::string> kPlaceholderNames = {"sbatch_directives", "study",       "run_id",
                                                    "module_loads",      "env_exports", "out_dir",
                                                    "launch_line"};

const TextTemplate& sbatch_template() {
  // Parsed once; the template is compiled in, so a parse error is a build defect.
  static const TextTemplate kTemplate = [] {
    Result<TextTemplate> parsed = TextTemplate::parse(kSbatchTemplate, kPlaceholderNames);
    if (!parsed)
      throw std::logic_error("slurm/templates/sbatch.sh.in: " + parsed.status().message());
    return std::move(parsed).value();
  }();
  return kTemplate;
}

void directive(std::string& out, const char* option, const std::string& value) {
  out.append("#SBATCH ").append(option).append("=").append(value).append("\n");
}

// --exclude's value: the host lists, comma-separated.
std::string exclude_list(const std::vector<std::string>& nodes) {
  std::string list;
  for (const std::string& node : nodes) list += (list.empty() ? "" : ",") + node;
  return list;
}

// sbatch reads #SBATCH values itself; a path with a space needs its double quotes.
std::string directive_path(const std::string& path) {
  return path.find(' ') == std::string::npos ? path : "\"" + path + "\"";
}

// sbatch expands %j, %x ... in --output and --error file names; a literal '%' (in the
// results path) is written "%%".
std::string literal_filename_pattern(const std::string& path) {
  std::string escaped;
  for (char c : path) {
    if (c == '%') escaped += '%';
    escaped += c;
  }
  return escaped;
}

std::string render_directives(const RunSpec& spec, const RenderContext& context) {
  const SlurmOptions& slurm = spec.slurm;
  std::string out;
  out.reserve(512);
  directive(out, "--job-name", spec.study + "-" + spec.run_id);
  directive(out, "--nodes", std::to_string(spec.nodes));
  directive(out, "--ntasks-per-node", std::to_string(spec.tasks_per_node));
  if (slurm.gpus_per_node > 0)
    directive(out, "--gpus-per-node", std::to_string(slurm.gpus_per_node));
  directive(out, "--cpus-per-task", std::to_string(slurm.cpus_per_task));
  if (slurm.memory_mb > 0) directive(out, "--mem", format_memory(slurm.memory_mb));
  if (slurm.time_limit_minutes > 0) {
    directive(out, "--time", format_time_limit(slurm.time_limit_minutes));
  }
  if (!slurm.partition.empty()) directive(out, "--partition", slurm.partition);
  if (!slurm.account.empty()) directive(out, "--account", slurm.account);
  if (!slurm.qos.empty()) directive(out, "--qos", slurm.qos);
  if (!slurm.constraint.empty()) directive(out, "--constraint", slurm.constraint);
  if (!slurm.reservation.empty()) directive(out, "--reservation", slurm.reservation);
  if (!slurm.exclude_nodes.empty()) directive(out, "--exclude", exclude_list(slurm.exclude_nodes));
  const std::string out_dir_pattern = literal_filename_pattern(context.out_dir);
  directive(out, "--output", directive_path(out_dir_pattern + "/slurm-%j.out"));
  directive(out, "--error", directive_path(out_dir_pattern + "/slurm-%j.err"));
  directive(out, "--signal",
            "TERM@" + std::to_string(term_signal_lead_seconds(slurm.time_limit_minutes)));
  for (const auto& option : slurm.extra_options) out.append("#SBATCH ").append(option).append("\n");
  out.pop_back();  // the template ends the block's last line
  return out;
}

// The launcher words before the workload: srun [scalestudy-launch ... --] [container]
// [profiler].
std::vector<std::string> launch_prefix(const RunSpec& spec, const RenderContext& context) {
  std::vector<std::string> words;
  if (spec.launcher == LauncherKind::kTorchrun) {
    // One launcher per node: without --ntasks, srun takes the allocation's SLURM_NTASKS (every
    // rank) and ignores --ntasks-per-node, so each node would start ranks_per_node launchers.
    words = {"srun",
             "--ntasks=" + std::to_string(spec.nodes),
             "--ntasks-per-node=1",
             "--kill-on-bad-exit=1",
             context.launch_helper_path,
             "--nproc-per-node",
             std::to_string(spec.tasks_per_node),
             "--rank-log-dir",
             context.out_dir};
    const std::vector<std::string> watch = hang_watch_flags(spec, context.py_spy_path);
    words.insert(words.end(), watch.begin(), watch.end());
    words.push_back("--");
  } else {
    words = {"srun",        "--kill-on-bad-exit=1", context.launch_helper_path,
             "--srun-task", "--rank-log-dir",       context.out_dir,
             "--"};
  }
  // The system's own srun options (launcher.srun_flags), such as --cpu-bind=cores.
  words.insert(words.begin() + 1, spec.system.srun_flags.begin(), spec.system.srun_flags.end());
  if (!spec.container.image.empty()) {
    words.push_back("apptainer");
    words.push_back("exec");
    if (spec.slurm.gpus_per_node > 0) words.push_back("--nv");
    for (const auto& bind : spec.container.binds) {
      words.push_back("--bind");
      words.push_back(bind);
    }
    words.push_back(spec.container.image);
  }
  for (const auto& word : context.profile_wrapper) {
    words.push_back(expand_wrapper_word(word, context.out_dir, spec.run_id));
  }
  return words;
}

}  // namespace

int term_signal_lead_seconds(int time_limit_minutes) {
  constexpr int kLeadSeconds = 60;
  if (time_limit_minutes <= 0) return kLeadSeconds;
  return std::min(kLeadSeconds, time_limit_minutes * 60 / 4);
}

Status check_render_context(const RenderContext& context) {
  for (const std::string* path : {&context.out_dir, &context.binary_path}) {
    if (path->empty() || (*path)[0] != '/') {
      return Status::error("render: '" + *path + "' is not an absolute path");
    }
    if (std::any_of(path->begin(), path->end(),
                    [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == '"'; })) {
      return Status::error("render: path '" + *path + "' holds a control character or '\"'");
    }
  }
  return Status::ok();
}

bool hang_watch_on(const RunSpec& spec) {
  return !spec.slurm.hang_after_s || *spec.slurm.hang_after_s > 0;
}

std::vector<std::string> hang_watch_flags(const RunSpec& spec, const std::string& py_spy_path) {
  std::vector<std::string> words;
  if (spec.slurm.hang_after_s) {
    words = {"--hang-after-s", std::to_string(*spec.slurm.hang_after_s)};
  }
  if (hang_watch_on(spec) && !py_spy_path.empty()) {
    words.insert(words.end(), {"--py-spy", py_spy_path});
  }
  return words;
}

std::vector<std::string> workload_argv(const RunSpec& spec, const std::string& binary_path,
                                       const std::string& out_dir) {
  std::vector<std::string> argv = {binary_path};
  argv.insert(argv.end(), spec.invocation.args.begin(), spec.invocation.args.end());
  for (auto& group : workload_flag_groups(spec, out_dir)) {
    argv.insert(argv.end(), std::make_move_iterator(group.begin()),
                std::make_move_iterator(group.end()));
  }
  return argv;
}

std::vector<std::string> launch_command(const RunSpec& spec, const RenderContext& context) {
  std::vector<std::string> words = launch_prefix(spec, context);
  std::vector<std::string> argv = workload_argv(spec, context.binary_path, context.out_dir);
  words.insert(words.end(), std::make_move_iterator(argv.begin()),
               std::make_move_iterator(argv.end()));
  return words;
}

std::string render_sbatch_script(const RunSpec& spec, const RenderContext& context) {
  std::string module_loads;
  for (const auto& module : spec.modules) {
    module_loads.append("module load ");
    append_shell_quoted(module_loads, module);
    module_loads += '\n';
  }
  std::string env_exports;
  for (const auto& [name, value] :
       workload_environment(spec, context.out_dir)) {  // identifiers (the loader)
    env_exports.append("export ").append(name).append("=");
    append_shell_quoted(env_exports, value);
    env_exports += '\n';
  }
  std::string directives = render_directives(spec, context);
  std::string quoted_out_dir = shell_quote(context.out_dir);
  // The launcher and the binary on the first line, then one workload flag per line.
  std::string launch_line;
  launch_line.reserve(1024);
  for (const auto& word : launch_prefix(spec, context)) {
    append_shell_quoted(launch_line, word);
    launch_line += ' ';
    // Inside a packed allocation the wrapper names the step's nodes and tasks
    // (packed_allocation.hpp); unset, the step is the whole allocation as always.
    if (word == "srun") launch_line += "${SCALESTUDY_STEP_OPTIONS:-} ";
  }
  append_shell_quoted(launch_line, context.binary_path);
  for (const auto& arg : spec.invocation.args) {
    launch_line += ' ';
    append_shell_quoted(launch_line, arg);
  }
  for (const auto& group : workload_flag_groups(spec, context.out_dir)) {
    launch_line.append(" \\\n   ");
    for (const auto& word : group) {
      launch_line += ' ';
      append_shell_quoted(launch_line, word);
    }
  }

  std::vector<std::string_view> values(kPlaceholderCount);
  values[kSbatchDirectives] = directives;
  values[kStudy] = spec.study;
  values[kRunId] = spec.run_id;
  values[kModuleLoads] = module_loads;
  values[kEnvExports] = env_exports;
  values[kOutDir] = quoted_out_dir;
  values[kLaunchLine] = launch_line;
  return sbatch_template().render(values);
}

std::string resolve_workload_binary(const std::string& workload, const std::string& bin_dir) {
  namespace fs = std::filesystem;
  if (workload.find('/') != std::string::npos) return fs::absolute(workload).lexically_normal();
  return (fs::path(bin_dir) / workload).lexically_normal();
}

}  // namespace scalestudy
