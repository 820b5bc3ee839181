#include "orchestrator/sched/packing_plan.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <queue>
#include <random>

#include "orchestrator/study/run_id.hpp"

namespace scalestudy::sched {
namespace {

int ceil_minutes(int seconds) {
  return (seconds + 59) / 60;
}

// An allocation's time limit: its steps' minutes and one more for the wrapper's stop lead
// (at most a minute before the end), within the cap.
int allocation_minutes(int makespan, const std::optional<TimeCap>& cap) {
  const int minutes = ceil_minutes(makespan) + 1;
  return cap ? std::min(minutes, cap->minutes) : minutes;
}

// Steps of `runs` runs fit the cap with the stop lead's minute to spare, so the wrapper
// never stops a planned step; a run alone may fill the cap, as it would as a job of its own.
bool fits(int makespan, size_t runs, const std::optional<TimeCap>& cap) {
  return !cap || ceil_minutes(makespan) + (runs > 1 ? 1 : 0) <= cap->minutes;
}

std::string describe_minutes(int minutes) {
  return std::to_string(minutes) + " min";
}

// What a run asks of an allocation besides its nodes, tasks and time: runs differing in any
// of it never share one, which takes its largest run's directives (and a step cannot ask
// for more memory, GPUs or CPUs than its allocation holds).
std::string allocation_request_key(const RunSpec& run) {
  const SlurmOptions& slurm = run.slurm;
  std::string key = run.system.label() + "\n" + slurm.partition + "\n" + slurm.account + "\n" +
                    slurm.qos + "\n" + slurm.constraint + "\n" + slurm.reservation + "\n" +
                    std::to_string(slurm.cpus_per_task) + "\n" + std::to_string(slurm.memory_mb) +
                    "\n" + std::to_string(slurm.gpus_per_node);
  for (const std::string& option : slurm.extra_options) key += "\n" + option;
  return key;
}

}  // namespace

StepEstimate estimate_step(const RunSpec& run, std::optional<double> measured_median_s) {
  const int limit_s = run.slurm.time_limit_minutes * 60;
  if (measured_median_s) {
    int seconds =
        static_cast<int>(std::ceil(*measured_median_s * kMeasuredMargin)) + kStartupAllowanceS;
    return {limit_s > 0 ? std::min(seconds, limit_s) : seconds, "measured"};
  }
  if (limit_s > 0) return {limit_s, "slurm.time"};
  return {};
}

uint64_t pack_seed(const std::vector<const RunSpec*>& runs) {
  std::string ids;
  for (const RunSpec* run : runs) ids += run->run_id + ",";
  return std::stoull(fnv1a_128_hex(ids).substr(0, 15), nullptr, 16);
}

int makespan_s(const std::vector<int>& nodes, const std::vector<int>& seconds, bool concurrent) {
  if (!concurrent) return std::accumulate(seconds.begin(), seconds.end(), 0);
  std::vector<size_t> waiting(nodes.size());
  std::iota(waiting.begin(), waiting.end(), 0);
  std::stable_sort(waiting.begin(), waiting.end(),
                   [&](size_t a, size_t b) { return nodes[a] > nodes[b]; });
  int free_nodes = nodes.empty() ? 0 : *std::max_element(nodes.begin(), nodes.end());
  // Running steps by end time: (end, nodes), the earliest on top.
  using Step = std::pair<int, int>;
  std::priority_queue<Step, std::vector<Step>, std::greater<>> running;
  int now = 0, makespan = 0;
  while (!waiting.empty()) {
    std::vector<size_t> left;
    for (size_t run : waiting) {
      if (nodes[run] <= free_nodes) {
        free_nodes -= nodes[run];
        running.push({now + seconds[run], nodes[run]});
        makespan = std::max(makespan, now + seconds[run]);
      } else {
        left.push_back(run);
      }
    }
    waiting = std::move(left);
    if (!waiting.empty() && !running.empty()) {
      now = running.top().first;
      while (!running.empty() && running.top().first == now) {
        free_nodes += running.top().second;
        running.pop();
      }
    }
  }
  return makespan;
}

Result<std::vector<PackedAllocationPlan>> plan_packed_allocations(
    const std::vector<const RunSpec*>& runs, const std::vector<StepEstimate>& estimates,
    bool concurrent, const std::optional<TimeCap>& cap) {
  std::vector<size_t> order(runs.size());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 generator(pack_seed(runs));
  std::shuffle(order.begin(), order.end(), generator);
  // Seconds each run is planned at; a run without an estimate takes the whole cap.
  std::vector<int> seconds(runs.size());
  bool some_unknown = false;
  for (size_t index = 0; index < runs.size(); ++index) {
    seconds[index] = estimates[index].seconds;
    if (seconds[index] > 0) continue;
    some_unknown = true;
    if (cap) seconds[index] = cap->minutes * 60;
  }
  // In the order the allocation's wrapper takes them (packed_allocation.hpp): its members
  // shuffled with their own pack_seed, so the list schedule simulated is the one run.
  auto makespan_of = [&](std::vector<size_t> members) {
    std::vector<const RunSpec*> specs;
    for (size_t member : members) specs.push_back(runs[member]);
    std::mt19937_64 wrapper_order(pack_seed(specs));
    std::shuffle(members.begin(), members.end(), wrapper_order);
    std::vector<int> member_nodes, member_seconds;
    for (size_t member : members) {
      member_nodes.push_back(runs[member]->nodes);
      member_seconds.push_back(seconds[member]);
    }
    return makespan_s(member_nodes, member_seconds, concurrent);
  };
  std::vector<PackedAllocationPlan> allocations;
  // Without a cap nothing is split: one allocation, its schedule simulated once.
  if (!cap) {
    if (!order.empty()) allocations.push_back({order, 1, 0, makespan_of(order), 0});
    order.clear();
  }
  for (size_t index : order) {
    const RunSpec& run = *runs[index];
    if (!fits(seconds[index], 1, cap)) {
      return Status::error("run " + run.run_id + " is estimated at " +
                           describe_minutes(ceil_minutes(seconds[index])) + " (" +
                           estimates[index].source + "), longer than the " +
                           describe_minutes(cap->minutes) + " " + cap->source +
                           " allows one allocation; nothing was submitted");
    }
    bool placed = false;
    for (PackedAllocationPlan& allocation : allocations) {
      std::vector<size_t> members = allocation.runs;
      members.push_back(index);
      const int makespan = makespan_of(members);
      if (!fits(makespan, members.size(), cap)) continue;
      allocation.runs = std::move(members);
      allocation.estimated_s = makespan;
      placed = true;
      break;
    }
    if (!placed) allocations.push_back({{index}, 1, 0, seconds[index], 0});
  }
  for (PackedAllocationPlan& allocation : allocations) {
    for (size_t member : allocation.runs) {
      allocation.nodes = std::max(allocation.nodes, runs[member]->nodes);
      allocation.gpus_per_node =
          std::max(allocation.gpus_per_node, runs[member]->slurm.gpus_per_node);
    }
    // Without a cap an unknown step leaves the time to the partition's default.
    allocation.time_minutes =
        some_unknown && !cap ? 0 : allocation_minutes(allocation.estimated_s, cap);
  }
  return allocations;
}

Result<std::vector<PackedAllocationPlan>> plan_packed_sweep(
    const std::vector<const RunSpec*>& runs, const std::map<std::string, double>& measured_run_s,
    bool concurrent, const PartitionTimes& partitions) {
  // The runs asking for the same allocation (system, partition and every other directive),
  // in their first run's order, as indices into `runs`.
  std::vector<std::vector<size_t>> groups;
  std::map<std::string, size_t> group_of;
  for (size_t index = 0; index < runs.size(); ++index) {
    const RunSpec& run = *runs[index];
    auto [found, added] = group_of.emplace(allocation_request_key(run), groups.size());
    if (added) groups.emplace_back();
    groups[found->second].push_back(index);
  }
  std::vector<PackedAllocationPlan> plans;
  for (const std::vector<size_t>& group : groups) {
    std::vector<const RunSpec*> members;
    std::vector<StepEstimate> estimates;
    for (size_t index : group) {
      const RunSpec& run = *runs[index];
      members.push_back(&run);
      auto measured = measured_run_s.find(run.run_id);
      estimates.push_back(estimate_step(run, measured == measured_run_s.end()
                                                 ? std::nullopt
                                                 : std::optional<double>(measured->second)));
    }
    auto allocations = plan_packed_allocations(members, estimates, concurrent,
                                               allocation_time_cap(partitions, *members.front()));
    if (!allocations) return allocations.status();
    for (PackedAllocationPlan& allocation : *allocations) {
      for (size_t& index : allocation.runs) index = group[index];
      plans.push_back(std::move(allocation));
    }
  }
  return plans;
}

RequestedCost requested_packed_cost(const std::vector<PackedAllocationPlan>& allocations) {
  RequestedCost cost;
  for (const PackedAllocationPlan& allocation : allocations) {
    const int runs = static_cast<int>(allocation.runs.size());
    cost.runs += runs;
    if (allocation.time_minutes <= 0) {
      cost.runs_without_time_limit += runs;
      continue;
    }
    const double node_hours = allocation.time_minutes / 60.0 * allocation.nodes;
    cost.node_hours += node_hours;
    cost.gpu_hours += node_hours * allocation.gpus_per_node;
  }
  return cost;
}

}  // namespace scalestudy::sched
