#include "harness/train/driver.hpp"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <thread>

#include "harness/core/exit_codes.hpp"
#include "harness/core/first_line.hpp"
#include "harness/dist/clock_offset.hpp"
#include "harness/dist/connect.hpp"
#include "harness/metrics/energy_log.hpp"
#include "harness/metrics/memory.hpp"
#include "harness/metrics/telemetry_sampler.hpp"
#include "harness/metrics/telemetry_summary.hpp"
#include "harness/record/build_info.hpp"
#include "harness/record/provenance.hpp"
#include "harness/train/checkpoint_store.hpp"
#include "harness/train/termination_watcher.hpp"

namespace scalestudy::train {
namespace {

void declare_session_flags(Flags& flags) {
  flags.declare("run-id", "", "run identifier (the orchestrator's hash); default adhoc-<id>");
  flags.declare("out-dir", "", "folder for rank<R>.sqlite; default results/adhoc/<run-id>");
  flags.declare("timeout-s", "120", "bound on every rendezvous and collective wait").number(0);
  flags.declare("world-size", "0", "expected world size, checked against the launcher's; 0: any")
      .integer(0);
  flags
      .declare("threads", "0",
               "intra-op threads per rank; 0: cores / ranks on this node, fewer on a CPU for a "
               "model with little work per step (recorded as intra_op_threads)")
      .integer(0);
  flags
      .declare("device", "auto",
               "auto (cuda:<local rank> when built with CUDA and a GPU is visible) | cpu | cuda")
      .one_of({"auto", "cpu", "cuda"});
  flags
      .declare("backend", "auto",
               "communication for world size > 1 (or --one-rank-process-group): auto (nccl on "
               "CUDA, gloo on CPU) | gloo | nccl")
      .one_of({"auto", "gloo", "nccl"});
  flags
      .declare("one-rank-process-group", "false",
               "with one rank, still build the backend's process group (of size 1, over an "
               "in-process store), so that gradient buckets, their all-reduces and stream "
               "ordering run as with many ranks; false: one rank communicates not at all")
      .boolean();
  flags.declare("telemetry-interval-ms", "500", "memory sampling period; 0: off").integer(0);
  flags.declare("nvml-library", "",
                "the NVML library to read power, clocks and energy from; empty: the driver's "
                "on a GPU, none on the CPU");
}

// Ranks of one launch must agree on the default run id without talking to each other.
std::string default_run_id(const dist::Environment& environment) {
  for (const char* name : {"SCALESTUDY_LAUNCH_ID", "TORCHELASTIC_RUN_ID", "SLURM_JOB_ID"}) {
    auto found = environment.find(name);
    if (found == environment.end() || found->second.empty()) continue;
    std::string id = found->second;
    auto step = environment.find("SLURM_STEP_ID");
    if (std::string(name) == "SLURM_JOB_ID" && step != environment.end()) id += "." + step->second;
    return "adhoc-" + id;
  }
  return "adhoc-" + std::to_string(static_cast<long long>(time(nullptr)));
}

// The rank's device and the backend that reduces its tensors: resolved before the run
// record exists, because the record names both.
struct DevicePlan {
  std::unique_ptr<gpu::DeviceRuntime> runtime;
  std::string backend;
};

Result<DevicePlan> open_device_plan(const Flags& flags, const dist::RankInfo& rank_info) {
  auto kind = gpu::parse_device_kind(flags.get("device"));
  if (!kind) return kind.status();
  auto runtime = gpu::open_device(*kind, rank_info.local_rank, flags.get("nvml-library"));
  if (!runtime) return runtime.status();
  auto backend = dist::resolve_backend(flags.get("backend"), (*runtime)->device());
  if (!backend) return backend.status();
  return DevicePlan{std::move(*runtime), std::move(*backend)};
}

struct Session {
  Flags& flags;
  const dist::Environment& environment;
  const dist::RankInfo& rank_info;
  record::RunWriter& writer;
  Workload& workload;
  DevicePlan& device;
  TerminationWatcher& termination;
  std::optional<std::string> checkpointed;  // the workload's RunContext::checkpointed
};

// `communicator` is owned by the caller so that it outlives the run record's last write.
Status run_session(Session& session, int threads,
                   std::unique_ptr<dist::Communicator>& communicator) {
  const Flags& flags = session.flags;
  const dist::RankInfo& rank_info = session.rank_info;
  auto expected_world = flags.get_int("world-size");
  if (!expected_world) return expected_world.status();
  if (*expected_world > 0 && *expected_world != rank_info.world_size) {
    return Status::error("--world-size " + std::to_string(*expected_world) + " but the launcher (" +
                         rank_info.convention + ") started " +
                         std::to_string(rank_info.world_size) + " ranks");
  }
  if (Status valid = session.workload.validate(flags); !valid) return valid;
  auto timeout_s = flags.get_double("timeout-s");
  if (!timeout_s) return timeout_s.status();
  if (*timeout_s <= 0) return Status::error("--timeout-s must be positive");
  auto telemetry_ms = flags.get_int("telemetry-interval-ms");
  if (!telemetry_ms) return telemetry_ms.status();

  torch::set_num_threads(threads);
  record::ProvenanceEntries provenance = record::collect_provenance(session.environment);
  provenance["intra_op_threads"] = std::to_string(threads);
  provenance["rank_convention"] = rank_info.convention;
  provenance["master_addr"] = rank_info.master_addr;
  provenance["master_port"] = std::to_string(rank_info.master_port);
  provenance.merge(session.device.runtime->provenance());
  if (Status recorded = session.writer.add_provenance(provenance); !recorded) return recorded;

  dist::ConnectOptions connect_options;
  connect_options.backend = session.device.backend;
  connect_options.timeout = std::chrono::milliseconds(static_cast<int64_t>(*timeout_s * 1000));
  auto ifname = session.environment.find("GLOO_SOCKET_IFNAME");
  if (ifname != session.environment.end()) connect_options.socket_ifname = ifname->second;
  connect_options.nccl_factory = session.device.runtime->nccl_factory();
  auto one_rank_group = flags.get_bool("one-rank-process-group");
  if (!one_rank_group) return one_rank_group.status();
  connect_options.one_rank_process_group = *one_rank_group;
  auto connected = dist::connect(rank_info, connect_options);
  if (!connected) return connected.status();
  communicator = std::move(*connected);
  if (Status recorded = session.writer.add_provenance(communicator->settings()); !recorded) {
    return recorded;
  }

  gpu::DeviceRuntime& device = *session.device.runtime;
  metrics::TelemetrySampler sampler(*telemetry_ms > 0 ? *telemetry_ms : 1, device.nvml().source());
  if (*telemetry_ms > 0) sampler.start();
  metrics::EnergyLog energy(sampler.started(), device.nvml().energy_counter(),
                            device.nvml().source(), device.nvml().unavailable());
  std::map<std::string, double> summary;
  // Ranks on several hosts: the offset that puts this host's recorded times (the gradient
  // all-reduce arrivals) on rank 0's clock; one host has one clock and needs none.
  if (rank_info.local_world_size < rank_info.world_size) {
    auto offset = dist::measure_clock_offset_s(*communicator);
    if (!offset) return offset.status().with_context("measuring the clock offset to rank 0");
    summary["clock_offset_s"] = *offset;
  }
  RunContext context{flags,   rank_info, *communicator,       session.writer,
                     summary, device,    session.termination, energy};
  Status ran = Status::ok();
  try {
    ran = session.workload.run(context);
  } catch (const std::exception& error) {
    ran = Status::error("unexpected error: " + first_line(error.what()));
  }
  session.checkpointed = context.checkpointed;
  std::vector<metrics::TelemetrySample> samples = sampler.stop();
  summary["cpu_rss_peak_bytes"] = static_cast<double>(metrics::peak_rss_bytes());
  summary.merge(device.memory_peaks());
  summary.merge(metrics::gpu_memory_summary(samples));
  if (Status written = session.writer.add_telemetry(samples); !written && ran) ran = written;
  if (Status written = session.writer.add_energy(
          metrics::summarise_energy(energy.windows(), samples, energy.unavailable()));
      !written && ran) {
    ran = written;
  }
  if (Status written = session.writer.set_summary(summary); !written && ran) ran = written;
  return ran;
}

}  // namespace

int run_workload(int argc, char** argv, Workload& workload) {
  TerminationWatcher watcher;
  Flags flags;
  declare_session_flags(flags);
  workload.declare_flags(flags);
  const std::vector<std::string> arguments(argv + 1, argv + argc);
  if (!arguments.empty() && arguments[0] == "--describe-flags") {
    if (arguments.size() != 2 || arguments[1] != "json") {
      std::cerr << "usage: " << argv[0] << " --describe-flags json\n";
      return 2;
    }
    std::cout << flags.describe_json(workload.name(), record::build_info().git_commit);
    return 0;
  }
  Status parsed = flags.parse(arguments);
  workload.derive_defaults(flags);
  // A workload that checkpoints on a signal defers it from here on, not only once its loop
  // starts: SLURM's early SIGTERM may come while a loaded node is still setting up (seconds
  // into a 1-minute limit), and a resumed run then stops at its first step boundary with its
  // checkpoint (exit 75) instead of failing with 143.
  if (auto on_signal = flags.get_bool("checkpoint-on-signal"); parsed && on_signal && *on_signal) {
    watcher.stop_at_step_boundary();
  }
  if (flags.help_requested()) {
    std::cout << flags.usage(argv[0]);
    return 0;
  }
  dist::Environment environment = dist::process_environment();
  auto rank_info = dist::discover_ranks(environment);
  if (!rank_info) {
    std::cerr << "scalestudy-" << workload.name() << ": " << rank_info.status().message() << "\n";
    return 1;
  }
  int threads = static_cast<int>(std::thread::hardware_concurrency()) / rank_info->local_world_size;
  if (auto requested = flags.get_int("threads"); requested && *requested > 0) {
    threads = static_cast<int>(*requested);
  }
  threads = std::max(threads, 1);

  record::RunIdentity identity;
  identity.run_id = flags.was_set("run-id") ? flags.get("run-id") : default_run_id(environment);
  identity.workload = workload.name();
  identity.rank = rank_info->rank;
  identity.local_rank = rank_info->local_rank;
  identity.world_size = rank_info->world_size;
  identity.host = record::host_name();
  Result<DevicePlan> device = parsed ? open_device_plan(flags, *rank_info) : parsed;
  identity.device = device ? device->runtime->device().str() : flags.get("device");
  const std::string backend = device ? device->backend : flags.get("backend");
  auto one_rank_group = flags.get_bool("one-rank-process-group");
  const bool communicates = rank_info->world_size > 1 || (one_rank_group && *one_rank_group);
  identity.backend = communicates ? backend : "none";
  identity.config = flags.resolved();
  identity.config["run-id"] = identity.run_id;
  identity.config["threads"] = std::to_string(threads);
  std::string out_dir = flags.get("out-dir");
  if (out_dir.empty()) out_dir = "results/adhoc/" + identity.run_id;
  identity.config["out-dir"] = out_dir;

  std::string prefix =
      "scalestudy-" + workload.name() + " rank " + std::to_string(rank_info->rank) + ": ";
  // A run that left a checkpoint continues its record; the workload checks that the
  // checkpoint is its own before resuming (and fails the run otherwise).
  auto writer = record::RunWriter::create(out_dir, identity,
                                          CheckpointStore::has_checkpoint(out_dir)
                                              ? record::RunWriter::Attempt::kContinue
                                              : record::RunWriter::Attempt::kFresh);
  if (!writer) {
    std::cerr << prefix << writer.status().message() << "\n";
    return 1;
  }
  watcher.attach(writer->get());

  std::unique_ptr<dist::Communicator> communicator;
  Status status = device.status();  // carries a parse error too
  std::optional<std::string> checkpointed;
  if (status) {
    Session session{flags, environment, *rank_info, **writer, workload, *device, watcher, {}};
    status = run_session(session, threads, communicator);
    checkpointed = session.checkpointed;
  }
  if (status && checkpointed) {
    Status marked = (*writer)->mark_failed(*checkpointed);
    watcher.attach(nullptr);
    (*writer)->close();
    std::cerr << prefix << *checkpointed << "\n";
    if (marked) return exit_codes::kCheckpointed;
    status = marked;
  }
  Status marked = status ? (*writer)->mark_completed() : (*writer)->mark_failed(status.message());
  watcher.attach(nullptr);
  (*writer)->close();
  if (status && marked) return 0;
  std::cerr << prefix << "failed: " << (status ? marked.message() : status.message()) << "\n";
  std::cerr.flush();
  std::fflush(stdout);
  // A failed collective may leave work queued in the process group whose teardown would
  // wait for each to time out in turn; the record is written, so leave at once.
  if (rank_info->world_size > 1) std::_Exit(1);
  return 1;
}

}  // namespace scalestudy::train
