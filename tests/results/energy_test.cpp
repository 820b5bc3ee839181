// The pure pieces of the energy figures: a run's joules per sample and power from its
// ranks' counter readings, the clock-drop rule with the reasons it names, and the energy
// column of a study that counts tokens.
#include "orchestrator/results/analysis/energy.hpp"

#include <doctest/doctest.h>

#include "orchestrator/results/analysis/clock_drop.hpp"
#include "orchestrator/results/report/report_cells.hpp"
#include "orchestrator/results/report/report_render.hpp"

using namespace scalestudy::results;

namespace {

RankEnergy rank(int number, int64_t samples, double seconds, std::optional<double> joules) {
  RankEnergy energy;
  energy.rank = number;
  energy.samples = samples;
  energy.measured_s = seconds;
  energy.energy_j = joules;
  return energy;
}

}  // namespace

TEST_CASE("joules per sample: every rank's energy over every rank's samples") {
  // Two GPUs: 900 J over 300 samples in 3 s, and 600 J over 300 samples in 2 s.
  RankEnergy first = rank(0, 300, 3, 900), second = rank(1, 300, 2, 600);
  first.peak_power_w = 320;
  second.peak_power_w = 350;
  RunEnergy run = combine_rank_energy({first, second});
  CHECK(run.joules_per_sample == doctest::Approx(1500.0 / 600));
  CHECK(run.avg_power_w == doctest::Approx((300.0 + 300.0) / 2));  // per GPU
  CHECK(run.peak_power_w == 350);
  CHECK(run.unavailable.empty());
  CHECK(run.ranks.size() == 2);
}

TEST_CASE("a rank without the counter leaves the run without energy, with its reason") {
  RankEnergy without = rank(1, 300, 2, std::nullopt);
  without.unavailable = "NVML lacks nvmlDeviceGetTotalEnergyConsumption";
  RunEnergy run = combine_rank_energy({rank(0, 300, 3, 900), without});
  CHECK_FALSE(run.joules_per_sample);
  CHECK_FALSE(run.avg_power_w);
  CHECK(run.unavailable == "NVML lacks nvmlDeviceGetTotalEnergyConsumption");
  CHECK_FALSE(combine_rank_energy({}).joules_per_sample);
  CHECK_FALSE(combine_rank_energy({rank(0, 0, 0, 0)}).joules_per_sample);  // no samples
}

TEST_CASE("reason names merge, each once, in first-seen order") {
  CHECK(merge_names("hw thermal slowdown, sw power cap, hw thermal slowdown") ==
        "hw thermal slowdown, sw power cap");
  CHECK(merge_names(", , gpu idle,") == "gpu idle");
  CHECK(merge_names("").empty());
}

TEST_CASE("a clock that fell 5% or more is a warning naming NVML's reasons") {
  auto warning = clock_drop_warning("rank 0 (cuda:0)", 1980, 1410, "gpu idle, hw thermal slowdown");
  REQUIRE(warning);
  CHECK(*warning ==
        "rank 0 (cuda:0): SM clock fell from 1980 to 1410 MHz during the measured steps: hw "
        "thermal slowdown");
  CHECK(*clock_drop_warning("rank 1 (cuda:1)", 2000, 1900, "") ==
        "rank 1 (cuda:1): SM clock fell from 2000 to 1900 MHz during the measured steps: no "
        "reason given by NVML");
  CHECK_FALSE(clock_drop_warning("rank 0", 2000, 1901, "sw power cap"));  // under 5%
  CHECK_FALSE(clock_drop_warning("rank 0", 1980, 1980, ""));
  CHECK_FALSE(clock_drop_warning("rank 0", std::nullopt, std::nullopt, "hw slowdown"));
}

TEST_CASE("a study that counts tokens shows energy per token beside each scale") {
  Report report;
  report.study = "lm";
  report.kind = "strong";
  report.throughput_unit = "tokens";
  ReportPoint point;
  point.world_size = point.nodes = 1;
  point.run_ids = {"r1"};
  point.energy_recorded = true;
  point.joules_per_sample = 2048;
  point.joules_per_token = 2;  // 1,024 tokens a sample
  report.points = {point};
  const std::string table = render_report(report, ReportFormat::kWideTable);
  CHECK(table.find("energy [J/token]") != std::string::npos);
  CHECK(table.find("energy [J/sample]") == std::string::npos);
  CHECK(table.find(magnitude(2)) != std::string::npos);
  CHECK(table.find(magnitude(2048)) == std::string::npos);
}
