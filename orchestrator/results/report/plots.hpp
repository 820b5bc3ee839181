// Plots of a Report drawn by gnuplot (run as a process on a generated script and data
// files, never through a shell): throughput vs scale with the ideal linear line,
// efficiency vs scale (with the projection as a dashed line), validation accuracy per epoch per
// point, stacked phase bars and peak memory per rank (clustered bars, or a dot per rank past
// kFullRows ranks); each as SVG and PNG (pngcairo when gnuplot has it, else png). A missing
// gnuplot is a warning, not an error. Writes only under output_dir; thread-safe for distinct
// dirs.
#pragma once

#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/results/report/report.hpp"

namespace scalestudy::results {

struct PlotOptions {
  std::string output_dir;           // created if missing
  std::string gnuplot = "gnuplot";  // program name (PATH) or path
};

struct PlotOutcome {
  std::vector<std::string> files;     // images written (.svg and .png)
  std::vector<std::string> warnings;  // plots skipped, and why
};

Result<PlotOutcome> write_plots(const Report& report, const PlotOptions& options);

}  // namespace scalestudy::results
