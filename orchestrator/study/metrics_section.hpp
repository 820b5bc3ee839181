// Reads a study's `metrics:` section (see studies/README.md) into MetricSpecs. Each pattern
// is compiled with RE2 (linear time, no backtracking) and must hold exactly one capture
// group; every problem is reported with its location. Pure function.
#pragma once

#include <vector>

#include "orchestrator/study/config_tree.hpp"
#include "orchestrator/study/diagnostics.hpp"
#include "orchestrator/study/metric_spec.hpp"

namespace scalestudy {

std::vector<MetricSpec> read_metrics_section(const ConfigNode& metrics, Diagnostics& diagnostics);

}  // namespace scalestudy
