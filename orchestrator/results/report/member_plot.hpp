// A plot of one figure across a large group's members (a point's ranks, the study's hosts)
// for the HTML report, where a table of a row per member would not fit: an inline SVG with
// a dot per member in member order, the median and the outlier band (kOutlierSigmas σ,
// rank_summary.hpp) behind them, the outliers in red and the kNamedOutliers farthest
// labelled. Drawn by the report itself, so the page needs no gnuplot and the site has it
// too. Pure function; thread-safe.
#pragma once

#include <string>

#include "orchestrator/results/report/rank_summary.hpp"

namespace scalestudy::results {

// The SVG element (no XML prologue) of figure `figure` of `group` of `table`; empty when no
// member recorded it.
std::string member_plot_svg(const MemberTable& table, const MemberGroup& group, size_t figure);

}  // namespace scalestudy::results
