// `scalestudy export --csv DIR`: the study's runs and epochs as CSV files in the shape
// users keep today (one row per run with job id, nodes, GPUs, batches, throughput,
// time/epoch, accuracy, git hash; one row per run and epoch), for pandas or a
// spreadsheet. Reads through run_read_only_query, so it never writes the study database.
#pragma once

#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::results {

// Writes DIR/runs.csv and DIR/epochs.csv; returns their paths.
Result<std::vector<std::string>> export_csv(const std::string& study_db_path,
                                            const std::string& output_dir);

}  // namespace scalestudy::results
