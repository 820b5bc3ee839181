#include "harness/gpu/nccl_process_group.hpp"

#include <c10/cuda/CUDAGuard.h>

#include <cstdlib>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>

namespace scalestudy::gpu {
namespace {

// How c10d handles a failure, as far as it lets a program choose (it reads the environment
// when the group is built; a value the user set wins and is recorded):
// - TORCH_NCCL_ASYNC_ERROR_HANDLING=2 (CleanUpOnly). When the watchdog finds a collective
//   failed (an NCCL error: a peer died, the network broke) or not done within the timeout,
//   it aborts the communicators, which releases kernels and host waits stuck on them, and
//   lets the process live; TearDown (1) and the default SkipCleanUp (3) rethrow in the
//   watchdog thread, so std::terminate ends the rank without its run record. The next
//   collective then throws "NCCL communicator was aborted ..." on the training thread,
//   which the adapter reports as "peer rank died or timed out: ...".
// - Blocking operations pass their timeout to Work::wait: the host polls, and on a timeout
//   or an error c10d aborts the communicator and throws on this thread.
// - TORCH_NCCL_BLOCKING_WAIT stays off: it would make every wait block the host.
// Limits: the watchdog pauses 4 x TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC (60 s by default) for
// its flight-recorder dump before it aborts, so an asynchronous failure surfaces about a
// minute after the timeout; communicator initialisation blocks (torch's default since
// 2.7.1, after non-blocking init hung with NCCL 2.26), and the watchdog does not bound it
// (pytorch#88103); c10d's heartbeat monitor ends the process TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC
// (480 s) after a failure it saw, long after the failed record is written.
constexpr const char* kErrorHandlingVariable = "TORCH_NCCL_ASYNC_ERROR_HANDLING";
constexpr const char* kCleanUpOnly = "2";

std::string error_handling_name(const std::string& value) {
  static const char* const kNames[] = {"NoHandling", "TearDown", "CleanUpOnly", "SkipCleanUp"};
  if (value.size() == 1 && value[0] >= '0' && value[0] <= '3') {
    return value + " (" + kNames[value[0] - '0'] + ")";
  }
  return value;
}

std::string environment_or(const char* name, const std::string& otherwise) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : otherwise;
}

}  // namespace

Result<dist::ProcessGroup> make_nccl_process_group(const c10::Device& device,
                                                   const dist::RankInfo& rank_info,
                                                   const dist::ConnectOptions& options,
                                                   const c10::intrusive_ptr<c10d::Store>& store) {
  // Before c10d starts its threads, which read the environment.
  setenv(kErrorHandlingVariable, kCleanUpOnly, /*overwrite=*/0);
  try {
    c10::cuda::CUDAGuard guard(device);
    auto group_options = c10d::ProcessGroupNCCL::Options::create(/*is_high_priority_stream=*/true);
    group_options->timeout = options.timeout;
    auto group = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank_info.rank,
                                                             rank_info.world_size, group_options);
    compat::connect_eagerly(*group, device);
    dist::ProcessGroup built;
    built.name = "nccl";
    built.backend = group;
    built.device = device;
    built.settings = {
        {"process_group_async_error_handling",
         error_handling_name(environment_or(kErrorHandlingVariable, kCleanUpOnly))},
        {"process_group_blocking_wait", environment_or("TORCH_NCCL_BLOCKING_WAIT", "0")},
        {"process_group_high_priority_stream", "true"},
        {"process_group_connect",
         compat::kHasEagerProcessGroups ? "eager" : "at the first collective"},
    };
    return built;
  } catch (const std::exception& error) {
    return Status::error(dist::peer_failure_message(
        "NCCL connection of rank " + std::to_string(rank_info.rank) + " on " + device.str(),
        error));
  }
}

}  // namespace scalestudy::gpu
