// The report's tables that grow with ranks or hosts, as member tables (rank_summary.hpp):
// memory per rank, each rank's arrival at the gradient all-reduce, and the study's hosts
// by their stragglers. A group per measured point (the hosts: one for the study); none
// without figures. Internal to the renderers; pure functions of the Report.
#pragma once

#include "orchestrator/results/report/rank_summary.hpp"
#include "orchestrator/results/report/report.hpp"

namespace scalestudy::results {

// The allocator's peaks of tensors and of reserved memory and NVML's peak and average of
// device memory in use (where runs recorded GPU memory), and the host's RSS peak and
// average; plotted: the allocator's peak, else the RSS peak.
MemberTable rank_memory_members(const Report& report);

// How much later than the step's median rank each rank arrived (median over the steps),
// and how often it was the last; plotted: the lateness.
MemberTable rank_arrival_members(const Report& report);

// Per host over the study's runs: runs there, runs whose straggler ran there, its share of
// last arrivals, the wait while one of its ranks was last, its ranks' lateness; plotted:
// the lateness.
MemberTable host_members(const Report& report);

}  // namespace scalestudy::results
