#include "orchestrator/results/report/plots.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "orchestrator/common/process_runner.hpp"
#include "orchestrator/results/report/rank_summary.hpp"

namespace scalestudy::results {
namespace {

namespace fs = std::filesystem;

// One plot: its data files (name → text) and the gnuplot commands drawing it.
struct PlotScript {
  std::string name;
  std::map<std::string, std::string> data_files;
  std::string commands;  // after the terminal and output are set
};

// Labels come from study files and databases. gnuplot ends a string at the end of a line
// and runs what follows as commands, so control characters (newlines first) become spaces.
bool is_control(char c) {
  return static_cast<unsigned char>(c) < 0x20 || c == '\x7f';
}

// A gnuplot single-quoted string: no backquote or macro substitution inside, '' is a quote.
std::string quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') {
      quoted += "''";
    } else {
      quoted += is_control(c) ? ' ' : c;
    }
  }
  return quoted + "'";
}

// A label column of a data file, written between double quotes: one line, no double quote.
std::string data_label(const std::string& text) {
  std::string label;
  for (char c : text) label += is_control(c) ? ' ' : c == '"' ? '\'' : c;
  return label;
}

std::string scale_label(const Report& report) {
  return report.gpu ? "GPUs" : "ranks";
}

// Measured points grouped by configuration, in report order.
std::vector<std::pair<std::string, std::vector<const ReportPoint*>>> series(const Report& report) {
  std::vector<std::pair<std::string, std::vector<const ReportPoint*>>> all;
  for (const auto& point : report.points) {
    if (point.run_ids.empty()) continue;
    auto it = std::find_if(all.begin(), all.end(),
                           [&](const auto& s) { return s.first == point.config_label; });
    if (it == all.end()) {
      all.push_back({point.config_label, {}});
      it = all.end() - 1;
    }
    it->second.push_back(&point);
  }
  return all;
}

// Log2 x axis with a tick at every measured scale and some room at both ends.
std::string scale_axis(const Report& report) {
  std::set<int> scales;
  for (const auto& point : report.points) scales.insert(point.world_size);
  for (const auto& projection : report.projections) {
    for (const auto& point : projection.points) scales.insert(point.world_size);
  }
  std::string tics;
  for (int scale : scales) tics += (tics.empty() ? "" : ", ") + std::to_string(scale);
  return "set logscale x 2\nset xtics (" + tics + ")\nset xrange [" +
         std::to_string(*scales.begin() * 0.8) + ":" + std::to_string(*scales.rbegin() * 1.25) +
         "]\n";
}

std::string common_style() {
  return "set grid\nset key top left box opaque\nset border lw 1.2\n";
}

PlotScript throughput_vs_scale(const Report& report, const fs::path& dir) {
  PlotScript plot{"throughput", {}, common_style()};
  plot.commands += "set title " + quote(report.study + ": throughput") + "\n" + "set xlabel " +
                   quote(scale_label(report)) + "\n" + "set ylabel " +
                   quote(report.throughput_unit + "/s") + "\n" + scale_axis(report) +
                   "set yrange [0:*]\nplot ";
  int index = 0;
  for (const auto& [label, points] : series(report)) {
    const std::string file = "throughput_" + std::to_string(index) + ".dat";
    std::ostringstream data;
    data << "# ranks median min max ideal\n";
    const ReportPoint* base_point = points.front();
    for (const auto* point : points) base_point = point->is_baseline ? point : base_point;
    const ReportPoint& base = *base_point;
    for (const auto* point : points) {
      const double ideal =
          base.throughput_samples_per_s.median * point->world_size / std::max(1, base.world_size);
      data << point->world_size << ' ' << point->throughput_samples_per_s.median << ' '
           << point->throughput_samples_per_s.min << ' ' << point->throughput_samples_per_s.max
           << ' ' << ideal << '\n';
    }
    plot.data_files[file] = data.str();
    const std::string path = quote((dir / file).string());
    plot.commands += std::string(index ? ", \\\n     " : "") + path +
                     " using 1:2:3:4 with yerrorlines lw 2 pt 7 title " +
                     quote(label == "default" ? "measured (median, min–max)" : label) + ", " +
                     path + " using 1:5 with lines dt 2 lw 1.5 title " +
                     quote(label == "default" ? "ideal linear" : "ideal (" + label + ")");
    ++index;
  }
  plot.commands += "\n";
  return plot;
}

PlotScript throughput_bars(const Report& report, const fs::path& dir) {
  PlotScript plot{"throughput", {}, common_style()};
  std::ostringstream data;
  data << "# label median min max\n";
  for (const auto& point : report.points) {
    if (point.run_ids.empty()) continue;
    data << '"' << data_label(point.config_label) << " N=" << point.world_size << "\" "
         << point.throughput_samples_per_s.median << ' ' << point.throughput_samples_per_s.min
         << ' ' << point.throughput_samples_per_s.max << '\n';
  }
  plot.data_files["throughput.dat"] = data.str();
  plot.commands += "set title " + quote(report.study + ": throughput per configuration") +
                   "\nset ylabel " + quote(report.throughput_unit + "/s") +
                   "\nset yrange [0:*]\nset style fill solid 0.6\n"
                   "set boxwidth 0.6\nset xtics rotate by -30\nunset key\nplot " +
                   quote((dir / "throughput.dat").string()) +
                   " using 0:2:xtic(1) with boxes, '' using 0:2:3:4 with yerrorbars lc black\n";
  return plot;
}

PlotScript efficiency_vs_scale(const Report& report, const fs::path& dir) {
  PlotScript plot{"efficiency", {}, common_style()};
  plot.commands += "set title " + quote(report.study + ": " + report.kind + "-scaling efficiency") +
                   "\nset xlabel " + quote(scale_label(report)) +
                   "\nset ylabel 'efficiency [%]'\n" + scale_axis(report) +
                   "set yrange [0:110]\nplot 100 "
                   "with lines dt 2 lc rgb 'gray' title 'ideal'";
  int index = 0;
  for (const auto& [label, points] : series(report)) {
    const std::string file = "efficiency_" + std::to_string(index++) + ".dat";
    std::ostringstream data;
    for (const auto* point : points) {
      if (point->efficiency) data << point->world_size << ' ' << *point->efficiency * 100 << '\n';
    }
    plot.data_files[file] = data.str();
    plot.commands += ", \\\n     " + quote((dir / file).string()) +
                     " using 1:2 with linespoints lw 2 pt 7 title " + quote(label);
  }
  // The model's projection: a dashed line through every projected and measured scale.
  index = 0;
  for (const auto& projection : report.projections) {
    const std::string file = "projection_" + std::to_string(index++) + ".dat";
    std::ostringstream data;
    for (const auto& point : projection.points) {
      data << point.world_size << ' ' << point.efficiency * 100 << '\n';
    }
    plot.data_files[file] = data.str();
    const std::string title = projection.config_label == "default"
                                  ? std::string("projected (ring all-reduce model)")
                                  : "projected (" + projection.config_label + ")";
    plot.commands += ", \\\n     " + quote((dir / file).string()) +
                     " using 1:2 with linespoints dt 2 lw 2 pt 6 title " + quote(title);
  }
  plot.commands += "\n";
  return plot;
}

std::string point_title(const Report& report, const ReportPoint& point) {
  std::string unit = scale_label(report);
  if (point.world_size == 1) unit.pop_back();  // "1 rank", "1 GPU"
  std::string title = std::to_string(point.world_size) + " " + unit;
  return point.config_label == "default" ? title : point.config_label + ", " + title;
}

PlotScript accuracy_curves(const Report& report, const fs::path& dir) {
  PlotScript plot{"accuracy", {}, common_style()};
  plot.commands += "set title " + quote(report.study + ": validation accuracy") +
                   "\nset xlabel 'epoch'\nset ylabel 'val acc [%]'\nset key bottom right\nplot ";
  int index = 0;
  for (const auto& point : report.points) {
    if (point.accuracy_curve.empty()) continue;
    const std::string file = "accuracy_" + std::to_string(index) + ".dat";
    std::ostringstream data;
    for (const auto& epoch : point.accuracy_curve)
      data << epoch.epoch << ' ' << epoch.val_acc * 100 << '\n';
    plot.data_files[file] = data.str();
    plot.commands += std::string(index ? ", \\\n     " : "") + quote((dir / file).string()) +
                     " using 1:2 with linespoints lw 2 title " + quote(point_title(report, point));
    ++index;
  }
  plot.commands += "\n";
  return plot;
}

PlotScript phase_bars(const Report& report, const fs::path& dir) {
  PlotScript plot{"phases", {}, common_style()};
  std::ostringstream data;
  data << "# label data compute comm optimizer other\n";
  for (const auto& point : report.points) {
    if (point.run_ids.empty()) continue;
    const PhaseShares& p = point.phases;
    const double other =
        std::max(0.0, 100 - p.data_pct - p.compute_pct - p.comm_exposed_pct - p.optimizer_pct);
    data << '"' << data_label(point_title(report, point)) << "\" " << p.data_pct << ' '
         << p.compute_pct << ' ' << p.comm_exposed_pct << ' ' << p.optimizer_pct << ' ' << other
         << '\n';
  }
  plot.data_files["phases.dat"] = data.str();
  const std::string path = quote((dir / "phases.dat").string());
  plot.commands += "set title " + quote(report.study + ": step time by phase") +
                   "\nset ylabel 'share of step [%]'\nset yrange [0:*]\nset style data "
                   "histograms\nset style histogram rowstacked\nset style fill solid 0.8 border "
                   "-1\nset boxwidth 0.6\nset key outside right top\nset xtics rotate by -30\n"
                   "plot " +
                   path +
                   " using 2:xtic(1) title 'data wait', '' using 3 title "
                   "'compute', '' using 4 title 'exposed comm', '' using 5 title 'optimizer', '' "
                   "using 6 title 'other'\n";
  return plot;
}

// Clustered bars per rank of each point (a dot per rank past kFullRows ranks): the peaks
// of GPU (allocator), NVML device and host RSS memory, in GiB.
PlotScript memory_per_rank(const Report& report, const fs::path& dir) {
  PlotScript plot{"memory_per_rank", {}, common_style()};
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  auto gib = [](const std::optional<double>& bytes) {
    return bytes ? std::to_string(*bytes / kGiB) : std::string("0");
  };
  std::ostringstream data;
  data << "# label gpu_peak nvml_peak rss_peak (GiB)\n";
  for (const auto& point : report.points) {
    for (const auto& rank : point.rank_memory) {
      data << '"' << data_label(point_title(report, point)) << " r" << rank.rank << "\" "
           << gib(rank.gpu_peak_bytes) << ' ' << gib(rank.nvml_peak_bytes) << ' '
           << gib(rank.rss_peak_bytes) << '\n';
    }
  }
  plot.data_files["memory_per_rank.dat"] = data.str();
  const std::string path = quote((dir / "memory_per_rank.dat").string());
  plot.commands += "set title " + quote(report.study + ": peak memory per rank") +
                   "\nset ylabel 'GiB'\nset yrange [0:*]\nset key outside right top\n";
  // Past a table's worth of ranks a bar each would not fit: a dot each, in rank order.
  const bool many =
      std::any_of(report.points.begin(), report.points.end(),
                  [](const ReportPoint& p) { return p.rank_memory.size() > kFullRows; });
  if (many) {
    plot.commands += "set xlabel 'ranks of each point, in order'\nplot " + path +
                     " using 0:2 with points pt 7 ps 0.3 title 'GPU (allocator)', '' using 0:3 "
                     "with points pt 7 ps 0.3 title 'GPU (NVML)', '' using 0:4 with points pt 7 "
                     "ps 0.3 title 'host RSS'\n";
    return plot;
  }
  plot.commands +=
      "set style data histograms\nset style histogram clustered gap 1\n"
      "set style fill solid 0.8 border -1\nset xtics rotate by -30\nplot " +
      path +
      " using 2:xtic(1) title 'GPU (allocator)', '' using 3 title 'GPU (NVML)', '' "
      "using 4 title 'host RSS'\n";
  return plot;
}

// Both images from one script; pngcairo when this gnuplot has it.
std::string full_script(const PlotScript& plot, const fs::path& dir) {
  const std::string svg = quote((dir / (plot.name + ".svg")).string());
  const std::string png = quote((dir / (plot.name + ".png")).string());
  return "set terminal svg size 900,560 dynamic enhanced font 'Sans,12' background rgb 'white'\n"
         "set output " +
         svg + "\n" + plot.commands + "set output\n" +
         "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
         "  set terminal pngcairo size 1200,750 enhanced font 'Sans,12'\n"
         "} else {\n  set terminal png size 1200,750\n}\n"
         "set output " +
         png + "\nreplot\nset output\n";
}

Status write_text(const fs::path& path, const std::string& text) {
  std::ofstream file(path);
  file << text;
  file.close();
  if (!file) return Status::error("cannot write " + path.string());
  return Status::ok();
}

}  // namespace

// A plot renders in well under a second; a hung gnuplot must not hang `report`.
constexpr int kGnuplotTimeoutMs = 60'000;

Result<PlotOutcome> write_plots(const Report& report, const PlotOptions& options) {
  const fs::path dir = fs::absolute(options.output_dir);
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) return Status::error("cannot create " + dir.string() + ": " + error.message());

  bool any_measured = false, any_accuracy = false, any_efficiency = false;
  for (const auto& point : report.points) {
    any_measured |= !point.run_ids.empty();
    any_accuracy |= !point.accuracy_curve.empty();
    any_efficiency |= point.efficiency.has_value();
  }
  PlotOutcome outcome;
  if (!any_measured) {
    outcome.warnings.push_back("no measured runs: no plots");
    return outcome;
  }
  std::vector<PlotScript> plots;
  plots.push_back(report.kind == "sensitivity" ? throughput_bars(report, dir)
                                               : throughput_vs_scale(report, dir));
  if (any_efficiency) plots.push_back(efficiency_vs_scale(report, dir));
  if (any_accuracy) plots.push_back(accuracy_curves(report, dir));
  plots.push_back(phase_bars(report, dir));
  const bool any_rank_memory =
      std::any_of(report.points.begin(), report.points.end(),
                  [](const ReportPoint& p) { return !p.rank_memory.empty(); });
  if (any_rank_memory) plots.push_back(memory_per_rank(report, dir));

  for (const auto& plot : plots) {
    for (const auto& [name, text] : plot.data_files) {
      if (Status status = write_text(dir / name, text); !status) return status;
    }
    const fs::path script = dir / (plot.name + ".gp");
    if (Status status = write_text(script, full_script(plot, dir)); !status) return status;
    auto ran = common::run_process({{options.gnuplot, script.string()}, {}, kGnuplotTimeoutMs});
    if (!ran) {
      outcome.warnings.push_back(ran.status().message() +
                                 ": plots skipped (install gnuplot-nox); scripts and data are in " +
                                 dir.string());
      return outcome;
    }
    if (!ran->succeeded()) {
      outcome.warnings.push_back(
          plot.name + " plot failed (" +
          common::command_error({options.gnuplot, script.string()}, *ran).message() + ")");
      continue;
    }
    for (const char* extension : {".svg", ".png"}) {
      outcome.files.push_back((dir / (plot.name + extension)).string());
    }
  }
  return outcome;
}

}  // namespace scalestudy::results
