#include "orchestrator/results/report/report.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>

#include "orchestrator/common/job_state.hpp"
#include "orchestrator/results/analysis/clock_drop.hpp"
#include "orchestrator/results/analysis/thresholds.hpp"
#include "orchestrator/results/ingest/system_facts.hpp"
#include "orchestrator/results/report/report_ceilings.hpp"
#include "orchestrator/results/report/report_placement.hpp"
#include "orchestrator/results/report/report_points.hpp"
#include "orchestrator/results/report/report_projection.hpp"
#include "orchestrator/results/report/report_scaling.hpp"
#include "orchestrator/results/report/report_sensitivity.hpp"
#include "orchestrator/results/report/report_stragglers.hpp"
#include "orchestrator/results/report/report_systems.hpp"
#include "orchestrator/results/report/report_time_to_target.hpp"

namespace scalestudy::results {
namespace {

constexpr double kDefaultCvWarnPct = 5;
constexpr int kDefaultMinRepeats = 3;

struct ReportSettings {
  double cv_warn_pct = kDefaultCvWarnPct;
  int min_repeats = kDefaultMinRepeats;
};

std::string json_text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

std::map<std::string, std::string> parse_object(const std::string& text, const std::string& what,
                                                std::vector<std::string>& warnings) {
  std::map<std::string, std::string> values;
  if (text.empty()) return values;
  auto json = nlohmann::json::parse(text, nullptr, false);
  if (!json.is_object()) {
    warnings.push_back("study " + what + " is not a JSON object; ignored: " + text);
    return values;
  }
  for (const auto& [key, value] : json.items()) {
    // sched stores named report thresholds as {"thresholds": {name: value}}.
    if (value.is_object()) {
      for (const auto& [inner_key, inner] : value.items()) values[inner_key] = json_text(inner);
    } else {
      values[key] = json_text(value);
    }
  }
  return values;
}

// report.throughput_unit tokens: every measured run's rate in tokens. A run that recorded
// no tokens_per_sample takes the study's report.tokens_per_sample (a number, or the
// parameter that gives it); one with neither keeps its samples, and the report says so.
void count_tokens(std::vector<RunMeasurement>& runs, const std::string& study_tokens_per_sample,
                  std::vector<std::string>& warnings) {
  std::vector<std::string> untokenised;
  for (RunMeasurement& run : runs) {
    if (!run.measured) continue;
    if (!run.tokens_per_sample && !study_tokens_per_sample.empty()) {
      auto param = run.params.find(study_tokens_per_sample);
      const std::string& text = param != run.params.end() ? param->second : study_tokens_per_sample;
      char* end = nullptr;
      const double tokens = std::strtod(text.c_str(), &end);
      if (end != text.c_str() && *end == '\0' && tokens > 0) run.tokens_per_sample = tokens;
    }
    if (run.tokens_per_sample) {
      run.samples_per_s *= *run.tokens_per_sample;
    } else {
      untokenised.push_back(run.run_id);
    }
  }
  if (!untokenised.empty()) {
    warnings.push_back(std::to_string(untokenised.size()) +
                       " run(s) recorded no tokens_per_sample; their throughput below is in "
                       "samples/s, not tokens/s (first: " +
                       untokenised.front() +
                       "; report.tokens_per_sample names it for a program "
                       "that records none)");
  }
}

// Says which throughputs nobody measured: derived from the step time, or none at all
// (shown as '-', with no speedup or efficiency), with the first run of each.
void explain_throughputs(const std::vector<RunMeasurement>& runs,
                         std::vector<std::string>& warnings) {
  using Throughput = RunMeasurement::Throughput;
  const RunMeasurement* first_derived = nullptr;
  const RunMeasurement* first_missing = nullptr;
  int derived = 0, missing = 0;
  for (const RunMeasurement& run : runs) {
    if (!run.measured) continue;
    if (run.throughput == Throughput::kFromStepTime && derived++ == 0) first_derived = &run;
    if (run.throughput == Throughput::kNone && missing++ == 0) first_missing = &run;
  }
  if (first_derived) {
    char step[64];
    std::snprintf(step, sizeof step, "%.4g", first_derived->step_ms_median);
    warnings.push_back(std::to_string(derived) +
                       " run(s) printed a step time but no throughput: their throughput is "
                       "derived as global batch / step time (first: " +
                       first_derived->run_id + ", " + std::to_string(first_derived->global_batch) +
                       " samples per " + step + " ms step)");
  }
  if (first_missing) {
    const std::string why = first_missing->step_ms_median > 0
                                ? "a step time but no global batch (the study gives none)"
                                : "no throughput and no step time (no metric with role "
                                  "throughput or step_time, no run database)";
    warnings.push_back(std::to_string(missing) + " run(s) measured " + why +
                       ": their throughput, speedup and efficiency show '-' (first: " +
                       first_missing->run_id + ")");
  }
}

// The study's systems in its order (the report settings' "systems"); none recorded by
// studies without systems and by databases older than them.
std::vector<std::string> recorded_systems(const std::string& report_json) {
  auto json = nlohmann::json::parse(report_json, nullptr, false);
  std::vector<std::string> systems;
  if (!json.is_object() || !json.contains("systems") || !json["systems"].is_array()) {
    return systems;
  }
  for (const auto& system : json["systems"]) {
    if (system.is_string()) systems.push_back(system.get<std::string>());
  }
  return systems;
}

std::optional<double> number_setting(const std::map<std::string, std::string>& settings,
                                     const std::string& key, std::vector<std::string>& warnings) {
  auto it = settings.find(key);
  if (it == settings.end()) return std::nullopt;
  try {
    return std::stod(it->second);
  } catch (const std::exception&) {
    warnings.push_back("report setting " + key + " is not a number: " + it->second);
    return std::nullopt;
  }
}

bool completed(const std::string& run_state) {
  return common::parse_job_state(run_state) == common::JobState::kCompleted;
}

// A run's batch is what its workload recorded it trained with, where it recorded one; a
// run that did not train with its planned batch is a warning.
void use_recorded_batch(RunMeasurement& run, std::vector<std::string>& warnings) {
  if (!run.recorded_global_batch || !run.recorded_per_rank_batch) return;
  if (*run.recorded_global_batch != run.global_batch ||
      *run.recorded_per_rank_batch != run.per_gpu_batch) {
    warnings.push_back("run " + run.run_id + " trained with a global batch of " +
                       std::to_string(*run.recorded_global_batch) + " (" +
                       std::to_string(*run.recorded_per_rank_batch) + " per rank), planned " +
                       std::to_string(run.global_batch) + " (" + std::to_string(run.per_gpu_batch) +
                       " per rank); reported as trained");
  }
  run.global_batch = *run.recorded_global_batch;
  run.per_gpu_batch = *run.recorded_per_rank_batch;
}

void add_warnings(const std::vector<PointWork>& points, const std::vector<RunMeasurement>& runs,
                  const ReportSettings& settings, Report& report) {
  std::string few_repeats;
  for (const auto& work : points) {
    const ReportPoint& point = work.point;
    if (!work.failed.empty()) {
      std::string reason = work.failed.front()->state;
      if (!work.failed.front()->reason.empty()) reason += ": " + work.failed.front()->reason;
      report.warnings.push_back(point_name(point) + ": " + std::to_string(work.failed.size()) +
                                " of " + std::to_string(point.planned_runs) +
                                " runs failed (first: " + reason + ")");
    }
    if (point.run_ids.empty()) {
      report.warnings.push_back(point_name(point) + ": no measured runs");
      continue;
    }
    if (static_cast<int>(point.run_ids.size()) < settings.min_repeats) {
      few_repeats += (few_repeats.empty() ? "" : ", ") + point_name(point) + " (" +
                     std::to_string(point.run_ids.size()) + ")";
    }
    if (point.ceilings) {
      for (const std::string& warning : ceiling_warnings(*point.ceilings)) {
        report.warnings.push_back(point_name(point) + ": " + warning);
      }
    }
    for (const RunMeasurement* run : work.measured) {
      if (!run->energy) continue;
      for (const RankEnergy& rank : run->energy->ranks) {
        const std::string who =
            "run " + run->run_id + " rank " + std::to_string(rank.rank) + " (" + rank.device + ")";
        if (auto warning = clock_drop_warning(who, rank.sm_clock_max_mhz, rank.sm_clock_min_mhz,
                                              rank.clock_events)) {
          report.warnings.push_back(point_name(point) + ": " + *warning);
        }
      }
    }
    if (point.throughput_samples_per_s.count >= 2 &&
        point.throughput_samples_per_s.cv_pct > settings.cv_warn_pct) {
      char text[160];
      std::snprintf(text, sizeof text, ": noisy, throughput CV %.1f%% over %d repeats (> %.0f%%)",
                    point.throughput_samples_per_s.cv_pct, point.throughput_samples_per_s.count,
                    settings.cv_warn_pct);
      report.warnings.push_back(point_name(point) + text);
    }
  }
  if (!few_repeats.empty()) {
    report.warnings.push_back("fewer than " + std::to_string(settings.min_repeats) +
                              " repeats, no 95% confidence interval: " + few_repeats);
  }
  int not_ingested = 0;
  for (const auto& run : runs) not_ingested += completed(run.state) && !run.measured;
  if (not_ingested > 0) {
    report.warnings.push_back(std::to_string(not_ingested) +
                              " completed runs are not ingested yet (scalestudy ingest)");
  }
  if (!report.baseline.empty()) {
    const bool scale_only = report.kind != "sensitivity";
    bool found = std::any_of(points.begin(), points.end(), [&](const PointWork& work) {
      return matches(work.point, report.baseline, scale_only);
    });
    if (!found) {
      std::string selector;
      for (const auto& [key, value] : report.baseline) {
        selector += (selector.empty() ? "" : ",") + key + "=" + value;
      }
      report.warnings.push_back("baseline " + selector +
                                " matches no measured point; using the smallest scale");
    }
  }
}

Status fill_rank_memory(sqlite::Database& study_db, std::vector<PointWork>& points) {
  for (auto& work : points) {
    std::vector<std::vector<RankMemory>> repeats;
    for (const auto& run_id : work.point.run_ids) {
      auto ranks = load_rank_memory(study_db, run_id);
      if (!ranks) return ranks.status();
      repeats.push_back(std::move(*ranks));
    }
    work.point.rank_memory = combine_repeats(repeats);
  }
  return Status::ok();
}

Status add_overlaps(sqlite::Database& study_db, const std::vector<RunMeasurement>& runs,
                    Report& report) {
  auto windows = load_run_windows(study_db);
  if (!windows) return windows.status();
  std::map<std::string, std::string> name_of;  // efficiency-table runs: with their scale
  for (const auto& run : runs) {
    name_of[run.run_id] = run.run_id + " (N=" + std::to_string(run.world_size) + ")";
  }
  auto name = [&](const std::string& run_id) {
    auto it = name_of.find(run_id);
    return it == name_of.end() ? run_id : it->second;
  };
  report.overlaps = find_overlaps(std::move(*windows));
  for (const auto& overlap : report.overlaps) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.0f", overlap.overlap_s);
    report.warnings.push_back("runs " + name(overlap.run_a) + " and " + name(overlap.run_b) +
                              " ran at the same time for " + seconds + " s on host " +
                              overlap.host + ": they measured each other, not the hardware");
  }
  return Status::ok();
}

}  // namespace

Result<std::map<std::string, std::string>> parse_baseline_selector(const std::string& text) {
  std::map<std::string, std::string> selector;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    const auto equals = item.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == item.size()) {
      return Status::error("--baseline: expected key=value[,key=value], got '" + item + "'");
    }
    selector[item.substr(0, equals)] = item.substr(equals + 1);
  }
  return selector;
}

Result<Report> build_report(sqlite::Database& study_db, const ReportOptions& options) {
  auto info = load_study_info(study_db);
  if (!info) return info.status();
  auto all_runs = load_run_measurements(study_db);
  if (!all_runs) return all_runs.status();

  Report report;
  report.study = info->name;
  report.kind = info->kind;
  const auto settings = parse_object(info->report_json, "report settings", report.warnings);
  report.baseline = options.baseline_override.empty()
                        ? parse_object(info->baseline_json, "baseline", report.warnings)
                        : options.baseline_override;
  if (auto unit = settings.find("throughput_unit"); unit != settings.end()) {
    report.throughput_unit = unit->second;
  }
  report.thresholds.input_bound_pct = options.input_bound_pct.value_or(
      number_setting(settings, "input_bound_pct", report.warnings).value_or(5));
  report.thresholds.comm_bound_pct = options.comm_bound_pct.value_or(
      number_setting(settings, "comm_bound_pct", report.warnings).value_or(20));
  report.target_gain_pct = options.target_gain_pct
                               ? options.target_gain_pct
                               : number_setting(settings, "target_gain_pct", report.warnings);
  report.target_acc = options.target_acc ? options.target_acc
                                         : number_setting(settings, "target_acc", report.warnings);
  report.efficiency_threshold_pct =
      options.efficiency_threshold_pct
          ? options.efficiency_threshold_pct
          : number_setting(settings, "efficiency_pct", report.warnings);
  if (report.target_acc && *report.target_acc > 1) *report.target_acc /= 100;  // given in %
  ReportSettings limits;
  limits.cv_warn_pct =
      number_setting(settings, "cv_warn_pct", report.warnings).value_or(kDefaultCvWarnPct);
  limits.min_repeats = static_cast<int>(
      number_setting(settings, "min_repeats", report.warnings).value_or(kDefaultMinRepeats));

  // Profiling runs and all-reduce benchmarks are never points of the efficiency tables.
  std::vector<RunMeasurement> runs;
  for (auto& run : *all_runs) {
    if (run.profiled || run.workload == "allreduce") continue;
    use_recorded_batch(run, report.warnings);
    if (!options.git_commit.empty() && run.git_commit.rfind(options.git_commit, 0) != 0) continue;
    ++report.runs_planned;
    report.runs_measured += run.measured;
    report.runs_failed += !run.measured && finished_unsuccessfully(run.state);
    runs.push_back(std::move(run));
  }
  explain_throughputs(runs, report.warnings);
  if (report.throughput_unit == "tokens") {
    auto tokens = settings.find("tokens_per_sample");
    count_tokens(runs, tokens == settings.end() ? "" : tokens->second, report.warnings);
  }

  auto own_curves = load_bandwidth_curves(study_db);
  if (!own_curves) return own_curves.status();
  report.bandwidth_curves = std::move(*own_curves);
  std::stable_sort(
      report.bandwidth_curves.begin(), report.bandwidth_curves.end(),
      [](const BandwidthCurve& a, const BandwidthCurve& b) { return a.world_size < b.world_size; });
  std::vector<BandwidthCurve> curves = report.bandwidth_curves;
  if (!options.comm_model_database.empty()) {
    auto loaded = load_comm_model_curves(options.comm_model_database);
    if (!loaded) return loaded.status().with_context("--comm-model");
    curves = std::move(*loaded);
  }

  std::vector<PointWork> points =
      group_points(runs, configuration_keys(runs, report.kind), report.target_acc);
  for (auto& work : points) {
    work.point.bottleneck = classify_bottleneck(work.point.phases, report.thresholds);
    report.gpu |= work.point.gpus > 0;
  }
  if (Status memory = fill_rank_memory(study_db, points); !memory) return memory;
  if (Status ceilings = add_ceilings(study_db, points); !ceilings) return ceilings;
  if (Status stragglers = add_stragglers(study_db, points, report); !stragglers) return stragglers;
  if (report.kind == "sensitivity") {
    apply_sensitivity(points, report);
  } else {
    apply_scaling(points, report, curves);
    apply_time_to_target(points, report);
  }
  if (!options.project_world_sizes.empty()) {
    add_projections(points, curves, options.project_world_sizes, report);
  }
  add_warnings(points, runs, limits, report);
  if (Status placed = add_placement(study_db, points, report); !placed) return placed;
  if (Status overlaps = add_overlaps(study_db, runs, report); !overlaps) return overlaps;
  auto failed = common::read_study_failures(study_db);
  if (!failed) return failed.status();
  report.failed_attempts = std::move(failed->attempts);
  report.failure_nodes = std::move(failed->nodes);
  for (auto& work : points) report.points.push_back(std::move(work.point));
  report.systems = recorded_systems(info->report_json);
  report.systems = report_systems(report);
  report.systems_side_by_side = compare_systems(report);
  auto mismatches = system_mismatches(study_db);
  if (!mismatches) return mismatches.status();
  report.warnings.insert(report.warnings.end(), mismatches->begin(), mismatches->end());
  mark_threshold_misses(report);
  return report;
}

}  // namespace scalestudy::results
