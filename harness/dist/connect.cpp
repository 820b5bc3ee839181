#include "harness/dist/connect.hpp"

#include <algorithm>
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "harness/core/ascii_case.hpp"
#include "harness/core/printable_text.hpp"
#include "harness/dist/gloo_process_group.hpp"

namespace scalestudy::dist {
namespace {

// c10d's TCPStore server could not bind its port: EADDRINUSE, worded "Address already in
// use" by LibTorch 1.13 and "address already in use" by 2.x.
bool port_was_taken(const std::string& message) {
  return ascii_lowercase(message).find("address already in use") != std::string::npos;
}

// MASTER_ADDR:MASTER_PORT, as the rendezvous errors name it.
std::string store_address(const RankInfo& rank_info) {
  return rank_info.master_addr + ":" + std::to_string(rank_info.master_port);
}

// Every rank joins rank 0's store; rank 0 returns once world_size joins were counted (a
// stray rank of another launch counts too: the process group still waits for each rank).
Result<c10::intrusive_ptr<c10d::Store>> join_store(const RankInfo& rank_info,
                                                   const ConnectOptions& options) {
  const std::string where = store_address(rank_info);
  try {
    c10d::TCPStoreOptions store_options;
    store_options.port = static_cast<std::uint16_t>(rank_info.master_port);
    store_options.isServer = rank_info.rank == 0;
    store_options.numWorkers = static_cast<std::size_t>(rank_info.world_size);
    store_options.waitWorkers = true;
    store_options.timeout = options.timeout;
    return c10::intrusive_ptr<c10d::Store>(
        c10::make_intrusive<c10d::TCPStore>(rank_info.master_addr, store_options));
  } catch (const std::exception& error) {
    if (rank_info.rank == 0 && port_was_taken(error.what())) {
      return Status::error("rendezvous port " + where +
                           " is taken on this host (address already in use): another process "
                           "listens there or a connection holds it; MASTER_PORT must be free "
                           "on rank 0's host");
    }
    return Status::error(peer_failure_message("rendezvous at TCPStore " + where, error));
  }
}

// Two launches whose rank 0 share a host can meet at one MASTER_PORT: SLURM jobs whose
// derived ports coincide, or a port a local run's probe found free that another run took
// first. The launch whose rank 0 lost the port has no store of its own; its other ranks
// would join the winner's store and then its process group, breaking both runs. Rank 0
// publishes the marks of its launch; every other rank compares those it has itself and
// leaves on a mismatch, before it touches a process-group key. A mark either side lacks
// (a rank started by hand) is not compared.
Status check_same_launch(const RankInfo& rank_info, c10d::Store& store) {
  const std::string where = store_address(rank_info);
  const std::pair<const char*, const std::string&> marks[] = {
      {"SLURM_JOB_ID", rank_info.job_id},
      {"SCALESTUDY_RUN_ID", rank_info.run_id},
      {"SCALESTUDY_LAUNCH_ID", rank_info.launch_id},
  };
  try {
    for (const auto& [name, ours] : marks) {
      const std::string key = std::string("scalestudy/launch/") + name;
      if (rank_info.rank == 0) {
        store.set(key, std::vector<uint8_t>(ours.begin(), ours.end()));
        continue;
      }
      const std::vector<uint8_t> stored = store.get(key);
      const std::string theirs(stored.begin(), stored.end());
      if (theirs.empty() || ours.empty() || theirs == ours) continue;
      // Whoever serves that port wrote the value: quoted short and printable.
      return Status::error(
          "rendezvous at TCPStore " + where + " is another launch's: its rank 0 has " + name + "=" +
          printable_text(theirs.substr(0, 80)) + ", this rank " + printable_text(ours) +
          ". Two launches whose rank 0 share a host met at one MASTER_PORT (this "
          "launch's rank 0 could not take it); this rank leaves before joining "
          "the other's process group");
    }
  } catch (const std::exception& error) {
    return Status::error(peer_failure_message("rendezvous at TCPStore " + where, error));
  }
  return Status::ok();
}

Result<ProcessGroupFactory> backend_factory(const ConnectOptions& options) {
  if (options.backend == "gloo") return gloo_factory();
  if (options.backend == "nccl" && options.nccl_factory) return options.nccl_factory;
  if (options.backend == "nccl") {
    return Status::error(
        "communication backend 'nccl' is not built in (nccl needs a SCALESTUDY_CUDA build)");
  }
  return Status::error("communication backend '" + options.backend + "' is not one of gloo, nccl");
}

}  // namespace

std::string peer_failure_message(const std::string& what, const std::exception& error) {
  std::string message = error.what();
  message.resize(std::min(message.size(), message.find('\n')));
  return "peer rank died or timed out: " + what + ": " + message;
}

Result<std::string> resolve_backend(const std::string& requested, const torch::Device& device) {
  if (requested == "auto") return std::string(device.is_cuda() ? "nccl" : "gloo");
  if (requested == "gloo" && device.is_cuda()) {
    return Status::error(
        "--backend gloo reduces CPU tensors; use nccl (or auto) with a CUDA device");
  }
  if (requested == "nccl" && !device.is_cuda()) {
    return Status::error("--backend nccl needs a CUDA device; this run is on the " + device.str());
  }
  if (requested == "gloo" || requested == "nccl") return requested;
  return Status::error("--backend: '" + requested + "' is not one of auto, gloo, nccl");
}

Result<std::unique_ptr<Communicator>> connect(const RankInfo& rank_info,
                                              const ConnectOptions& options) {
  const bool one_rank = rank_info.world_size == 1;
  if (one_rank && !options.one_rank_process_group) {
    return std::unique_ptr<Communicator>(std::make_unique<SelfCommunicator>());
  }
  auto factory = backend_factory(options);
  if (!factory) return factory.status();
  Result<c10::intrusive_ptr<c10d::Store>> store =
      one_rank ? c10::intrusive_ptr<c10d::Store>(c10::make_intrusive<c10d::HashStore>())
               : join_store(rank_info, options);
  if (!store) return store.status();
  if (!one_rank) {
    if (Status same = check_same_launch(rank_info, **store); !same) return same;
  }
  auto group = (*factory)(rank_info, options, *store);
  if (!group) return group.status();
  return std::unique_ptr<Communicator>(std::make_unique<ProcessGroupCommunicator>(
      std::move(*group), *store, one_rank ? "HashStore" : "TCPStore", options.timeout));
}

}  // namespace scalestudy::dist
