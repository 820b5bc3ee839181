// Measured ceilings and straggler attribution in the report: the datasheet peak table,
// the attribution of the rank the others waited for, and both through ingest into the
// report's tables and JSON, from run databases shaped like the workload's (with and
// without the arrivals table of newer files).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "orchestrator/results/analysis/device_peaks.hpp"
#include "orchestrator/results/analysis/statistics.hpp"
#include "orchestrator/results/analysis/stragglers.hpp"
#include "orchestrator/results/analysis/student_t.hpp"
#include "orchestrator/results/report/report.hpp"
#include "orchestrator/results/report/report_points.hpp"
#include "orchestrator/results/report/report_render.hpp"
#include "tests/results/built_report.hpp"
#include "tests/results/fixture.hpp"

using namespace scalestudy;
using namespace scalestudy::results;
using namespace scalestudy::results::testing;

namespace {

FixtureRun two_rank_run(const std::string& id, int repeat) {
  FixtureRun run;
  run.run_id = id;
  run.repeat = repeat;
  run.world_size = 2;
  run.tasks_per_node = 1;
  run.nodes = 2;
  run.rank_hosts = {"node-a", "node-b"};
  run.varied = {{"world_size", "2"}};
  return run;
}

}  // namespace

TEST_CASE("datasheet dense peaks: by whole words of the CUDA name, none for the unknown") {
  auto peak = [](const std::string& name, const std::string& precision) {
    auto found = datasheet_dense_peak(name, precision);
    return found ? found->device + " " + std::to_string(static_cast<int>(found->tflops))
                 : std::string("none");
  };
  CHECK(peak("NVIDIA H100 80GB HBM3", "bf16") == "H100 SXM 989");
  CHECK(peak("NVIDIA H100 80GB HBM3", "fp32") == "H100 SXM 67");
  CHECK(peak("NVIDIA H100 PCIe", "fp16") == "H100 PCIe 756");
  CHECK(peak("NVIDIA H200", "tf32") == "H200 494");
  CHECK(peak("NVIDIA GH200 480GB", "bf16") == "GH200 989");
  CHECK(peak("NVIDIA A100-SXM4-80GB", "tf32") == "A100 156");
  CHECK(peak("NVIDIA A10", "bf16") == "A10 125");
  CHECK(peak("NVIDIA L40S", "bf16") == "L40S 362");
  CHECK(peak("Tesla V100-SXM2-16GB", "bf16") == "none");  // no bf16 tensor cores
  CHECK(peak("NVIDIA B200", "bf16") == "none");           // not in the table: no borrowed peak
  CHECK(peak("", "fp32") == "none");
}

TEST_CASE("straggler attribution: the rank last most often, the spread of arrivals") {
  RankArrivals arrivals;
  for (int64_t step = 0; step < 10; ++step) {
    arrivals[0][step] = step;
    arrivals[1][step] = step + (step < 8 ? 0.030 : 0.001);  // last in 8 steps
    arrivals[2][step] = step + (step < 8 ? 0.010 : 0.002);  // last in 2
  }
  arrivals[2].erase(9);  // a step one rank did not record is left out
  auto run = attribute_straggler("r", arrivals, {{0, "a"}, {1, "b"}, {2, "c"}});
  REQUIRE(run);
  CHECK(run->rank == 1);
  CHECK(run->host == "b");
  CHECK(run->steps == 9);
  CHECK(run->last_share == doctest::Approx(8.0 / 9));
  CHECK(run->wait_median_ms == doctest::Approx(30));
  CHECK(run->wait_p95_ms == doctest::Approx(30));
  // Lateness after the others' mean: 25 ms in 8 steps, 0 in one; uncorrelated (ρ clipped
  // to 0), so 9 effective steps, t = 8.0 on 8 degrees of freedom, Šidák over 3 ranks.
  CHECK(run->chance_share == doctest::Approx(1.0 / 3));
  CHECK(run->lateness_mean_ms == doctest::Approx(200.0 / 9));
  CHECK(run->lateness_lag1 == 0);
  CHECK(run->effective_steps == doctest::Approx(9));
  CHECK(run->p_value ==
        doctest::Approx(1 - std::pow(1 - student_t_upper_tail(8.0, 8), 3)).epsilon(1e-3));
  CHECK(run->p_value < 1e-4);
  CHECK(run->stands_out());
  RankArrivals alternating;  // each of two ranks last in every other step: nobody stands out
  for (int64_t step = 0; step < 10; ++step) {
    alternating[0][step] = step + (step % 2 ? 0.01 : 0);
    alternating[1][step] = step + (step % 2 ? 0 : 0.01);
  }
  auto even = attribute_straggler("even", alternating, {});
  REQUIRE(even);
  CHECK(even->lateness_mean_ms == doctest::Approx(0));
  CHECK(even->p_value == doctest::Approx(0.75));  // one rank: 1/2; the later of two: 3/4
  CHECK_FALSE(even->stands_out());
  CHECK_FALSE(attribute_straggler("one", {{0, {{1, 1.0}}}}, {}));
  CHECK_FALSE(attribute_straggler("none", {}, {}));
  CHECK(percentile({1, 2, 3, 4, 5}, 0.95) == doctest::Approx(4.8));
  CHECK(percentile({}, 0.5) == 0);
}

TEST_CASE("straggler significance: late stretches count as few steps, the most often last of N") {
  // Rank 1 late by 5 ms for 30 steps, then early by 5 ms for 10: last in 75% of 40 steps,
  // which a binomial test of independent steps calls p = 0.0011. As two stretches it is
  // close to two observations: ρ = 668.75 / 750, 2.3 effective steps, no straggler.
  RankArrivals stretches;
  for (int64_t step = 0; step < 40; ++step) {
    stretches[0][step] = step;
    stretches[1][step] = step + (step < 30 ? 0.005 : -0.005);
  }
  auto run = attribute_straggler("stretches", stretches, {});
  REQUIRE(run);
  CHECK(run->rank == 1);
  CHECK(run->last_share == doctest::Approx(0.75));
  const double rho = 668.75 / 750;
  CHECK(run->lateness_lag1 == doctest::Approx(rho));
  CHECK(run->effective_steps == doctest::Approx(40 * (1 - rho) / (1 + rho)));
  CHECK(run->p_value > 0.1);
  CHECK_FALSE(run->stands_out());

  // Late by 1 ms at every one of 20 steps: beyond chance, but below the 2 ms a wait must be.
  RankArrivals steady;
  for (int64_t step = 0; step < 20; ++step) {
    steady[0][step] = step;
    steady[1][step] = step + 0.001 + (step % 2 ? 1e-5 : 0);
  }
  auto small = attribute_straggler("steady", steady, {});
  REQUIRE(small);
  CHECK(small->p_value < kStragglerAlpha);
  CHECK(small->wait_median_ms < kMinWaitMs);
  CHECK_FALSE(small->late_beyond_chance());
  CHECK_FALSE(small->stands_out());

  // The same lateness series, picked from more ranks, is less surprising (Šidák).
  const std::vector<double> lateness = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8};
  const double alone = test_lateness(lateness, 1).p_value;
  CHECK(alone > 0);
  CHECK(alone < kStragglerAlpha);
  CHECK(test_lateness(lateness, 4).p_value == doctest::Approx(1 - std::pow(1 - alone, 4)));
  CHECK(test_lateness({5, 5, 5}, 2).p_value == 0);  // late by the same every step
  CHECK(test_lateness({-1, 1}, 2).p_value == doctest::Approx(0.75));
  CHECK(test_lateness({7}, 2).p_value == 1);  // one step says nothing
  CHECK(lag1_autocorrelation({1, 2}) == 0);
  CHECK(lag1_autocorrelation({1, -1, 1, -1}) < 0);
}

TEST_CASE("a late rank on a host that ran other work is not named, and the report says why") {
  StudyFixture study("report_busy_host", "strong");
  FixtureRun run = two_rank_run("bh000000000000000", 0);
  run.arrival_lag_ms = {0, 40};
  // Busy 20 CPU-s over the 10 s its rank (8 CPU-s) trained: 1.2 cores of other work.
  run.extra_summary = {{"host_cpu_busy_s", 20}, {"process_cpu_s", 8}, {"cpu_span_wall_s", 10}};
  study.add_run(run);
  Report report = report_of(study);
  REQUIRE(report.points.front().stragglers.size() == 1);
  const RunStraggler& late = report.points.front().stragglers.front();
  CHECK(late.rank == 1);
  CHECK(late.late_beyond_chance());
  CHECK(late.host_busy());
  CHECK_FALSE(late.stands_out());
  CHECK(has_warning(report,
                    "run bh000000000000000: rank 1 was last more often than chance would make "
                    "it, but its host node-b also ran 1.20 cores of other work while it trained: "
                    "the cause may lie outside the training, so no straggler is named"));
  CHECK(report.straggler_hosts.front().runs_named == 0);
  CHECK(render_report(report, ReportFormat::kTable).find("no (host busy: 1.20 cores)") !=
        std::string::npos);
}

TEST_CASE(
    "a host is busy from a quarter core, or from as much of a core as the wait is of a step") {
  RunStraggler run;
  run.p_value = 0;
  run.wait_median_ms = 2.4;
  run.step_ms_median = 15;  // the wait is 16% of a step
  run.host_other_work_cores = 0.2;
  CHECK(run.late_beyond_chance());
  CHECK(run.host_busy());  // 0.2 cores on the late rank's core account for 16%
  CHECK_FALSE(run.stands_out());
  run.host_other_work_cores = 0.1;
  CHECK_FALSE(run.host_busy());
  CHECK(run.stands_out());
  run.wait_median_ms = 40;  // 267% of a step: a quarter core is enough to doubt it
  run.host_other_work_cores = 0.2;
  CHECK_FALSE(run.host_busy());
  run.host_other_work_cores = kOtherWorkCores;
  CHECK(run.host_busy());
  run.step_ms_median.reset();  // no step recorded: the quarter core alone
  run.wait_median_ms = 2.4;
  run.host_other_work_cores = 0.2;
  CHECK_FALSE(run.host_busy());
  run.host_other_work_cores.reset();  // nothing recorded: never busy
  CHECK_FALSE(run.host_busy());
}

TEST_CASE("other work on a host: its busy CPU time less the run's ranks there, per second") {
  const std::vector<RankCpu> ranks = {{"a", 30, 9, 10}, {"a", 31, 9, 12}, {"b", 5, 4, 10}};
  CHECK(*other_work_cores(ranks, "a") == doctest::Approx((31 - 18) / 12.0));
  CHECK(*other_work_cores(ranks, "b") == doctest::Approx(0.1));
  CHECK_FALSE(other_work_cores(ranks, "c"));
  CHECK(*other_work_cores({{"a", 5, 9, 10}}, "a") == 0);  // readings never go below none
}

TEST_CASE("Student's t upper tail and the incomplete beta behind it, against printed tables") {
  CHECK(regularized_incomplete_beta(0.5, 2, 3) == doctest::Approx(0.6875));
  CHECK(regularized_incomplete_beta(0, 2, 3) == 0);
  CHECK(regularized_incomplete_beta(1, 2, 3) == 1);
  CHECK(student_t_upper_tail(0, 5) == doctest::Approx(0.5));
  CHECK(student_t_upper_tail(1, 1) == doctest::Approx(0.25));  // Cauchy
  CHECK(student_t_upper_tail(2.228, 10) == doctest::Approx(0.025).epsilon(1e-3));
  CHECK(student_t_upper_tail(2.576, 1e6) == doctest::Approx(0.005).epsilon(1e-3));
  CHECK(student_t_upper_tail(-2.228, 10) == doctest::Approx(0.975).epsilon(1e-4));
  CHECK(student_t_upper_tail(3.747, 4) == doctest::Approx(0.01).epsilon(1e-3));
}

TEST_CASE("the report names the straggling rank and host, on rank 0's clock across hosts") {
  StudyFixture study("report_stragglers", "strong");
  for (int repeat = 0; repeat < 3; ++repeat) {
    FixtureRun run = two_rank_run("st" + std::to_string(repeat) + "00000000000000", repeat);
    run.arrival_lag_ms = {0, 40};
    // node-b's clock runs 100 s behind: uncorrected, its rank would look 100 s early.
    run.clock_offset_s = {0, 100};
    // Each host was busy 9 CPU-s over the 10 s its rank (8 CPU-s) trained: 0.1 cores of
    // other work, too little to blame.
    run.extra_summary = {{"host_cpu_busy_s", 9}, {"process_cpu_s", 8}, {"cpu_span_wall_s", 10}};
    study.add_run(run);
  }
  FixtureRun old_file = two_rank_run("st900000000000000", 3);  // no arrivals table
  study.add_run(old_file);
  Report report = report_of(study);
  REQUIRE(report.points.size() == 1);
  const ReportPoint& point = report.points.front();
  REQUIRE(point.stragglers.size() == 3);
  for (const RunStraggler& run : point.stragglers) {
    CHECK(run.rank == 1);
    CHECK(run.host == "node-b");
    CHECK(run.steps == 8);
    CHECK(run.last_share == doctest::Approx(1));
    CHECK(run.stands_out());  // 8 of 8 steps, 1 / 2^8 by chance
    CHECK(run.wait_median_ms == doctest::Approx(40).epsilon(1e-3));
    REQUIRE(run.host_other_work_cores);
    CHECK(*run.host_other_work_cores == doctest::Approx(0.1));
  }
  CHECK_FALSE(has_warning(report, "other work"));
  // Each rank over the 3 repeats' 24 steps: 20 ms after the median of the two, or before it.
  REQUIRE(point.rank_arrivals.size() == 2);
  CHECK(point.rank_arrivals[1].host == "node-b");
  CHECK(point.rank_arrivals[1].steps == 24);
  CHECK(point.rank_arrivals[1].late_median_ms == doctest::Approx(20).epsilon(1e-3));
  CHECK(point.rank_arrivals[1].last_share == 1);
  CHECK(point.rank_arrivals[0].late_median_ms == doctest::Approx(-20).epsilon(1e-3));
  CHECK(point.rank_arrivals[0].last_share == 0);
  REQUIRE(report.straggler_hosts.size() == 2);
  CHECK(report.straggler_hosts[0].host == "node-b");
  CHECK(report.straggler_hosts[0].runs_named == 3);
  CHECK(report.straggler_hosts[0].steps_last == 24);
  CHECK(*report.straggler_hosts[0].late_median_ms == doctest::Approx(20).epsilon(1e-3));
  CHECK(report.straggler_hosts[1].host == "node-a");
  CHECK(report.straggler_hosts[1].steps_last == 0);
  CHECK_FALSE(report.straggler_hosts[1].wait_median_ms);

  const std::string text = render_report(report, ReportFormat::kTable);
  INFO(text);
  CHECK(widest_line(text) <= 120);
  CHECK(text.find("Stragglers") != std::string::npos);
  CHECK(text.find("Hosts (stragglers") != std::string::npos);
  CHECK(text.find("Arrival at the gradient all-reduce per rank") != std::string::npos);
  auto json = nlohmann::json::parse(render_report(report, ReportFormat::kJson));
  CHECK(json["points"][0]["rank_arrivals"][1]["late_median_ms"] ==
        doctest::Approx(20).epsilon(1e-3));
  CHECK(json["straggler_hosts"][0]["late_median_ms"] == doctest::Approx(20).epsilon(1e-3));
  CHECK(json["points"][0]["stragglers"][0]["rank"] == 1);
  CHECK(json["points"][0]["stragglers"][0]["host"] == "node-b");
  CHECK(json["points"][0]["stragglers"][0]["host_other_work_cores"] == doctest::Approx(0.1));
  CHECK(json["straggler_hosts"][0]["host"] == "node-b");
  CHECK(json["straggler_hosts"][0]["steps_last"] == 24);
}

TEST_CASE("ceilings: MFU against the datasheet peak, fractions of the measured ceilings") {
  StudyFixture study("report_ceilings", "strong");
  FixtureRun gpu = two_rank_run("cg000000000000000", 0);
  gpu.gpus_per_node = 1;
  gpu.gpu_model = "NVIDIA H100 80GB HBM3";
  gpu.config_json = R"({"precision": "bf16"})";
  gpu.extra_summary = {{"forward_flops", 1e9},
                       {"ceiling_gemm_tflops", 700},
                       {"ceiling_allreduce_busbw_gbps", 100},
                       {"allreduce_span_ms_median", 10},
                       {"calibration_s", 1}};
  study.add_run(gpu);
  Report report = report_of(study);
  REQUIRE(report.points.size() == 1);
  REQUIRE(report.points[0].ceilings);
  const PointCeilings& ceilings = *report.points[0].ceilings;
  CHECK(ceilings.device == "H100 SXM");
  CHECK(ceilings.precision == "bf16");
  CHECK(*ceilings.peak_tflops == doctest::Approx(989.4));
  // 3 × 1 GFLOP × 1000 samples/s over 2 ranks.
  CHECK(*ceilings.achieved_tflops == doctest::Approx(1.5));
  CHECK(*ceilings.mfu == doctest::Approx(1.5 / 989.4));
  CHECK(*ceilings.gemm_fraction == doctest::Approx(1.5 / 700));
  // 44 MB in 10 ms is 4.4 GB/s; busbw factor 2(n−1)/n = 1 at n = 2.
  CHECK(*ceilings.achieved_busbw_gbps == doctest::Approx(4.4));
  CHECK(*ceilings.busbw_fraction == doctest::Approx(0.044));
  CHECK(*ceilings.calibration_pct == doctest::Approx(100.0 / 11));
  CHECK(ceiling_warnings(ceilings).empty());
  PointCeilings faster_link = ceilings;
  faster_link.busbw_fraction = 1.65;
  REQUIRE(ceiling_warnings(faster_link).size() == 1);
  CHECK(ceiling_warnings(faster_link)[0].find("reached 165% of the calibrated bus bandwidth") !=
        std::string::npos);
  auto json = nlohmann::json::parse(render_report(report, ReportFormat::kJson));
  CHECK(json["points"][0]["ceilings"]["mfu"].get<double>() == doctest::Approx(1.5 / 989.4));
  CHECK(render_report(report, ReportFormat::kHtml).find("MFU [%]") != std::string::npos);
}

TEST_CASE("ceilings: a system's peak applies to the GPU model it declares, not another") {
  StudyFixture study("report_ceilings_system", "custom");
  const std::string h100_system =
      R"({"label": "site", "node": {"gpu_model": "NVIDIA H100 80GB HBM3"},
          "peak_tflops": {"bf16": 900}})";
  for (const auto& [id, model] : std::vector<std::pair<std::string, std::string>>{
           {"cs000000000000001", "NVIDIA H100 80GB HBM3"}, {"cs000000000000002", "NVIDIA H200"}}) {
    FixtureRun run = two_rank_run(id, 0);
    run.varied = {{"device", model}};
    run.gpus_per_node = 1;
    run.gpu_model = model;
    run.config_json = R"({"precision": "bf16"})";
    run.system_json = h100_system;
    run.extra_summary = {{"forward_flops", 1e9}, {"ceiling_gemm_tflops", 700}};
    study.add_run(run);
  }
  Report report = report_of(study);
  REQUIRE(report.points.size() == 2);
  for (const ReportPoint& point : report.points) {
    INFO(point.config_label);
    REQUIRE(point.ceilings);
    const PointCeilings& ceilings = *point.ceilings;
    if (point.config.at("device") == "NVIDIA H100 80GB HBM3") {
      CHECK(*ceilings.peak_tflops == doctest::Approx(900));
      CHECK(ceilings.peak_source == "system site");
    } else {
      CHECK(ceilings.device == "H200");
      CHECK(*ceilings.peak_tflops == doctest::Approx(989.4));
      CHECK(ceilings.peak_source ==
            "datasheet (system site's peak is for NVIDIA H100 80GB HBM3, not NVIDIA H200)");
      CHECK(*ceilings.mfu == doctest::Approx(*ceilings.achieved_tflops / 989.4));
    }
  }
}

TEST_CASE("ceilings: a CPU and an unknown device get no peak and say so; no calibration, none") {
  StudyFixture study("report_ceilings_none", "custom");
  FixtureRun cpu = two_rank_run("cc000000000000000", 0);
  cpu.varied = {{"device", "cpu"}};
  cpu.extra_summary = {{"forward_flops", 1e9}, {"ceiling_gemm_tflops", 0.1}};
  study.add_run(cpu);
  FixtureRun unknown = two_rank_run("cu000000000000000", 0);
  unknown.varied = {{"device", "b200"}};
  unknown.gpus_per_node = 1;
  unknown.gpu_model = "NVIDIA B200";
  unknown.extra_summary = cpu.extra_summary;
  study.add_run(unknown);
  FixtureRun uncalibrated = two_rank_run("cn000000000000000", 0);
  uncalibrated.varied = {{"device", "none"}};
  study.add_run(uncalibrated);
  Report report = report_of(study);
  REQUIRE(report.points.size() == 3);
  for (const ReportPoint& point : report.points) {
    INFO(point.config_label);
    if (point.config.at("device") == "none") {
      CHECK_FALSE(point.ceilings);
      continue;
    }
    REQUIRE(point.ceilings);
    CHECK_FALSE(point.ceilings->peak_tflops);
    CHECK_FALSE(point.ceilings->mfu);
    CHECK(*point.ceilings->gemm_fraction == doctest::Approx(15));  // 1.5 of 0.1 TFLOPS
    // So the 1500% is no figure: the report says why, for this point.
    const std::string warning = point_name(point) +
                                ": trained at 1500% of the GEMM ceiling its calibration "
                                "measured (0.1 TFLOPS/device)";
    CHECK(std::any_of(report.warnings.begin(), report.warnings.end(),
                      [&](const std::string& w) { return w.rfind(warning, 0) == 0; }));
    CHECK(point.ceilings->peak_note == (point.config.at("device") == "cpu"
                                            ? "CPU: no datasheet peak"
                                            : "no datasheet peak for NVIDIA B200 at fp32"));
  }
}
