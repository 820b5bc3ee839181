#include <algorithm>

#include "orchestrator/sysinfo/sections.hpp"
#include "orchestrator/sysinfo/text.hpp"

namespace scalestudy::sysinfo {
namespace {

constexpr int kArpEther = 1;
constexpr int kArpInfiniband = 32;  // IPoIB
constexpr int kArpLoopback = 772;

struct Interface {
  std::string name, state, mac;
  int type = 0;
  long speed_mbps = 0;  // 0 when unknown (down, or virtual)
  std::string mtu;
  bool is_virtual = false;
};

Interface read_interface(const Probe& probe, const std::string& name) {
  const std::string dir = "/sys/class/net/" + name + "/";
  Interface interface;
  interface.name = name;
  interface.state = probe.read_line(dir + "operstate").value_or("");
  interface.mac = probe.read_line(dir + "address").value_or("");
  interface.mtu = probe.read_line(dir + "mtu").value_or("");
  interface.type =
      static_cast<int>(leading_number(probe.read_line(dir + "type").value_or("")).value_or(0));
  auto speed = probe.read_line(dir + "speed");  // "-1" or unreadable when down
  if (speed && leading_number(*speed))
    interface.speed_mbps = static_cast<long>(*leading_number(*speed));
  interface.is_virtual = probe.exists("/sys/devices/virtual/net/" + name);
  return interface;
}

std::string kind_of(const Interface& interface) {
  if (interface.type == kArpLoopback) return "loopback";
  if (interface.type == kArpInfiniband) return "InfiniBand (IPoIB)";
  if (interface.is_virtual) return "virtual";
  return interface.type == kArpEther ? "Ethernet" : "type " + std::to_string(interface.type);
}

// The interface NCCL/Gloo should bootstrap over: an up, physical one, IPoIB first, then
// the fastest. Loopback and virtual bridges/veths are never a good choice between nodes.
std::string socket_interface_hint(const std::vector<Interface>& interfaces) {
  const Interface* best = nullptr;
  auto rank = [](const Interface& interface) {
    return std::make_pair(interface.type == kArpInfiniband ? 1 : 0, interface.speed_mbps);
  };
  for (const auto& interface : interfaces) {
    if (interface.type == kArpLoopback || interface.is_virtual || interface.state != "up") continue;
    if (!best || rank(interface) > rank(*best)) best = &interface;
  }
  return best ? best->name : "";
}

void add_infiniband(const Probe& probe, Section& section) {
  const std::string root = "/sys/class/infiniband/";
  Table table{
      "InfiniBand / RDMA", {"Device", "Port", "State", "Rate", "Link layer", "Firmware"}, {}};
  std::vector<std::string> devices, active;
  for (const auto& device : probe.list_dir(root)) {
    devices.push_back(device);
    std::string firmware = probe.read_line(root + device + "/fw_ver").value_or("");
    for (const auto& port : probe.list_dir(root + device + "/ports")) {
      const std::string dir = root + device + "/ports/" + port + "/";
      std::string state = probe.read_line(dir + "state").value_or("");  // "4: ACTIVE"
      auto colon = state.find(':');
      if (colon != std::string::npos) state = trim(state.substr(colon + 1));
      if (state == "ACTIVE") active.push_back(device + ":" + port);
      table.rows.push_back({device, port, state, probe.read_line(dir + "rate").value_or(""),
                            probe.read_line(dir + "link_layer").value_or(""), firmware});
    }
  }
  std::string device_list;
  for (const auto& device : devices) device_list += (device_list.empty() ? "" : ",") + device;
  section.add("ib_devices", "InfiniBand/RDMA devices", device_list, root);
  if (devices.empty()) {
    section.facts.back().display = "none";
    return;
  }
  section.tables.push_back(std::move(table));
  if (!active.empty()) {
    std::string hca;
    for (const auto& port : active) hca += (hca.empty() ? "" : ",") + port;
    section.add("nccl_ib_hca_hint", "NCCL_IB_HCA hint (active ports)", hca,
                root + "*/ports/*/state");
  }
}

}  // namespace

Section probe_network(const Probe& probe) {
  Section section;
  section.title = "Network";
  std::vector<Interface> interfaces;
  Table table{"Interfaces", {"Interface", "Kind", "State", "Speed", "MTU", "MAC"}, {}};
  std::string names;
  for (const auto& name : probe.list_dir("/sys/class/net")) {
    Interface interface = read_interface(probe, name);
    names += (names.empty() ? "" : ",") + name;
    table.rows.push_back(
        {name, kind_of(interface), interface.state,
         interface.speed_mbps > 0 ? std::to_string(interface.speed_mbps) + " Mb/s" : "",
         interface.mtu, interface.mac});
    interfaces.push_back(std::move(interface));
  }
  section.add("net_interfaces", "Interfaces", names, "/sys/class/net");
  section.add("nccl_socket_ifname_hint", "NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME hint",
              socket_interface_hint(interfaces),
              "first up, non-virtual interface; IPoIB preferred, then speed");
  add_infiniband(probe, section);
  if (!table.rows.empty()) section.tables.insert(section.tables.begin(), std::move(table));
  for (const char* name : {"NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME", "NCCL_IB_HCA", "NCCL_NET",
                           "NCCL_P2P_DISABLE", "NCCL_IB_DISABLE"}) {
    if (auto value = probe.env(name)) {
      section.add(std::string("env_") + name, std::string(name) + " (set now)", *value,
                  "environment");
    }
  }
  return section;
}

}  // namespace scalestudy::sysinfo
