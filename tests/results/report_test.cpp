#include "orchestrator/results/report/report.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "orchestrator/results/ingest/ingest.hpp"
#include "orchestrator/results/report/report_render.hpp"
#include "tests/results/built_report.hpp"
#include "tests/results/fixture.hpp"

using namespace scalestudy;
using namespace scalestudy::results;
using namespace scalestudy::results::testing;

namespace {

FixtureRun strong_run(const std::string& id, int world_size, double samples_per_s, int repeat) {
  FixtureRun run;
  run.run_id = id;
  run.repeat = repeat;
  run.world_size = world_size;
  run.tasks_per_node = world_size;
  run.global_batch = 128;
  run.per_gpu_batch = 128 / world_size;
  run.samples_per_s = samples_per_s;
  run.epoch_s = {60000 / samples_per_s, 60000 / samples_per_s};
  run.data_ms = 0.2;
  run.comm_exposed_ms = world_size == 1 ? 0 : world_size == 2 ? 1 : 3;
  run.varied = {{"world_size", std::to_string(world_size)},
                {"per_gpu_batch", std::to_string(128 / world_size)}};
  return run;
}

// One all-reduce sweep run on a single node: (message bytes, busbw GB/s) per size.
FixtureRun allreduce_run(const std::string& id, int world_size,
                         std::vector<std::pair<int64_t, double>> collectives) {
  FixtureRun run;
  run.run_id = id;
  run.workload = "allreduce";
  run.world_size = world_size;
  run.tasks_per_node = world_size;
  run.collectives = std::move(collectives);
  return run;
}

// N=1: 90/100/110 samples/s; N=2: 175/180/185; N=4: 320 plus one FAILED run.
void add_strong_study(StudyFixture& study) {
  study.add_run(strong_run("s1r0000000000000", 1, 100, 0));
  study.add_run(strong_run("s1r1000000000000", 1, 90, 1));
  study.add_run(strong_run("s1r2000000000000", 1, 110, 2));
  study.add_run(strong_run("s2r0000000000000", 2, 180, 0));
  study.add_run(strong_run("s2r1000000000000", 2, 175, 1));
  study.add_run(strong_run("s2r2000000000000", 2, 185, 2));
  study.add_run(strong_run("s4r0000000000000", 4, 320, 0));
  FixtureRun failed = strong_run("s4r1000000000000", 4, 0, 1);
  failed.state = "FAILED";
  failed.write_rank_files = false;
  study.add_run(failed);
}

const ReportPoint& at(const Report& report, int world_size, const std::string& config = "default") {
  for (const auto& point : report.points) {
    if (point.world_size == world_size && point.config_label == config) return point;
  }
  FAIL("no point N=" << world_size << " " << config);
  return report.points.front();
}

std::set<std::string> keys(const nlohmann::json& object) {
  std::set<std::string> names;
  for (const auto& item : object.items()) names.insert(item.key());
  return names;
}

}  // namespace

TEST_CASE("strong report: medians over repeats, speedup and efficiency vs N=1, CI, bottleneck") {
  StudyFixture study("report_strong", "strong");
  add_strong_study(study);
  Report report = report_of(study);
  REQUIRE(report.points.size() == 3);
  const ReportPoint& one = at(report, 1);
  const ReportPoint& two = at(report, 2);
  const ReportPoint& four = at(report, 4);
  CHECK(one.is_baseline);
  CHECK(one.throughput_samples_per_s.median == doctest::Approx(100));
  CHECK(*one.throughput_samples_per_s.ci95_half_width ==
        doctest::Approx(4.303 * 10 / std::sqrt(3.0)));
  CHECK(*two.speedup == doctest::Approx(1.8));
  CHECK(*two.efficiency == doctest::Approx(0.9));
  CHECK(*four.speedup == doctest::Approx(3.2));
  CHECK(*four.efficiency == doctest::Approx(0.8));
  CHECK(four.planned_runs == 2);
  CHECK(four.failed_runs == 1);
  CHECK_FALSE(four.throughput_samples_per_s.ci95_half_width.has_value());
  CHECK(one.epoch_s.median == doctest::Approx(600));
  CHECK(four.device_hours_per_epoch == doctest::Approx(4 * 187.5 / 3600));
  CHECK(*one.final_val_acc == doctest::Approx(0.6));
  // Phases: 0.2 ms data of 10 ms = 2%; compute (3 + 4) / 10 = 70%; comm 3/10 at N=4.
  CHECK(one.phases.data_pct == doctest::Approx(2));
  CHECK(one.phases.compute_pct == doctest::Approx(70));
  CHECK(one.bottleneck == Bottleneck::kCompute);
  CHECK(four.bottleneck == Bottleneck::kCommunication);
  CHECK(has_warning(report, "N=4: 1 of 2 runs failed"));
  CHECK(has_warning(report, "N=1: noisy, throughput CV 10.0%"));
  CHECK(has_warning(report, "fewer than 3 repeats"));
  CHECK(report.runs_failed == 1);
}

TEST_CASE("the report uses the batch a run recorded and warns when it differs from the plan") {
  StudyFixture study("recorded-batch", "strong");
  FixtureRun as_planned = strong_run("b1r0000000000000", 1, 100, 0);
  as_planned.recorded_global_batch = 128;
  as_planned.recorded_per_rank_batch = 128;
  study.add_run(as_planned);
  FixtureRun other = strong_run("b2r0000000000000", 2, 180, 0);
  other.recorded_global_batch = 96;
  other.recorded_per_rank_batch = 48;
  study.add_run(other);
  FixtureRun unrecorded = strong_run("b4r0000000000000", 4, 320, 0);
  study.add_run(unrecorded);

  Report report = report_of(study);
  CHECK(at(report, 1).global_batch == 128);
  CHECK(at(report, 2).global_batch == 96);
  CHECK(at(report, 2).per_gpu_batch == 48);
  CHECK(at(report, 4).global_batch == 128);  // nothing recorded: the plan
  CHECK(at(report, 4).per_gpu_batch == 32);
  CHECK(has_warning(report,
                    "run b2r0000000000000 trained with a global batch of 96 (48 per "
                    "rank), planned 128 (64 per rank)"));
  CHECK_FALSE(has_warning(report, "run b1r0000000000000"));
  CHECK_FALSE(has_warning(report, "run b4r0000000000000"));
}

TEST_CASE("strong report against a 2-rank baseline (--baseline world_size=2)") {
  StudyFixture study("report_strong_base2", "strong");
  add_strong_study(study);
  ReportOptions options;
  options.baseline_override = *parse_baseline_selector("world_size=2");
  Report report = report_of(study, options);
  CHECK(at(report, 2).is_baseline);
  CHECK(*at(report, 4).efficiency == doctest::Approx(320.0 * 2 / (180.0 * 4)));
  CHECK(*at(report, 1).efficiency == doctest::Approx(100.0 * 2 / 180.0));
  CHECK_FALSE(parse_baseline_selector("world_size").is_ok());
}

TEST_CASE("configurable bottleneck thresholds from the study's report settings") {
  StudyFixture study("report_thresholds", "strong", "{}", R"({"input_bound_pct": 1})");
  add_strong_study(study);
  Report report = report_of(study);
  CHECK(report.thresholds.input_bound_pct == 1);
  CHECK(at(report, 1).bottleneck == Bottleneck::kInput);
}

TEST_CASE("weak report: step-time efficiency and time to accuracy") {
  StudyFixture study("report_weak", "weak", "{}", R"({"target_acc": 55})");
  for (int world_size : {1, 2}) {
    FixtureRun run;
    run.run_id = "w" + std::to_string(world_size) + "00000000000000";
    run.world_size = world_size;
    run.tasks_per_node = world_size;
    run.per_gpu_batch = 64;
    run.global_batch = 64 * world_size;
    run.step_ms = world_size == 1 ? 10 : 12.5;
    run.epoch_s = {4, 6};
    run.val_acc = world_size == 1 ? std::vector<double>{0.5, 0.6} : std::vector<double>{0.56, 0.6};
    study.add_run(run);
  }
  Report report = report_of(study);
  CHECK(*report.target_acc == doctest::Approx(0.55));
  CHECK(*at(report, 2).efficiency == doctest::Approx(0.8));
  CHECK(*at(report, 1).time_to_accuracy_s == doctest::Approx(10));
  CHECK(*at(report, 2).time_to_accuracy_s == doctest::Approx(4));
}

TEST_CASE("sensitivity report: change vs the baseline configuration and the target verdict") {
  StudyFixture study("report_sensitivity", "sensitivity", R"({"precision": "fp32"})",
                     R"({"target_gain_pct": 20})");
  const std::vector<std::tuple<std::string, std::string, double, double>> configs = {
      {"bf16", "p1", 1250, 0.59}, {"fp32", "p2", 1000, 0.60}, {"fp16", "p3", 1100, 0.61}};
  for (const auto& [precision, id, throughput, accuracy] : configs) {
    FixtureRun run;
    run.run_id = id;
    run.varied = {{"precision", precision}};
    run.samples_per_s = throughput;
    run.val_acc = {accuracy};
    run.epoch_s = {10};
    run.gpus_per_node = 1;
    run.gpu_mem_peak_bytes = precision == "fp32" ? 4e9 : 3e9;
    study.add_run(run);
  }
  Report report = report_of(study);
  CHECK(report.gpu);
  CHECK(at(report, 1, "precision=fp32").is_baseline);
  const ReportPoint& bf16 = at(report, 1, "precision=bf16");
  CHECK(*bf16.throughput_change_pct == doctest::Approx(25));
  CHECK(*bf16.accuracy_change_points == doctest::Approx(-1));
  CHECK(*bf16.memory_ratio.gpu_peak_bytes == doctest::Approx(0.75));
  CHECK(*at(report, 1, "precision=fp16").throughput_change_pct == doctest::Approx(10));
  REQUIRE(report.sensitivity.has_value());
  CHECK(report.sensitivity->best_config == "precision=bf16");
  CHECK(report.sensitivity->beats_baseline());
  CHECK(report.sensitivity->baseline_config == "precision=fp32");
  CHECK(*report.sensitivity->target_met);
  CHECK(render_report(report, ReportFormat::kTable)
            .find("best configuration: precision=bf16 (+25.0% throughput") != std::string::npos);

  ReportOptions stricter;
  stricter.target_gain_pct = 30;
  CHECK_FALSE(*report_of(study, stricter).sensitivity->target_met);
}

TEST_CASE("communication model from the study's own all-reduce run") {
  StudyFixture study("report_comm", "strong");
  study.add_run(allreduce_run("ar00000000000000", 2, {{1 << 20, 2.0}, {32 << 20, 8.0}}));
  FixtureRun one = strong_run("c1000000000000000", 1, 100, 0);
  FixtureRun two = strong_run("c2000000000000000", 2, 180, 0);
  two.step_ms = 12;
  study.add_run(one);
  study.add_run(two);
  Report report = report_of(study);
  REQUIRE(report.points.size() == 2);  // the all-reduce run is not a point
  const ReportPoint& point = at(report, 2);
  REQUIRE(point.comm.has_value());
  const double busbw = 2.0 + 6.0 * std::log(25.0) / std::log(32.0);  // 25 MiB buckets
  CHECK(point.comm->busbw_gbps == doctest::Approx(busbw));
  CHECK(point.comm->comm_ms == doctest::Approx(44e6 / (busbw * 1e9) * 1e3));
  CHECK(point.comm->compute_ms == doctest::Approx(10.0 / 128 * 64));
  CHECK(point.comm->measured_efficiency == doctest::Approx(5.0 / 12));
  CHECK(point.comm_curve_source.find("ar00000000000000") == 0);

  REQUIRE(report.bandwidth_curves.size() == 1);
  CHECK(report.bandwidth_curves[0].world_size == 2);
  auto json = nlohmann::json::parse(render_report(report, ReportFormat::kJson));
  CHECK(json["bandwidth_curves"][0]["run_id"] == "ar00000000000000");
  CHECK(json["bandwidth_curves"][0]["points"][1]["bytes"] == 32 << 20);
  CHECK(json["bandwidth_curves"][0]["points"][1]["busbw_gbps"] == 8.0);
  CHECK(json["points"][1]["comm_model"]["busbw_gbps"].get<double>() == doctest::Approx(busbw));
  const std::string table = render_report(report, ReportFormat::kTable);
  CHECK(table.find("All-reduce bus bandwidth [GB/s]") != std::string::npos);
  CHECK(table.find("33554432") != std::string::npos);
}

TEST_CASE("--comm-model: another study's all-reduce runs, or one all-reduce run's database") {
  StudyFixture sweep("report_comm_sweep", "custom");
  for (auto [id, ranks, busbw] : {std::tuple{"sw1", 1, 0.0}, {"sw4", 4, 6.0}}) {
    sweep.add_run(allreduce_run(std::string(id) + "0000000000000", ranks,
                                {{1 << 20, busbw}, {64 << 20, busbw}}));
  }
  REQUIRE(ingest_study(sweep.db_path()).is_ok());
  StudyFixture training("report_comm_training", "strong");
  training.add_run(strong_run("t1000000000000000", 1, 100, 0));
  training.add_run(strong_run("t2000000000000000", 2, 180, 0));
  CHECK_FALSE(at(report_of(training), 2).comm.has_value());  // no curve of its own

  ReportOptions options;
  options.comm_model_database = sweep.db_path();
  Report report = report_of(training, options);
  CHECK(report.bandwidth_curves.empty());  // the curves are the other study's
  const ReportPoint& two = at(report, 2);
  REQUIRE(two.comm.has_value());
  // The one-rank curve is nearer to N=2 but carries no bandwidth: the 4-rank one is used.
  CHECK(two.comm->busbw_gbps == doctest::Approx(6.0));
  CHECK(two.comm_curve_source == "sw40000000000000 (world size 4)");

  options.comm_model_database = sweep.rank_path("sw40000000000000", 0);
  REQUIRE(at(report_of(training, options), 2).comm.has_value());
  CHECK(at(report_of(training, options), 2).comm->busbw_gbps == doctest::Approx(6.0));

  options.comm_model_database = training.db_path();
  auto db = sqlite::Database::open(training.db_path());
  REQUIRE(db.is_ok());
  auto refused = build_report(*db, options);
  REQUIRE_FALSE(refused.is_ok());
  CHECK(refused.status().message().find("no all-reduce results") != std::string::npos);
}

TEST_CASE("a study of all-reduce runs alone reports its bandwidth table only") {
  StudyFixture sweep("report_sweep_only", "custom");
  sweep.add_run(allreduce_run("ar20000000000000", 2, {{1024, 0.5}, {2048, 0.75}}));
  Report report = report_of(sweep);
  CHECK(report.points.empty());
  std::vector<ReportTable> tables = report_tables(report);
  REQUIRE(tables.size() == 1);
  CHECK(tables[0].table.headers == std::vector<std::string>{"size [B]", "2 ranks"});
  CHECK(tables[0].table.rows ==
        std::vector<std::vector<std::string>>{{"1024", "0.500"}, {"2048", "0.750"}});
}

TEST_CASE("report JSON: versioned, every documented field present") {
  StudyFixture study("report_json", "strong");
  add_strong_study(study);
  Report report = report_of(study);
  auto json = nlohmann::json::parse(render_report(report, ReportFormat::kJson));
  CHECK(json["schema"] == "scalestudy.report/1");
  CHECK(keys(json) == std::set<std::string>{"schema",         "study",
                                            "kind",           "device",
                                            "baseline",       "settings",
                                            "runs",           "points",
                                            "sensitivity",    "bandwidth_curves",
                                            "projections",    "overlaps",
                                            "co_running",     "failed_attempts",
                                            "failure_nodes",  "straggler_hosts",
                                            "systems",        "systems_side_by_side",
                                            "time_to_result", "warnings"});
  CHECK(keys(json["settings"]) == std::set<std::string>{"input_bound_pct", "comm_bound_pct",
                                                        "target_gain_pct", "target_acc",
                                                        "efficiency_pct", "throughput_unit"});
  CHECK(json["settings"]["throughput_unit"] == "samples");
  REQUIRE(json["points"].size() == 3);
  const auto& point = json["points"][1];
  CHECK(keys(point) == std::set<std::string>{"config_label",
                                             "config",
                                             "nodes",
                                             "world_size",
                                             "gpus",
                                             "device",
                                             "gpu_model",
                                             "global_batch",
                                             "per_gpu_batch",
                                             "is_baseline",
                                             "runs",
                                             "throughput_samples_per_s",
                                             "epoch_s",
                                             "step_ms",
                                             "final_val_acc",
                                             "phases_pct",
                                             "bottleneck",
                                             "device_hours_per_epoch",
                                             "speedup",
                                             "efficiency",
                                             "below_efficiency_threshold",
                                             "time_to_accuracy_s",
                                             "time_to_target",
                                             "accuracy_vs_baseline",
                                             "throughput_change_pct",
                                             "accuracy_change_points",
                                             "energy",
                                             "memory",
                                             "memory_vs_baseline",
                                             "rank_memory",
                                             "comm_model",
                                             "accuracy_curve",
                                             "output_metrics",
                                             "ceilings",
                                             "stragglers",
                                             "rank_arrivals",
                                             "system"});
  CHECK(point["energy"].is_null());  // its runs wrote no energy table
  CHECK(keys(point["throughput_samples_per_s"]) ==
        std::set<std::string>{"count", "median", "min", "max", "mean", "stddev", "cv_pct",
                              "ci95_half_width"});
  CHECK(point["efficiency"].get<double>() == doctest::Approx(0.9));
  // CPU runs, as they recorded it.
  CHECK(json["device"] == "cpu");
  CHECK(point["device"] == "cpu");
  CHECK(point["gpus"] == 0);
  CHECK(point["gpu_model"].is_null());
  CHECK(point["runs"]["run_ids"].size() == 3);
  CHECK(json["points"][2]["runs"]["failed"] == 1);
  CHECK(point["accuracy_curve"][1]["val_acc"].get<double>() == doctest::Approx(0.6));
}

TEST_CASE("terminal, markdown and CSV tables carry the units and the rows") {
  StudyFixture study("report_tables", "strong");
  add_strong_study(study);
  Report report = report_of(study);
  const std::string table = render_report(report, ReportFormat::kTable);
  CHECK(table.find("throughput [samples/s]") != std::string::npos);
  CHECK(table.find("efficiency [%]") != std::string::npos);
  CHECK(table.find("rank-h/epoch") == std::string::npos);  // --wide only
  CHECK(table.find("90.0") != std::string::npos);          // efficiency of N=2
  CHECK(table.find("warnings:") != std::string::npos);
  CHECK(render_report(report, ReportFormat::kWideTable).find("rank-h/epoch") != std::string::npos);
  const std::string markdown = render_report(report, ReportFormat::kMarkdown);
  CHECK(markdown.find("| ranks | nodes |") != std::string::npos);
  CHECK(markdown.find("rank-h/epoch") != std::string::npos);
  const std::string csv = render_report(report, ReportFormat::kCsv);
  CHECK(csv.find("ranks,nodes,global batch,per-rank batch,throughput [samples/s]") !=
        std::string::npos);
  CHECK_FALSE(parse_report_format("xml").is_ok());
}

TEST_CASE("the terminal report fits 120 columns with what matters most; --wide has every column") {
  StudyFixture study("report_width", "strong");
  add_strong_study(study);
  Report report = report_of(study);
  const std::string table = render_report(report, ReportFormat::kTable);
  INFO(table);
  CHECK(widest_line(table) <= 120);
  for (const char* kept : {"ranks", "nodes", "throughput [samples/s]", "95% CI", "speedup",
                           "efficiency [%]", "bottleneck", "runs"}) {
    CHECK_MESSAGE(table.find(kept) != std::string::npos, kept);
  }
  const std::string wide = render_report(report, ReportFormat::kWideTable);
  CHECK(widest_line(wide) > 120);
  for (const char* only_wide : {"min–max", "per-rank batch", "time/epoch [s]", "compute %"}) {
    CHECK_MESSAGE(table.find(only_wide) == std::string::npos, only_wide);
    CHECK_MESSAGE(wide.find(only_wide) != std::string::npos, only_wide);
    CHECK_MESSAGE(render_report(report, ReportFormat::kCsv).find(only_wide) != std::string::npos,
                  only_wide);
  }
}

TEST_CASE("runs dropped from the plan (sched's planned = 0) are neither ingested nor reported") {
  StudyFixture study("report_planned", "strong");
  add_strong_study(study);
  {
    auto db = sqlite::Database::open(study.db_path());
    REQUIRE(db.is_ok());
    REQUIRE(db->exec("UPDATE runs SET planned = 0 WHERE world_size = 4").is_ok());
  }
  Report report = report_of(study);
  CHECK(report.points.size() == 2);
  CHECK(report.runs_planned == 6);
  auto db = sqlite::Database::open(study.db_path());
  auto ingested = db->query_value("SELECT count(*) FROM m_ingest WHERE run_id LIKE 's4%'");
  REQUIRE(ingested.is_ok());
  CHECK(std::get<int64_t>(**ingested) == 0);
}

TEST_CASE("markdown reports escape HTML and table syntax in configuration values") {
  StudyFixture study("md_hostile", "strong");
  int index = 0;
  for (const char* label : {"<img src=x onerror=alert(1)>", "a|b & <script>c\nd"}) {
    for (int world_size : {1, 2}) {
      FixtureRun run;
      run.run_id = "mdhostile" + std::to_string(index++);
      run.world_size = run.tasks_per_node = world_size;
      run.per_gpu_batch = 64 / world_size;
      run.varied = {{"world_size", std::to_string(world_size)}, {"label", label}};
      study.add_run(run);
    }
  }
  REQUIRE(ingest_study(study.db_path()).is_ok());
  auto db = sqlite::Database::open(study.db_path());
  REQUIRE(db.is_ok());
  auto report = build_report(*db);
  REQUIRE(report.is_ok());
  const std::string markdown = render_report(*report, ReportFormat::kMarkdown, {});
  INFO(markdown);
  CHECK(markdown.find("<img") == std::string::npos);
  CHECK(markdown.find("<script") == std::string::npos);
  CHECK(markdown.find("label=&lt;img src=x onerror=alert(1)&gt;") != std::string::npos);
  CHECK(markdown.find("label=a\\|b &amp; &lt;script&gt;c d") != std::string::npos);
}

TEST_CASE("the report lists failed attempts with their class and evidence, and their nodes") {
  StudyFixture study("report_failures", "strong");
  add_strong_study(study);
  {
    auto db = sqlite::Database::open(study.db_path());
    REQUIRE(db.is_ok());
    REQUIRE(
        db->exec("INSERT INTO attempts (run_id, attempt, scheduler, job_id, state, submitted_at, "
                 "failure_class, failure_evidence) VALUES "
                 "('s4r1000000000000', 1, 'slurm', '41', 'NODE_FAIL', 't', 'node', "
                 "'NODE_FAIL on n[3-4]'), "
                 "('s4r1000000000000', 2, 'slurm', '42', 'FAILED', 't', 'hang', "
                 "'rank1.log: Watchdog caught collective operation timeout'), "
                 "('s4r1000000000000', 3, 'slurm', '43', 'FAILED', 't', 'program', "
                 "'rank0.log: ValueError: bad shard');"
                 "INSERT INTO placements (run_id, attempt, job_id, node_list) VALUES "
                 "('s4r1000000000000', 1, '41', 'n[3-4]'), ('s4r1000000000000', 2, '42', 'n4'),"
                 "('s4r1000000000000', 3, '43', 'n5')")
            .is_ok());
  }
  Report report = report_of(study);
  REQUIRE(report.failed_attempts.size() == 3);
  CHECK(report.failed_attempts[2].kind == common::FailureClass::kProgram);
  CHECK(report.failed_attempts[2].evidence == "rank0.log: ValueError: bad shard");
  REQUIRE(report.failure_nodes.size() == 3);
  CHECK(report.failure_nodes[1].node == "n4");
  CHECK(report.failure_nodes[1].flagged);  // a node and a hang failure
  CHECK_FALSE(report.failure_nodes[0].flagged);

  const std::string text = render_report(report, ReportFormat::kWideTable);
  CAPTURE(text);
  CHECK(text.find("Failed attempts") != std::string::npos);
  CHECK(text.find("rank0.log: ValueError: bad shard") != std::string::npos);
  CHECK(text.find("Nodes of failed attempts") != std::string::npos);
  CHECK(text.find("node 1, hang 1") != std::string::npos);
  auto json = nlohmann::json::parse(render_report(report, ReportFormat::kJson));
  CHECK(json["failed_attempts"][1]["failure_class"] == "hang");
  CHECK(json["failure_nodes"][1]["flagged"] == true);
}
