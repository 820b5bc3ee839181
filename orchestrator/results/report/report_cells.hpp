// How the report's tables print a figure, and the headers that name a point's scale: shared
// by the report's tables (report_tables.cpp) and its tables of ranks and hosts
// (report_member_tables.hpp). Internal to the renderers; pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "orchestrator/results/report/report.hpp"

namespace scalestudy::results {

std::string fixed(double value, int decimals);
std::string fixed(const std::optional<double>& value, int decimals);  // "-" when none
std::string percent(const std::optional<double>& fraction, int decimals = 1);
std::string signed_fixed(const std::optional<double>& value, int decimals);
// Enough decimals for the magnitude: 12345, 123.4, 1.234.
std::string magnitude(double value);

bool has_several_configs(const Report& report);
// Whether the tables lead with the configuration: several of them, or a sensitivity study.
bool shows_config(const Report& report);
std::string scale_header(const Report& report);  // "GPUs" or "ranks"

// GiB when the largest figure is a GiB or more, else MiB: the unit a memory table's
// title names for all its columns but those that name their own.
struct MemoryUnit {
  double bytes = 1024.0 * 1024.0;
  std::string name = "MiB";
};
MemoryUnit memory_unit(const std::vector<std::optional<double>>& figures);
std::string in_unit(double bytes, const MemoryUnit& unit);
std::string in_unit(const std::optional<double>& bytes, const MemoryUnit& unit);  // "-": none

}  // namespace scalestudy::results
