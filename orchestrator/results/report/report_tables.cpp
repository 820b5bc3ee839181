#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>

#include "orchestrator/results/report/report_cells.hpp"
#include "orchestrator/results/report/report_member_tables.hpp"
#include "orchestrator/results/report/report_render.hpp"
#include "orchestrator/results/report/report_systems.hpp"

namespace scalestudy::results {
namespace {

std::string range(const Summary& summary) {
  if (summary.count < 2) return "-";
  return magnitude(summary.min) + "–" + magnitude(summary.max);
}

std::string ci(const Summary& summary) {
  return summary.ci95_half_width ? "±" + magnitude(*summary.ci95_half_width) : "-";
}

std::string per_rank_header(const Report& report) {
  return report.gpu ? "per-GPU batch" : "per-rank batch";
}
std::string hours_header(const Report& report) {
  return report.gpu ? "GPU-h/epoch" : "rank-h/epoch";
}

// Columns shared by the tables: a header and how a point fills it.
struct Column {
  std::string header;
  std::function<std::string(const ReportPoint&)> cell;
};

Table make_table(const std::string& title, const std::vector<Column>& columns, const Report& report,
                 bool (*include)(const ReportPoint&) = nullptr) {
  Table table;
  table.title = title;
  for (const auto& column : columns) table.headers.push_back(column.header);
  for (const auto& point : report.points) {
    if (include && !include(point)) continue;
    std::vector<std::string> row;
    for (const auto& column : columns) row.push_back(column.cell(point));
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::vector<Column> leading_columns(const Report& report, bool with_batches) {
  std::vector<Column> columns;
  if (shows_config(report)) {
    columns.push_back({"config", [](const ReportPoint& p) {
                         return p.config_label + (p.is_baseline ? " (base)" : "");
                       }});
  }
  columns.push_back(
      {scale_header(report), [](const ReportPoint& p) { return std::to_string(p.world_size); }});
  columns.push_back({"nodes", [](const ReportPoint& p) { return std::to_string(p.nodes); }});
  if (with_batches) {
    columns.push_back(
        {"global batch", [](const ReportPoint& p) { return std::to_string(p.global_batch); }});
    columns.push_back({per_rank_header(report),
                       [](const ReportPoint& p) { return std::to_string(p.per_gpu_batch); }});
  }
  return columns;
}

// "throughput [samples/s]", or tokens/s for a study that counts tokens.
std::string throughput_header(const Report& report) {
  return "throughput [" + report.throughput_unit + "/s]";
}

std::vector<Column> throughput_columns(const Report& report) {
  return {
      {throughput_header(report),
       [](const ReportPoint& p) {
         return p.throughput_samples_per_s.count == 0
                    ? "-"
                    : magnitude(p.throughput_samples_per_s.median);
       }},
      {"min–max", [](const ReportPoint& p) { return range(p.throughput_samples_per_s); }},
      {"95% CI", [](const ReportPoint& p) { return ci(p.throughput_samples_per_s); }},
  };
}

std::vector<Column> phase_columns() {
  auto share = [](double PhaseShares::*field) {
    return [field](const ReportPoint& p) {
      return p.phases_measured ? fixed(p.phases.*field, 1) : std::string("-");
    };
  };
  return {
      {"data %", share(&PhaseShares::data_pct)},
      {"compute %", share(&PhaseShares::compute_pct)},
      {"comm %", share(&PhaseShares::comm_exposed_pct)},
      {"optim %", share(&PhaseShares::optimizer_pct)},
      {"bottleneck",
       [](const ReportPoint& p) {
         return p.phases_measured ? std::string(to_string(p.bottleneck)) : std::string("-");
       }},
  };
}

std::vector<Column> trailing_columns(const Report& report) {
  return {
      {hours_header(report),
       [](const ReportPoint& p) {
         return p.epoch_s.count == 0 ? std::string("-") : fixed(p.device_hours_per_epoch, 4);
       }},
      {"runs",
       [](const ReportPoint& p) {
         std::string text = std::to_string(p.run_ids.size()) + "/" + std::to_string(p.planned_runs);
         return p.failed_runs ? text + " (" + std::to_string(p.failed_runs) + " failed)" : text;
       }},
  };
}

void append(std::vector<Column>& to, std::vector<Column> more) {
  for (auto& column : more) to.push_back(std::move(column));
}

std::string magnitude_or_dash(const std::optional<double>& value) {
  return value ? magnitude(*value) : std::string("-");
}

bool any_point(const Report& report, bool (*has)(const ReportPoint&)) {
  return std::any_of(report.points.begin(), report.points.end(), has);
}

// "energy [J/sample]", or per token for a study that counts tokens (and recorded them).
std::string energy_header(const Report& report) {
  return report.throughput_unit == "tokens" ? "energy [J/token]" : "energy [J/sample]";
}
Column energy_column(const Report& report) {
  const bool tokens = report.throughput_unit == "tokens";
  return {energy_header(report), [tokens](const ReportPoint& p) {
            return magnitude_or_dash(tokens ? p.joules_per_token : p.joules_per_sample);
          }};
}

Table main_table(const Report& report) {
  std::vector<Column> columns = leading_columns(report, true);
  append(columns, throughput_columns(report));
  Column epoch{"time/epoch [s]", [](const ReportPoint& p) {
                 return p.epoch_s.count == 0 ? "-" : magnitude(p.epoch_s.median);
               }};
  Column step{"step [ms]", [](const ReportPoint& p) {
                return p.step_ms.count == 0 ? "-" : magnitude(p.step_ms.median);
              }};
  Column accuracy{"val acc [%]", [](const ReportPoint& p) { return percent(p.final_val_acc, 2); }};
  std::string title;
  if (report.kind == "strong") {
    title = "Strong scaling: " + report.study;
    columns.push_back(epoch);
    columns.push_back({"speedup", [](const ReportPoint& p) { return fixed(p.speedup, 2); }});
    columns.push_back(
        {"efficiency [%]", [](const ReportPoint& p) { return percent(p.efficiency); }});
    if (any_point(report, [](const ReportPoint& p) { return p.joules_per_sample.has_value(); })) {
      columns.push_back(energy_column(report));
    }
    columns.push_back(accuracy);
  } else if (report.kind == "weak") {
    title = "Weak scaling: " + report.study;
    columns.push_back(step);
    columns.push_back(epoch);
    columns.push_back(
        {"efficiency [%]", [](const ReportPoint& p) { return percent(p.efficiency); }});
    columns.push_back(accuracy);
    if (report.target_acc) {
      columns.push_back({"time to " + fixed(*report.target_acc * 100, 1) + "% [s]",
                         [](const ReportPoint& p) { return fixed(p.time_to_accuracy_s, 1); }});
    }
  } else if (report.kind == "sensitivity") {
    title = "Sensitivity: " + report.study;
    columns.push_back({"change [%]", [](const ReportPoint& p) {
                         return signed_fixed(p.throughput_change_pct, 1);
                       }});
    columns.push_back(step);
    columns.push_back(accuracy);
    columns.push_back({"Δacc [pts]", [](const ReportPoint& p) {
                         return signed_fixed(p.accuracy_change_points, 2);
                       }});
  } else {
    title = "Runs: " + report.study;
    columns.push_back(step);
    columns.push_back(epoch);
    columns.push_back(accuracy);
  }
  if (report.efficiency_threshold_pct) {
    const std::string limit = fixed(*report.efficiency_threshold_pct, 1) + "%";
    columns.push_back({"efficiency ≥ " + limit, [limit](const ReportPoint& p) {
                         if (!p.efficiency) return std::string("-");
                         return p.below_efficiency_threshold ? "MISSED" : std::string("ok");
                       }});
  }
  append(columns, phase_columns());
  append(columns, trailing_columns(report));
  return make_table(title, columns, report);
}

// Each system against the first, point by point (report_systems.hpp).
Table systems_table(const Report& report) {
  Table table;
  table.title = "Systems side by side: " + report.study + " (ratio: system / " +
                report_systems(report).front() + ", 95% CI and Welch's t from 2 repeats a side)";
  const auto& points = report.systems_side_by_side;
  const bool several_configs = std::any_of(points.begin(), points.end(), [&](const auto& p) {
    return p.config_label != points.front().config_label;
  });
  const bool to_target = std::any_of(points.begin(), points.end(), [](const SystemsPoint& p) {
    return p.time_to_target_reference_s || p.time_to_target_system_s;
  });
  if (several_configs) table.headers.push_back("config");
  table.headers.insert(table.headers.end(),
                       {scale_header(report), "nodes", "system", throughput_header(report), "vs",
                        "ratio", "95% CI", "Welch t", "efficiency [%]", "vs [%]"});
  if (to_target) {
    table.headers.push_back("to target [s]");
    table.headers.push_back("vs [s]");
  }
  for (const SystemsPoint& point : points) {
    const MeanComparison& stats = point.comparison;
    std::vector<std::string> row;
    if (several_configs) row.push_back(point.config_label);
    row.push_back(std::to_string(point.world_size));
    row.push_back(std::to_string(point.nodes));
    row.push_back(point.system);
    row.push_back(magnitude(point.throughput_system.median));
    row.push_back(magnitude(point.throughput_reference.median));
    row.push_back(fixed(stats.ratio, 3));
    row.push_back(stats.ratio_ci95_low
                      ? fixed(*stats.ratio_ci95_low, 3) + "–" + fixed(*stats.ratio_ci95_high, 3)
                      : "-");
    row.push_back(stats.welch_t ? fixed(*stats.welch_t, 2) : "-");
    row.push_back(percent(point.efficiency_system));
    row.push_back(percent(point.efficiency_reference));
    if (to_target) {
      row.push_back(fixed(point.time_to_target_system_s, 1));
      row.push_back(fixed(point.time_to_target_reference_s, 1));
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

// The kind's main table; one per system, each with its own baselines, when there are several.
std::vector<Table> main_tables(const Report& report) {
  const std::vector<std::string> systems = report_systems(report);
  if (systems.size() < 2) return {main_table(report)};
  std::vector<Table> tables;
  for (const std::string& system : systems) {
    Table table = main_table(report_on_system(report, system));
    table.title += " on " + system;
    tables.push_back(std::move(table));
  }
  if (!report.systems_side_by_side.empty()) tables.push_back(systems_table(report));
  return tables;
}

Table comm_table(const Report& report) {
  std::vector<Column> columns = leading_columns(report, false);
  auto field = [](double CommPrediction::*member, bool as_percent) {
    return [member, as_percent](const ReportPoint& p) {
      if (!p.comm) return std::string("-");
      const double value = (*p.comm).*member;
      return as_percent ? fixed(value * 100, 1) : magnitude(value);
    };
  };
  append(columns, {
                      {"busbw [GB/s]", field(&CommPrediction::busbw_gbps, false)},
                      {"predicted comm [ms]", field(&CommPrediction::comm_ms, false)},
                      {"predicted step [ms]", field(&CommPrediction::predicted_step_ms, false)},
                      {"measured step [ms]", field(&CommPrediction::measured_step_ms, false)},
                      {"predicted eff [%]", field(&CommPrediction::predicted_efficiency, true)},
                      {"measured eff [%]", field(&CommPrediction::measured_efficiency, true)},
                  });
  return make_table("Communication model (all-reduce busbw at the bucket size, no overlap)",
                    columns, report, [](const ReportPoint& p) { return p.comm.has_value(); });
}

// A point's memory: the allocator's and NVML's peaks where its runs recorded GPU memory,
// and the host's; the per-rank table (below) holds every figure of each rank.
Table memory_table(const Report& report) {
  std::vector<std::optional<double>> figures;
  bool gpu_memory = false;
  for (const auto& point : report.points) {
    const MemoryUse& memory = point.memory;
    for (const auto& value :
         {memory.gpu_peak_bytes, memory.gpu_reserved_peak_bytes, memory.nvml_peak_bytes,
          memory.gpu_avg_bytes, memory.gpu_mode_bytes}) {
      figures.push_back(value);
      gpu_memory |= value.has_value();
    }
    figures.push_back(memory.cpu_rss_peak_bytes);
  }
  const MemoryUnit unit = memory_unit(figures);
  auto bytes = [unit](std::optional<double> MemoryUse::*member) {
    return [unit, member](const ReportPoint& p) { return in_unit(p.memory.*member, unit); };
  };
  auto times = [](std::optional<double> MemoryUse::*member) {
    return [member](const ReportPoint& p) {
      const auto& value = p.memory_ratio.*member;
      return value ? fixed(*value, 2) + "×" : std::string("-");
    };
  };
  std::vector<Column> columns = leading_columns(report, true);
  if (gpu_memory) {
    append(columns, {
                        {"alloc peak", bytes(&MemoryUse::gpu_peak_bytes)},
                        {"NVML peak", bytes(&MemoryUse::nvml_peak_bytes)},
                        {"NVML mode", bytes(&MemoryUse::gpu_mode_bytes)},
                        {"alloc vs base", times(&MemoryUse::gpu_peak_bytes)},
                    });
  }
  append(columns, {
                      {"RSS peak", bytes(&MemoryUse::cpu_rss_peak_bytes)},
                      {"RSS vs base", times(&MemoryUse::cpu_rss_peak_bytes)},
                  });
  // In MiB whatever the other columns' unit: a small model's state is a few MiB.
  const bool has_optimizer_state =
      std::any_of(report.points.begin(), report.points.end(),
                  [](const ReportPoint& p) { return p.memory.optimizer_state_bytes.has_value(); });
  if (has_optimizer_state) {
    columns.push_back({"Optimizer state/rank [MiB]", [](const ReportPoint& p) {
                         return in_unit(p.memory.optimizer_state_bytes, MemoryUnit{});
                       }});
  }
  return make_table(
      "Memory [" + unit.name + "] (peaks: the largest over repeats and ranks" +
          (gpu_memory ? "; alloc: PyTorch's allocator, NVML: device memory in use)" : ")"),
      columns, report, [](const ReportPoint& p) { return !p.run_ids.empty(); });
}

// The device's energy, power and clocks over the measured steps, where the runs recorded
// them; the note says why figures are empty (no NVML, an entry point the driver lacks).
Table energy_table(const Report& report) {
  std::vector<Column> columns = leading_columns(report, false);
  append(
      columns,
      {energy_column(report),
       {"avg power/GPU [W]", [](const ReportPoint& p) { return magnitude_or_dash(p.avg_power_w); }},
       {"peak power [W]", [](const ReportPoint& p) { return magnitude_or_dash(p.peak_power_w); }},
       {"SM clock [MHz]",
        [](const ReportPoint& p) {
          if (!p.sm_clock_min_mhz || !p.sm_clock_max_mhz) return std::string("-");
          return fixed(*p.sm_clock_min_mhz, 0) + "–" + fixed(*p.sm_clock_max_mhz, 0);
        }},
       {"clock events",
        [](const ReportPoint& p) { return p.clock_events.empty() ? "-" : p.clock_events; }}});
  Table table = make_table("Energy and clocks over the measured steps", columns, report,
                           [](const ReportPoint& p) { return p.energy_recorded; });
  std::set<std::string> reasons;
  for (const auto& point : report.points) {
    if (!point.energy_unavailable.empty()) reasons.insert(point.energy_unavailable);
  }
  for (const auto& reason : reasons) {
    table.note += (table.note.empty() ? "empty: " : "; ") + reason;
  }
  return table;
}

// Time-to-accuracy beside throughput efficiency, with the accuracy check against the
// baseline; only when some point's runs had a target or a check was made.
Table time_to_target_table(const Report& report) {
  auto target = [](const ReportPoint& p) -> const TimeToTarget* {
    return p.to_target ? &*p.to_target : nullptr;
  };
  std::vector<Column> columns = leading_columns(report, true);
  append(
      columns,
      {
          {"target",
           [target](const ReportPoint& p) {
             const TimeToTarget* t = target(p);
             if (!t) return std::string("-");
             return t->metric == "val_accuracy" ? "val acc ≥ " + fixed(t->value * 100, 1) + "%"
                                                : "val loss ≤ " + magnitude(t->value);
           }},
          {"throughput eff [%]", [](const ReportPoint& p) { return percent(p.efficiency); }},
          {"time to target [s]",
           [target](const ReportPoint& p) {
             return target(p) ? fixed(target(p)->time_s, 1) : "-";
           }},
          {"epoch",
           [target](const ReportPoint& p) { return target(p) ? fixed(target(p)->epoch, 1) : "-"; }},
          {"reached",
           [target](const ReportPoint& p) {
             const TimeToTarget* t = target(p);
             return t ? std::to_string(t->reached_runs) + "/" + std::to_string(t->runs) : "-";
           }},
          {"speedup to target",
           [target](const ReportPoint& p) {
             return target(p) ? fixed(target(p)->speedup, 2) : "-";
           }},
          {"eff to target [%]",
           [target](const ReportPoint& p) {
             return target(p) ? percent(target(p)->efficiency) : "-";
           }},
          {"vs base at epoch",
           [](const ReportPoint& p) {
             const auto& check = p.accuracy_vs_baseline;
             if (!check) return std::string(p.is_baseline ? "base" : "-");
             const std::string change =
                 signed_fixed(check->change, check->metric == "val_accuracy" ? 2 : 3) + " @" +
                 std::to_string(check->epoch);
             if (check->identical_repeats) return change + " (no verdict: identical repeats)";
             if (!check->worse) {
               return change + " (no verdict: " + std::to_string(check->repeats) +
                      (check->repeats == 1 ? " repeat)" : " repeats)");
             }
             return change + (*check->worse ? " WORSE" : " within noise");
           }},
      });
  // Rows where a target is declared, or where the accuracy is judged worse than the
  // baseline's: a study without a target gets no table of dashes.
  return make_table("Time to target (" + report.study + ")", columns, report,
                    [](const ReportPoint& p) {
                      const auto& check = p.accuracy_vs_baseline;
                      return p.to_target.has_value() || (check && check->worse.value_or(false));
                    });
}

// One column per metric of the study's `metrics:`, read from the runs' output.
Table output_metrics_table(const Report& report) {
  std::map<std::string, std::string> units;  // every metric any point has, by name
  for (const auto& point : report.points) {
    for (const auto& [name, metric] : point.output_metrics) units[name] = metric.unit;
  }
  std::vector<Column> columns = leading_columns(report, false);
  for (const auto& [name, unit] : units) {
    columns.push_back(
        {unit.empty() ? name : name + " [" + unit + "]", [name = name](const ReportPoint& p) {
           auto found = p.output_metrics.find(name);
           return found == p.output_metrics.end() ? std::string("-")
                                                  : magnitude(found->second.value);
         }});
  }
  return make_table("Output metrics", columns, report,
                    [](const ReportPoint& p) { return !p.output_metrics.empty(); });
}

// One table per projected series: model, then measured, scales ascending.
Table projection_table(const Report& report, const SeriesProjection& projection) {
  const ProjectionModel& model = projection.model;
  Table table;
  table.title = "Projection (ring all-reduce model, docs/projection.md)" +
                (projection.config_label == "default" ? "" : ": " + projection.config_label) +
                " — anchor N=" + std::to_string(model.anchor_world_size) + ", overlap " +
                fixed(model.overlap_fraction * 100, 1) + "%, busbw from " + projection.curve_source;
  table.headers = {scale_header(report),      per_rank_header(report), "compute [ms]",
                   "all-reduce [ms]",         "exposed [ms]",          "step [ms]",
                   throughput_header(report), "efficiency [%]",        "measured step [ms]",
                   "model error [%]"};
  for (const auto& point : projection.points) {
    table.rows.push_back({std::to_string(point.world_size), magnitude(point.per_rank_batch),
                          magnitude(point.compute_ms), magnitude(point.allreduce_ms),
                          magnitude(point.exposed_comm_ms), magnitude(point.step_ms),
                          magnitude(point.throughput_samples_per_s),
                          fixed(point.efficiency * 100, 1), fixed(point.measured_step_ms, 2),
                          signed_fixed(point.error_pct, 1)});
  }
  return table;
}

// Efficiency against the datasheet peak and the run's own measured ceilings.
Table ceilings_table(const Report& report) {
  using Field = std::optional<double> PointCeilings::*;
  auto value = [](Field field, bool as_percent) {
    return [field, as_percent](const ReportPoint& p) {
      if (!p.ceilings) return std::string("-");
      const std::optional<double>& figure = (*p.ceilings).*field;
      return as_percent ? percent(figure) : figure ? magnitude(*figure) : std::string("-");
    };
  };
  std::vector<Column> columns = leading_columns(report, false);
  append(columns,
         {
             {"device", [](const ReportPoint& p) { return p.ceilings ? p.ceilings->device : "-"; }},
             {"precision",
              [](const ReportPoint& p) { return p.ceilings ? p.ceilings->precision : "-"; }},
             {"peak [TFLOPS]",
              [](const ReportPoint& p) {
                if (!p.ceilings) return std::string("-");
                if (!p.ceilings->peak_tflops) return p.ceilings->peak_note;
                const std::string figure = magnitude(*p.ceilings->peak_tflops);
                return p.ceilings->peak_source == "datasheet"
                           ? figure
                           : figure + " (" + p.ceilings->peak_source + ")";
              }},
             {"TFLOPS/device", value(&PointCeilings::achieved_tflops, false)},
             {"MFU [%]", value(&PointCeilings::mfu, true)},
             {"GEMM ceiling [TFLOPS]", value(&PointCeilings::gemm_tflops, false)},
             {"of GEMM [%]", value(&PointCeilings::gemm_fraction, true)},
             {"busbw ceiling [GB/s]", value(&PointCeilings::allreduce_busbw_gbps, false)},
             {"achieved busbw [GB/s]", value(&PointCeilings::achieved_busbw_gbps, false)},
             {"of busbw [%]", value(&PointCeilings::busbw_fraction, true)},
             {"calibration [% of run]",
              [](const ReportPoint& p) {
                return p.ceilings ? fixed(p.ceilings->calibration_pct, 2) : std::string("-");
              }},
         });
  return make_table(
      "Ceilings (datasheet dense peak unless a system states its own; GEMM and "
      "all-reduce measured at run start)",
      columns, report, [](const ReportPoint& p) { return p.ceilings.has_value(); });
}

// "yes (p=0.001)", "no (p=0.31)", "no (wait 3% of a step)" or "no (host busy: 0.16 cores)":
// is the rank last more often than chance would make it, by a wait that matters, on a host
// whose other work cannot account for the wait.
std::string straggler_verdict(const RunStraggler& run) {
  char text[64];
  if (run.late_beyond_chance() && run.host_busy()) {
    std::snprintf(text, sizeof text, "no (host busy: %.2f cores)", *run.host_other_work_cores);
  } else if (run.p_value < kStragglerAlpha && !run.late_beyond_chance()) {
    if (run.wait_median_ms < kMinWaitMs || !run.step_ms_median) {
      std::snprintf(text, sizeof text, "no (wait %.2f ms)", run.wait_median_ms);
    } else {
      std::snprintf(text, sizeof text, "no (wait %.0f%% of a step)",
                    100 * run.wait_median_ms / *run.step_ms_median);
    }
  } else {
    std::snprintf(text, sizeof text, "%s (p=%.2g)", run.stands_out() ? "yes" : "no", run.p_value);
  }
  return text;
}

// One row per repeat that recorded all-reduce arrivals on several ranks.
Table stragglers_table(const Report& report) {
  Table table;
  table.title = "Stragglers (the rank the others waited for at the gradient all-reduce)";
  const bool configs = shows_config(report);
  if (configs) table.headers.push_back("config");
  table.headers.insert(table.headers.end(), {scale_header(report), "run", "rank", "host",
                                             "last [% of steps]", "by chance [%]", "stands out",
                                             "wait median [ms]", "wait p95 [ms]", "steps"});
  for (const auto& point : report.points) {
    for (const RunStraggler& run : point.stragglers) {
      std::vector<std::string> row;
      if (configs) row.push_back(point.config_label);
      row.insert(
          row.end(),
          {std::to_string(point.world_size), run.run_id, std::to_string(run.rank), run.host,
           fixed(run.last_share * 100, 0), fixed(run.chance_share * 100, 0), straggler_verdict(run),
           magnitude(run.wait_median_ms), magnitude(run.wait_p95_ms), std::to_string(run.steps)});
      table.rows.push_back(std::move(row));
    }
  }
  return table;
}

// The study's time to result: queue wait and run time (report_placement.hpp).
Table time_to_result_table(const Report& report) {
  Table table;
  table.title = "Time to result (submit to last run's end)";
  table.headers = {"wall [s]", "queue wait [s]", "run time [s]", "queue wait [%]"};
  if (const auto& time = report.time_to_result) {
    table.rows.push_back(
        {fixed(time->wall_s, 0), fixed(time->queue_wait_s, 0), fixed(time->run_s, 0),
         time->wall_s > 0 ? fixed(100 * time->queue_wait_s / time->wall_s, 0) : "-"});
  }
  return table;
}

// Every failed attempt: its class and the evidence that decided it (docs/failures.md).
Table failed_attempts_table(const Report& report) {
  Table table;
  table.title =
      "Failed attempts (class: node, program, time, hang, setup, preempted, cancelled, "
      "unknown)";
  table.headers = {"run", "attempt", "state", "class", "nodes", "evidence"};
  for (const common::FailedAttempt& attempt : report.failed_attempts) {
    table.rows.push_back({attempt.run_id, std::to_string(attempt.attempt), attempt.state,
                          common::to_string(attempt.kind), attempt.node_list, attempt.evidence});
  }
  return table;
}

// The nodes failed attempts ran on, by class; flagged with two or more node or hang failures.
Table failure_nodes_table(const Report& report) {
  Table table;
  table.title = "Nodes of failed attempts";
  table.headers = {"node", "failures", "other studies in the results folder", "flagged"};
  for (const common::NodeFailures& node : report.failure_nodes) {
    table.rows.push_back({node.node, common::failure_counts_text(node.failures),
                          common::failure_counts_text(node.elsewhere), node.flagged ? "yes" : ""});
  }
  table.note = "flagged: " + std::to_string(common::kFlaggedNodeFailures) +
               " or more node or hang failures; policy: {exclude_flagged_nodes: true} leaves "
               "them out at the next submit";
  return table;
}

// One row per message size, one busbw column per all-reduce run (by world size).
Table bandwidth_table(const Report& report) {
  Table table;
  table.title = "All-reduce bus bandwidth [GB/s] (busbw = algbw·2(n−1)/n)";
  table.headers = {"size [B]"};
  std::map<int64_t, std::vector<std::string>> cells_by_bytes;
  const size_t curves = report.bandwidth_curves.size();
  for (size_t c = 0; c < curves; ++c) {
    const BandwidthCurve& curve = report.bandwidth_curves[c];
    table.headers.push_back(std::to_string(curve.world_size) +
                            (curve.world_size == 1 ? " rank" : " ranks"));
    for (const BandwidthPoint& point : curve.points) {
      auto& cells = cells_by_bytes.try_emplace(point.bytes, curves, "-").first->second;
      cells[c] = fixed(point.busbw_gbps, 3);
    }
  }
  for (const auto& [bytes, cells] : cells_by_bytes) {
    table.rows.push_back({std::to_string(bytes)});
    table.rows.back().insert(table.rows.back().end(), cells.begin(), cells.end());
  }
  return table;
}

// The columns a terminal report leaves out unless asked for every column (--wide): what
// explains a figure rather than being one. What stays: the point (config, ranks, nodes),
// throughput with its CI, speedup, efficiency, the bottleneck, the runs, and each extra
// table's verdicts.
const std::set<std::string>& wide_only_headers() {
  static const std::set<std::string> headers = {"global batch",
                                                "per-rank batch",
                                                "per-GPU batch",
                                                "min–max",
                                                "time/epoch [s]",
                                                "step [ms]",
                                                "val acc [%]",
                                                "data %",
                                                "compute %",
                                                "comm %",
                                                "optim %",
                                                "rank-h/epoch",
                                                "GPU-h/epoch",
                                                "throughput eff [%]",
                                                "epoch",
                                                "speedup to target",
                                                "peak [TFLOPS]",
                                                "GEMM ceiling [TFLOPS]",
                                                "busbw ceiling [GB/s]",
                                                "achieved busbw [GB/s]",
                                                "calibration [% of run]",
                                                "by chance [%]",
                                                "wait p95 [ms]",
                                                "steps",
                                                "NVML mode",
                                                "RSS vs base"};
  return headers;
}

}  // namespace

Table essential_columns(const Table& table) {
  std::vector<size_t> kept;
  for (size_t i = 0; i < table.headers.size(); ++i) {
    if (wide_only_headers().count(table.headers[i]) == 0) kept.push_back(i);
  }
  Table narrow;
  narrow.title = table.title;
  narrow.note = table.note;
  for (size_t i : kept) narrow.headers.push_back(table.headers[i]);
  for (const auto& row : table.rows) {
    std::vector<std::string> cells;
    for (size_t i : kept) cells.push_back(row[i]);
    narrow.rows.push_back(std::move(cells));
  }
  return narrow;
}

std::vector<ReportTable> report_tables(const Report& report) {
  std::vector<ReportTable> tables;
  auto add = [&tables](Table table) {
    if (!table.rows.empty()) tables.push_back({std::move(table), std::nullopt});
  };
  auto add_members = [&tables](MemberTable members) {
    if (members.groups.empty()) return;
    Table table = every_member(members);
    tables.push_back({std::move(table), std::move(members)});
  };
  // A study of all-reduce runs alone has no points: its bandwidth is its whole report.
  if (!report.points.empty() || report.bandwidth_curves.empty()) {
    for (Table& table : main_tables(report)) tables.push_back({std::move(table), std::nullopt});
    add(time_to_target_table(report));
    add(comm_table(report));
    tables.push_back({memory_table(report), std::nullopt});
    add(energy_table(report));
    add(output_metrics_table(report));
    for (const auto& projection : report.projections) {
      tables.push_back({projection_table(report, projection), std::nullopt});
    }
    add_members(rank_memory_members(report));
    add(ceilings_table(report));
    add(stragglers_table(report));
    add_members(rank_arrival_members(report));
    add_members(host_members(report));
    add(time_to_result_table(report));
  }
  if (!report.bandwidth_curves.empty()) add(bandwidth_table(report));
  add(failed_attempts_table(report));
  add(failure_nodes_table(report));
  return tables;
}

}  // namespace scalestudy::results
