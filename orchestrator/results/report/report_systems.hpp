// A study planned on several systems (docs/systems.md): its report split by system, each
// part with its own baseline (the system is part of each point's configuration, so each
// system's series has its own), and the systems side by side per point — the throughput
// ratio of each system to the first with its 95% CI and Welch's t when repeats allow, both
// efficiencies and both times to target. Pure functions of a Report; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "orchestrator/results/report/report.hpp"

namespace scalestudy::results {

// The configuration key that names a run's system when a study has several.
inline constexpr const char* kSystemKey = "system";

// The point's system: its configuration's, or the report's one system; empty without.
std::string system_of(const ReportPoint& point, const Report& report);

// The report's systems, in the study's order where the study database records it.
std::vector<std::string> report_systems(const Report& report);

// The report with only the points of `system`, their configuration without the system.
Report report_on_system(const Report& report, const std::string& system);

// Every point measured on the first system and on another, the other against the first.
std::vector<SystemsPoint> compare_systems(const Report& report);

}  // namespace scalestudy::results
