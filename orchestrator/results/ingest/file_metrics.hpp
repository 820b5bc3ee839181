// The numbers a metric reads from a structured file a program wrote in its run folder
// (metric_spec.hpp): a CSV column (Lightning's CSVLogger: a header row, sparse rows whose
// empty cells are skipped), a field of JSON lines (one object a line; lines without it
// skipped), or a JSON path in one JSON document (Hugging Face's trainer_state.json; a list
// of numbers gives each). In file order, each value one "match" for occurrence and
// skip_first. Errors name the file (and line) and what is wrong. Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/study/metric_spec.hpp"

namespace scalestudy::results {

// `spec.source` is kCsv, kJsonLines or kJson; `path` the file.
Result<std::vector<double>> read_structured_metric(const MetricSpec& spec, const std::string& path);

}  // namespace scalestudy::results
