#include "orchestrator/common/collective_stacks.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <sstream>
#include <string_view>

namespace scalestudy::common {
namespace {

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

// The function a stack line names, or "" for a line that is no frame. gdb: "#5  0x… in
// c10d::Work::wait(…) () from …" or "#0  epoll_wait (…) at …"; py-spy: an indented
// "    all_reduce (torch/distributed/distributed_c10d.py:1541)" under a "Thread …" line.
std::string_view frame_name(std::string_view line) {
  const bool indented = !line.empty() && std::isspace(static_cast<unsigned char>(line[0]));
  line = trimmed(line);
  if (!line.empty() && line[0] == '#') {
    size_t start = line.find_first_not_of("0123456789", 1);
    if (start == std::string_view::npos || start == 1) return "";
    line = trimmed(line.substr(start));
    if (line.rfind("0x", 0) == 0) {
      const size_t in = line.find(" in ");
      if (in == std::string_view::npos) return "";
      line = line.substr(in + 4);
    }
    return trimmed(line.substr(0, line.find('(')));
  }
  const size_t paren = line.find(" (");
  if (!indented || paren == std::string_view::npos) return "";
  return line.substr(0, paren);
}

std::string lowered_without_underscores(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// The last "::" component: "allreduce" of "c10d::ProcessGroupGloo::allreduce".
std::string_view last_component(std::string_view name) {
  const size_t colons = name.rfind("::");
  return colons == std::string_view::npos ? name : name.substr(colons + 2);
}

// A frame that is a collective operation itself (torch's all_reduce, gloo::allreduce,
// ncclAllReduce, the communicator's allreduce_tensor), not a pool's barrier (gomp_barrier_…).
bool is_collective(std::string_view name) {
  std::string word = lowered_without_underscores(last_component(name));
  if (word.rfind("nccl", 0) == 0) word.erase(0, 4);
  static constexpr std::array<std::string_view, 7> kOperations = {
      "allreduce", "allgather", "reducescatter",   "alltoall",
      "broadcast", "barrier",   "monitoredbarrier"};
  return std::any_of(kOperations.begin(), kOperations.end(),
                     [&](std::string_view operation) { return word.rfind(operation, 0) == 0; });
}

// A wait on a collective in flight, when no frame names the collective (torch's bindings
// without symbols: "c10d::Work::wait" under "?? ()"): 1 for the caller's wait on its work,
// 2 for a transport's (gloo's waitRecv/waitSend, ncclKernel), 0 for no wait.
int collective_wait_rank(std::string_view name) {
  const std::string word = lowered_without_underscores(name);
  if (word.find("work::wait") != std::string::npos) return 1;
  const bool gloo_wait =
      word.find("gloo::") != std::string::npos &&
      (word.find("waitrecv") != std::string::npos || word.find("waitsend") != std::string::npos);
  return gloo_wait || word.find("ncclkernel") != std::string::npos ? 2 : 0;
}

// "rank 1", "ranks 0, 2", at most 8 named.
std::string rank_list(const std::vector<int>& ranks) {
  constexpr size_t kNamed = 8;
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size() && i < kNamed; ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(ranks[i]);
  }
  if (ranks.size() > kNamed) text += " and " + std::to_string(ranks.size() - kNamed) + " more";
  return text;
}

}  // namespace

std::optional<std::string> collective_waited_in(const std::string& stacks) {
  std::istringstream lines(stacks);
  bool any_frame = false;
  std::string wait;
  int wait_rank = 0;  // the best wait seen (collective_wait_rank), 0: none
  for (std::string line; std::getline(lines, line);) {
    const std::string_view name = frame_name(line);
    if (name.empty()) continue;
    any_frame = true;
    if (is_collective(name)) return std::string(last_component(name));
    const int rank = collective_wait_rank(name);
    if (rank > 0 && (wait_rank == 0 || rank < wait_rank)) {
      wait = name;
      wait_rank = rank;
    }
  }
  if (!any_frame) return std::nullopt;
  return wait;
}

std::string ranks_not_in_collective(const std::vector<RankStacks>& ranks) {
  std::vector<int> elsewhere;
  std::vector<std::pair<std::string, std::vector<int>>> waiting;  // by collective, in order
  for (const RankStacks& rank : ranks) {
    const std::optional<std::string> collective = collective_waited_in(rank.text);
    if (!collective) continue;
    if (collective->empty()) {
      elsewhere.push_back(rank.rank);
      continue;
    }
    auto group = std::find_if(waiting.begin(), waiting.end(),
                              [&](const auto& entry) { return entry.first == *collective; });
    if (group == waiting.end()) group = waiting.insert(waiting.end(), {*collective, {}});
    group->second.push_back(rank.rank);
  }
  if (elsewhere.empty() || waiting.empty()) return "";
  std::string text = rank_list(elsewhere) + " not in a collective (";
  for (size_t i = 0; i < waiting.size(); ++i) {
    const auto& [collective, waiters] = waiting[i];
    if (i > 0) text += "; ";
    text += rank_list(waiters);
    if (i == 0) text += waiters.size() == 1 ? " waits" : " wait";
    text += " in " + collective;
  }
  return text + ")";
}

}  // namespace scalestudy::common
