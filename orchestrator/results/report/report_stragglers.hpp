// build_report's straggler step: each measured run's all-reduce arrivals (m_arrivals)
// and hosts (m_run) loaded from the study database and attributed (stragglers.hpp) into
// ReportPoint::stragglers, each rank's arrivals into ReportPoint::rank_arrivals, and the
// study's hosts tallied into Report::straggler_hosts.
// A study database ingested before arrivals existed has none. Internal to build_report.
#pragma once

#include "harness/core/sqlite.hpp"
#include "harness/core/status.hpp"
#include "orchestrator/results/report/report_points.hpp"

namespace scalestudy::results {

Status add_stragglers(sqlite::Database& study_db, std::vector<PointWork>& points, Report& report);

}  // namespace scalestudy::results
