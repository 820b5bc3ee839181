// `scalestudy plan STUDY.yaml`: expand a study and show its runs, optionally writing the
// sbatch script of every run. Nothing is submitted.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "harness/core/run_layout.hpp"
#include "orchestrator/campaign/prepare_run.hpp"
#include "orchestrator/campaign/run_spec_json.hpp"
#include "orchestrator/cli/args.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/cli/packed_plan.hpp"
#include "orchestrator/cli/profiles_dir.hpp"
#include "orchestrator/cli/system_choice.hpp"
#include "orchestrator/cli/workload_param_check.hpp"
#include "orchestrator/results/analysis/cost_estimate.hpp"
#include "orchestrator/results/report/text_table.hpp"
#include "orchestrator/sched/job_script_preparation.hpp"
#include "orchestrator/study/budget.hpp"
#include "orchestrator/study/interference_risk.hpp"
#include "orchestrator/study/run_spec_names.hpp"
#include "orchestrator/study/study.hpp"

namespace scalestudy::cli {
namespace {

namespace fs = std::filesystem;

const char kPlanUsage[] =
    "usage: scalestudy plan STUDY.yaml [--format table|json|csv] [--emit-scripts DIR]\n"
    "                       [--results-dir DIR] [--profiles-dir DIR]\n"
    "                       [--system ID[:VARIANT]]... [--packed]\n\n"
    "Expands a study into its runs and prints them: run id, repeat, nodes, GPUs (ranks on\n"
    "CPU runs), global and per-GPU batch, its system and the parameters that vary, then the\n"
    "totals: runs, node-hours and GPU-hours requested (time limit × nodes × GPUs) and, when\n"
    "earlier measured runs of the same configuration exist in a study database under the\n"
    "results dir, an estimate from their measured run time. A packed study (`allocation:\n"
    "packed`, or --packed) also shows its allocations: each run's step estimated from earlier\n"
    "measured runs (median x 1.25 + 60 s), else its slurm.time; the runs placed first-fit\n"
    "into allocations of the largest run's nodes within the partition's MaxTime (scontrol)\n"
    "and the system's limits.max_time. Nothing is submitted.\n\n"
    "options:\n"
    "  --format F          table (default), json (every resolved run) or csv\n"
    "  --emit-scripts DIR  also write DIR/<run_id>.sbatch, the exact job script of each run\n"
    "  --results-dir DIR   results root the scripts write to and earlier measured runs are\n"
    "                      looked up in (default: results); each run\n"
    "                      writes DIR/<study>/runs/<run_id>/\n"
    "  --profiles-dir DIR  where profile wrappers live (default: $SCALESTUDY_PROFILES_DIR,\n"
    "                      else the source tree's profiles/)\n"
    "  --system ID[:VAR]   plan on this system instead of the study's `systems:`\n"
    "                      (repeatable; `scalestudy systems list` names them). A run over\n"
    "                      its system's limits is an error naming both files' lines.\n"
    "  --packed            show the allocations of a packed submit (submit --packed)\n\n"
    "Every workload parameter is checked against what the workload binary says about its\n"
    "flags (--describe-flags json); a program that cannot say is noted and left unchecked.\n\n"
    "exit codes: 0 planned; 1 the study is invalid (every error is printed as\n"
    "file:line:column: field: message); 2 wrong arguments; 3 a file cannot be read or written.";

bool any_gpu_run(const Study& study) {
  for (const auto& run : study.runs) {
    if (run.slurm.gpus_per_node > 0) return true;
  }
  return false;
}

// Varied keys other than the ones the fixed columns already show; `system` first whenever
// the study names systems, even one.
std::vector<std::string> extra_columns(const Study& study) {
  std::vector<std::string> keys;
  if (!study.systems.empty() && std::find(study.varied_keys.begin(), study.varied_keys.end(),
                                          "system") == study.varied_keys.end()) {
    keys.push_back("system");
  }
  for (const auto& key : study.varied_keys) {
    bool shown =
        key == "world_size" || key == "nodes" || key == "global_batch" || key == "per_gpu_batch";
    if (!shown) keys.push_back(key);
  }
  return keys;
}

std::vector<std::vector<std::string>> table_rows(const Study& study, bool header_labels) {
  std::vector<std::string> keys = extra_columns(study);
  std::vector<std::vector<std::string>> rows;
  rows.reserve(study.runs.size() + 1);
  std::vector<std::string> header;
  if (header_labels) {
    header = {"run id",   "rep",          "nodes",        any_gpu_run(study) ? "gpus" : "ranks",
              "per node", "global batch", "per-gpu batch"};
  } else {
    header = {"run_id",         "repeat",       "nodes",        "world_size",
              "tasks_per_node", "global_batch", "per_gpu_batch"};
  }
  header.insert(header.end(), keys.begin(), keys.end());
  rows.push_back(std::move(header));
  for (const auto& run : study.runs) {
    std::vector<std::string> row = {run.run_id,
                                    std::to_string(run.repeat),
                                    std::to_string(run.nodes),
                                    std::to_string(run.world_size),
                                    std::to_string(run.tasks_per_node),
                                    std::to_string(run.global_batch),
                                    std::to_string(run.per_gpu_batch)};
    for (const auto& key : keys) {
      row.push_back(key == "system" ? run.system.label() : run.varied.at(key));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// The aligned table (`--format table`) or CSV, through the results module's table writer.
void print_rows(const Study& study, results::TableFormat format) {
  const bool text = format == results::TableFormat::kText;
  auto rows = table_rows(study, text);
  results::Table table;
  if (text) {
    table.title = "study " + study.name + " (" + study_kind_name(study.kind) +
                  "): " + std::to_string(study.runs.size()) +
                  (study.runs.size() == 1 ? " run" : " runs");
  }
  table.headers = std::move(rows.front());
  table.rows.assign(std::make_move_iterator(rows.begin() + 1), std::make_move_iterator(rows.end()));
  std::fputs(results::render_table(table, format).c_str(), stdout);
}

// The sweep's totals: requested (time limit × nodes × GPUs; a packed sweep's allocations)
// and, when earlier measured runs of the same configuration exist under the results dir,
// estimated.
struct PlanTotals {
  RequestedCost requested;
  results::CostEstimate estimate;
  std::optional<std::vector<sched::PackedAllocationPlan>> allocations;  // packed only
  std::string packing_text;
};

Result<PlanTotals> plan_totals(const Study& study, const std::string& results_dir, bool packed) {
  const auto measured = results::load_measured_run_times(results_dir);
  PlanTotals totals{requested_cost(study.runs), results::estimate_cost(study.runs, measured),
                    std::nullopt, ""};
  if (!packed) return totals;
  const PackingInputs inputs = packing_inputs(study, measured);
  auto allocations = plan_study_allocations(study, inputs);
  if (!allocations) return allocations.status();
  totals.requested = sched::requested_packed_cost(*allocations);
  totals.packing_text = describe_allocations(study, inputs, *allocations);
  totals.allocations = std::move(*allocations);
  return totals;
}

nlohmann::json allocations_json(const Study& study,
                                const std::vector<sched::PackedAllocationPlan>& allocations) {
  nlohmann::json out = nlohmann::json::array();
  for (const sched::PackedAllocationPlan& allocation : allocations) {
    nlohmann::json runs = nlohmann::json::array();
    for (size_t index : allocation.runs) runs.push_back(study.runs[index].run_id);
    out.push_back({{"nodes", allocation.nodes},
                   {"time_minutes", allocation.time_minutes},
                   {"estimated_s", allocation.estimated_s},
                   {"runs", std::move(runs)}});
  }
  return out;
}

nlohmann::json totals_json(const PlanTotals& totals) {
  nlohmann::json out = {{"runs", totals.requested.runs},
                        {"node_hours_requested", totals.requested.node_hours},
                        {"gpu_hours_requested", totals.requested.gpu_hours},
                        {"runs_without_time_limit", totals.requested.runs_without_time_limit},
                        {"estimate", nullptr}};
  if (totals.allocations) out["packed_allocations"] = totals.allocations->size();
  if (totals.estimate.runs_estimated > 0) {
    out["estimate"] = {{"runs_estimated", totals.estimate.runs_estimated},
                       {"measured_runs_used", totals.estimate.measured_runs_used},
                       {"node_hours", totals.estimate.node_hours},
                       {"gpu_hours", totals.estimate.gpu_hours}};
  }
  return out;
}

void print_totals(const PlanTotals& totals, const char* prefix) {
  if (!totals.packing_text.empty()) {
    std::stringstream lines(totals.packing_text);
    for (std::string line; std::getline(lines, line);) std::printf("%s%s\n", prefix, line.c_str());
  }
  std::printf("%stotal: %s\n", prefix, describe_cost(totals.requested).c_str());
  std::printf("%s%s\n", prefix, results::describe_estimate(totals.estimate).c_str());
}

// Writes `value.dump(2)` as it reads nested `indent` spaces deep in a larger document: JSON
// text holds no raw newline inside a string, so each newline begins a nested line.
void put_nested(const nlohmann::json& value, size_t indent) {
  const std::string text = value.dump(2);
  const std::string margin(indent, ' ');
  size_t line_start = 0;
  for (size_t newline = text.find('\n'); newline != std::string::npos;
       newline = text.find('\n', line_start)) {
    std::fwrite(text.data() + line_start, 1, newline + 1 - line_start, stdout);
    std::fputs(margin.c_str(), stdout);
    line_start = newline + 1;
  }
  std::fwrite(text.data() + line_start, 1, text.size() - line_start, stdout);
}

// The "runs" array, one run converted and written at a time.
void put_runs(const std::vector<RunSpec>& runs) {
  if (runs.empty()) {
    std::fputs("[]", stdout);
    return;
  }
  std::fputs("[\n", stdout);
  for (size_t index = 0; index < runs.size(); ++index) {
    std::fputs(index == 0 ? "    " : ",\n    ", stdout);
    put_nested(campaign::run_spec_to_json(runs[index]), 4);
  }
  std::fputs("\n  ]", stdout);
}

// The plan as `dump(2)` of one document prints it, without building that document: its
// runs are written one at a time (a 10,000-run plan is 15 MB of text).
void print_json(const Study& study, const PlanTotals& totals) {
  nlohmann::json out = {
      {"study", study.name},
      {"kind", study_kind_name(study.kind)},
      {"description", study.description},
      {"source_path", study.source_path},
      {"baseline", study.baseline},
      {"max_attempts", study.max_attempts},
      {"array_throttle", study.array_throttle},
      {"systems", study.systems},
      {"varied_keys", study.varied_keys},
      {"runs", nullptr},  // a place in the key order; written by put_runs
      {"totals", totals_json(totals)},
  };
  if (totals.allocations) out["packed"] = allocations_json(study, *totals.allocations);
  nlohmann::json report = nlohmann::json::object();
  if (study.report.target_gain_pct) report["target_gain_pct"] = *study.report.target_gain_pct;
  if (!study.report.thresholds.empty()) report["thresholds"] = study.report.thresholds;
  if (!study.report.throughput_unit.empty()) {
    report["throughput_unit"] = study.report.throughput_unit;
  }
  out["report"] = std::move(report);
  if (study.budget_gpu_hours) out["budget_gpu_hours"] = *study.budget_gpu_hours;
  for (auto field = out.begin(); field != out.end(); ++field) {
    std::fputs(field == out.begin() ? "{\n  " : ",\n  ", stdout);
    std::fputs((nlohmann::json(field.key()).dump() + ": ").c_str(), stdout);
    if (field.key() == "runs") {
      put_runs(study.runs);
    } else {
      put_nested(field.value(), 2);
    }
  }
  std::fputs("\n}\n", stdout);
}

// Every run's job script as campaign's run preparer and the schedulers render it, into
// DIR/<run_id>.sbatch; the runs' folders are where a submit would put them.
int emit_scripts(const Study& study, const std::string& dir, const std::string& results_dir,
                 const std::string& profiles_dir) {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) {
    std::fprintf(stderr, "scalestudy plan: cannot create %s: %s\n", dir.c_str(),
                 error.message().c_str());
    return kExitEnvironment;
  }
  const std::string results_root = fs::absolute(results_dir).lexically_normal().string();
  const campaign::PrepareContext context{campaign::executable_dir(), profiles_dir};
  std::vector<sched::RunPreparation> preparations;
  for (const auto& run : study.runs) {
    auto preparation = campaign::run_preparation(
        context, run, run_layout::run_dir(results_root, study.name, run.run_id));
    if (!preparation) {
      std::fprintf(stderr, "scalestudy plan: %s\n", preparation.status().message().c_str());
      return kExitEnvironment;
    }
    preparations.push_back(std::move(*preparation));
  }
  for (size_t index = 0; index < study.runs.size(); ++index) {
    const RunSpec& run = study.runs[index];
    auto text = sched::render_job_script(run, preparations[index]);
    if (!text) {
      std::fprintf(stderr, "scalestudy plan: %s\n", text.status().message().c_str());
      return kExitUsage;
    }
    fs::path script = fs::path(dir) / (run.run_id + ".sbatch");
    std::ofstream out(script, std::ios::binary | std::ios::trunc);
    out << *text;
    if (!out.flush()) {
      std::fprintf(stderr, "scalestudy plan: cannot write %s\n", script.c_str());
      return kExitEnvironment;
    }
  }
  std::fprintf(stderr, "wrote %zu job scripts to %s\n", study.runs.size(), dir.c_str());
  return kExitOk;
}

int run_plan(const std::vector<std::string>& args) {
  auto parsed = parse_args(
      args, {{"--format", "--emit-scripts", "--results-dir", "--profiles-dir", kSystemOption},
             {"--packed"}});
  if (!parsed) {
    std::fprintf(stderr, "scalestudy plan: %s\n", parsed.status().message().c_str());
    return kExitUsage;
  }
  if (parsed->positionals.size() != 1) {
    std::fprintf(stderr, "scalestudy plan: expected one study file\n%s\n", kPlanUsage);
    return kExitUsage;
  }
  std::string format = parsed->value_or("--format", "table");
  if (format != "table" && format != "json" && format != "csv") {
    std::fprintf(stderr, "scalestudy plan: --format is table, json or csv, not '%s'\n",
                 format.c_str());
    return kExitUsage;
  }
  const std::string& path = parsed->positionals[0];
  if (!fs::is_regular_file(path)) {
    std::fprintf(stderr, "scalestudy plan: %s: no such study file\n", path.c_str());
    return kExitEnvironment;
  }
  Result<Study> study = load_study(path, system_choice(*parsed));
  if (!study) {
    std::fprintf(stderr, "%s\n", study.status().message().c_str());
    return kExitFailure;
  }
  if (!report_workload_param_check(
          "plan", check_study_workload_params(*study, campaign::executable_dir()))) {
    return kExitFailure;
  }
  auto planned = plan_totals(*study, parsed->value_or("--results-dir", "results"),
                             study->packed_allocation || parsed->has("--packed"));
  if (!planned) {
    std::fprintf(stderr, "scalestudy plan: %s\n", planned.status().message().c_str());
    return kExitFailure;
  }
  const PlanTotals& totals = *planned;
  if (format == "json") {
    print_json(*study, totals);
  } else if (format == "csv") {
    print_rows(*study, results::TableFormat::kCsv);
    print_totals(totals, "# ");
  } else {
    print_rows(*study, results::TableFormat::kText);
    print_totals(totals, "");
    if (Status budget = check_budget(totals.requested, study->budget_gpu_hours, std::nullopt);
        !budget) {
      std::printf("budget: %s\n", budget.message().c_str());
    }
  }
  for (const auto& risk : interference_risks(
           *study,
           {RunPlacement::kUnknown, 1, static_cast<int>(std::thread::hardware_concurrency())})) {
    std::fprintf(stderr, "warning: %s\n", risk.c_str());
  }
  if (auto dir = parsed->value("--emit-scripts")) {
    return emit_scripts(*study, *dir, parsed->value_or("--results-dir", "results"),
                        parsed->value_or("--profiles-dir", default_profiles_dir()));
  }
  return kExitOk;
}

}  // namespace

extern const Command kPlanCommand = {"plan", "expand a study and show its runs and job scripts",
                                     fixed_usage<kPlanUsage>, run_plan};

}  // namespace scalestudy::cli
