#include "harness/dist/gloo_process_group.hpp"

#include <sstream>

#ifdef SCALESTUDY_WITH_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif

namespace scalestudy::dist {
namespace {

#ifdef SCALESTUDY_WITH_GLOO
std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

// gloo's devices: the named interfaces, else loopback for ranks of one host, else the
// interface of this host's name; returns how the provenance names the choice.
std::string add_devices(const RankInfo& rank_info, const ConnectOptions& options,
                        c10d::ProcessGroupGloo::Options& group_options) {
  if (!options.socket_ifname.empty()) {
    for (const std::string& interface : split_commas(options.socket_ifname)) {
      group_options.devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(interface));
    }
    return options.socket_ifname;
  }
  if (rank_info.local_world_size == rank_info.world_size) {
    group_options.devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
    return "127.0.0.1";
  }
  group_options.devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
  return "host name";
}

Result<ProcessGroup> make_gloo_process_group(const RankInfo& rank_info,
                                             const ConnectOptions& options,
                                             const c10::intrusive_ptr<c10d::Store>& store) {
  try {
    auto group_options = c10d::ProcessGroupGloo::Options::create(options.timeout);
    const std::string devices = add_devices(rank_info, options, *group_options);
    ProcessGroup group;
    group.name = "gloo";
    group.backend = c10::make_intrusive<c10d::ProcessGroupGloo>(
        store, rank_info.rank, rank_info.world_size, group_options);
    group.settings["process_group_gloo_devices"] = devices;
    return group;
  } catch (const std::exception& error) {
    return Status::error(peer_failure_message("gloo connection via " + rank_info.master_addr + ":" +
                                                  std::to_string(rank_info.master_port),
                                              error));
  }
}
#endif

}  // namespace

Result<ProcessGroupFactory> gloo_factory() {
#ifdef SCALESTUDY_WITH_GLOO
  return ProcessGroupFactory(make_gloo_process_group);
#else
  return Status::error(
      "communication backend 'gloo' is not built in: this build's LibTorch has no gloo "
      "headers (the PyTorch wheel ships none), so use nccl on a CUDA device, or build against "
      "a LibTorch that has them (Debian's libtorch-dev with libgloo-dev)");
#endif
}

}  // namespace scalestudy::dist
