// build_report's ceilings step: per point, its repeats' calibration figures and training
// throughput loaded from the study database (m_summary, m_run, m_epochs; the GPU model
// each recorded, run_device.hpp) and combined into ReportPoint::ceilings (ceilings.hpp).
// Runs without calibration leave the point without ceilings. Internal to build_report;
// one thread.
#pragma once

#include "harness/core/sqlite.hpp"
#include "harness/core/status.hpp"
#include "orchestrator/results/report/report_points.hpp"

namespace scalestudy::results {

Status add_ceilings(sqlite::Database& study_db, std::vector<PointWork>& points);

}  // namespace scalestudy::results
