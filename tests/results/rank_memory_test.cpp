// Per-rank memory: loading each rank's allocator, RSS and NVML numbers, combining repeats
// (peaks by maximum, averages by mean), and the report's per-rank table and JSON.
#include "orchestrator/results/ingest/rank_memory.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "orchestrator/results/ingest/ingest.hpp"
#include "orchestrator/results/report/report.hpp"
#include "orchestrator/results/report/report_render.hpp"
#include "tests/results/fixture.hpp"

using namespace scalestudy;
using namespace scalestudy::results;
using namespace scalestudy::results::testing;

TEST_CASE("combine_repeats: peaks by maximum, averages by mean, per rank") {
  RankMemory first;
  first.rank = 0;
  first.gpu_peak_bytes = 100;
  first.gpu_reserved_peak_bytes = 130;
  first.nvml_avg_bytes = 80;
  first.rss_avg_bytes = 10;
  RankMemory second = first;
  second.gpu_peak_bytes = 120;
  second.gpu_reserved_peak_bytes = 125;
  second.nvml_avg_bytes = 60;
  second.rss_avg_bytes = std::nullopt;
  RankMemory other_rank;
  other_rank.rank = 1;
  other_rank.rss_peak_bytes = 7;
  const auto combined = combine_repeats({{first, other_rank}, {second}});
  REQUIRE(combined.size() == 2);
  CHECK(*combined[0].gpu_peak_bytes == doctest::Approx(120));
  CHECK(*combined[0].gpu_reserved_peak_bytes == doctest::Approx(130));
  CHECK(*combined[0].nvml_avg_bytes == doctest::Approx(70));
  CHECK(*combined[0].rss_avg_bytes == doctest::Approx(10));  // one repeat recorded it
  CHECK_FALSE(combined[0].nvml_peak_bytes.has_value());
  CHECK(combined[1].rank == 1);
  CHECK(*combined[1].rss_peak_bytes == doctest::Approx(7));
}

TEST_CASE("report: per-rank GPU, NVML and host memory over 2 repeats of a 2-rank GPU run") {
  StudyFixture study("rank_memory", "strong");
  const double rss = 512.0 * 1024 * 1024;
  for (int repeat = 0; repeat < 2; ++repeat) {
    FixtureRun run;
    run.run_id = "m" + std::to_string(repeat);
    run.repeat = repeat;
    run.world_size = 2;
    run.tasks_per_node = 2;
    run.per_gpu_batch = 32;
    run.gpus_per_node = 2;
    run.gpu_mem_peak_bytes = repeat == 0 ? 1.0e9 : 1.2e9;
    run.extra_summary = {{"gpu_mem_reserved_peak_bytes", repeat == 0 ? 1.5e9 : 1.4e9}};
    run.nvml_used_bytes = repeat == 0 ? 2.0e9 : 3.0e9;
    run.memory_step_per_rank_bytes = 1e8;
    study.add_run(run);
  }
  REQUIRE(ingest_study(study.db_path()).is_ok());
  auto db = sqlite::Database::open(study.db_path());
  REQUIRE(db.is_ok());

  auto one_run = load_rank_memory(*db, "m0");
  REQUIRE(one_run.is_ok());
  REQUIRE(one_run->size() == 2);
  CHECK(*(*one_run)[1].gpu_peak_bytes == doctest::Approx(1.1e9));
  // Telemetry samples rss, rss − 1, rss − 2: mean rss − 1.
  CHECK(*(*one_run)[0].rss_avg_bytes == doctest::Approx(rss - 1));
  // NVML samples 2.000, 2.001, 2.002 GB.
  CHECK(*(*one_run)[0].nvml_peak_bytes == doctest::Approx(2.002e9));
  CHECK(*(*one_run)[0].nvml_avg_bytes == doctest::Approx(2.001e9));

  auto report = build_report(*db);
  REQUIRE(report.is_ok());
  REQUIRE(report->points.size() == 1);
  const auto& ranks = report->points[0].rank_memory;
  REQUIRE(ranks.size() == 2);
  CHECK(*ranks[0].gpu_peak_bytes == doctest::Approx(1.2e9));
  CHECK(*ranks[0].gpu_reserved_peak_bytes == doctest::Approx(1.5e9));
  CHECK(*ranks[0].rss_peak_bytes == doctest::Approx(rss));
  CHECK(*ranks[0].rss_avg_bytes == doctest::Approx(rss - 1));
  CHECK(*ranks[0].nvml_peak_bytes == doctest::Approx(3.002e9));
  CHECK(*ranks[0].nvml_avg_bytes == doctest::Approx(2.501e9));
  CHECK(*ranks[1].gpu_peak_bytes == doctest::Approx(1.3e9));
  CHECK(*ranks[1].gpu_reserved_peak_bytes == doctest::Approx(1.5e9));
  CHECK(*ranks[1].rss_peak_bytes == doctest::Approx(rss + 1e8));
  CHECK(*ranks[1].nvml_avg_bytes == doctest::Approx(2.601e9));

  // 1.3e9 B = 1.21 GiB; 2.601e9 B = 2.42 GiB.
  const std::string table = render_report(*report, ReportFormat::kTable);
  CHECK(table.find("Memory per rank [GiB]") != std::string::npos);
  for (const char* header : {"alloc peak", "reserved peak", "NVML peak", "NVML avg", "RSS peak"}) {
    CHECK_MESSAGE(table.find(header) != std::string::npos, header);
  }
  CHECK(table.find("2.42") != std::string::npos);
  CHECK(render_report(*report, ReportFormat::kCsv).find("# Memory per rank") != std::string::npos);
  CHECK(render_report(*report, ReportFormat::kHtml).find("Memory per rank") != std::string::npos);
  auto json = nlohmann::json::parse(render_report(*report, ReportFormat::kJson));
  const auto& rank = json["points"][0]["rank_memory"][1];
  CHECK(rank["gpu_peak_bytes"].get<double>() == doctest::Approx(1.3e9));
  CHECK(rank["gpu_reserved_peak_bytes"].get<double>() == doctest::Approx(1.5e9));
  CHECK(rank["gpu_avg_bytes"] == rank["nvml_avg_bytes"]);
}
