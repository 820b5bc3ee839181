// The history gate (open_regressions): the newest segment against the newest earlier one no
// slowdown led to, so a small gain after a regression does not close it.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "orchestrator/results/history/study_history.hpp"

using namespace scalestudy::results;

namespace {

// A throughput history of one point: one campaign per value, with the detector's change
// points (each slower when its mean falls).
StudyHistory throughput_history(const std::vector<std::pair<double, int>>& levels,
                                double noise = 0.005) {
  StudyHistory history;
  history.metric = HistoryMetric::kThroughput;
  HistorySeries series;
  std::vector<double> values;
  for (const auto& [value, campaigns] : levels) {
    for (int i = 0; i < campaigns; ++i) {
      values.push_back(value * (1 + noise * std::sin(static_cast<double>(values.size()) * 1.7)));
    }
  }
  for (size_t i = 0; i < values.size(); ++i) {
    history.campaigns.push_back(CampaignInfo{"c" + std::to_string(i + 1), "", ""});
    HistoryEntry entry;
    entry.campaign = i;
    entry.value = values[i];
    series.entries.push_back(entry);
  }
  for (const ChangePoint& point : find_change_points(values)) {
    HistoryChange change;
    change.entry = point.index;
    change.stats = point;
    change.slower = point.mean_after < point.mean_before;
    series.changes.push_back(change);
  }
  history.series.push_back(series);
  return history;
}

}  // namespace

TEST_CASE("a small gain after a regression leaves it open against the level before it") {
  const StudyHistory history = throughput_history({{1000, 8}, {700, 8}, {720, 6}});
  REQUIRE(history.series[0].changes.size() == 2);
  CHECK(history.series[0].changes[0].entry == 8);
  CHECK(history.series[0].changes[1].entry == 16);
  CHECK_FALSE(history.series[0].changes[1].slower);
  const auto open = open_regressions(history, 5);
  REQUIRE(open.size() == 1);
  CHECK(open[0].change == 0);  // since campaign c9, which left 1000
  CHECK(open[0].reference_level == doctest::Approx(1000).epsilon(0.01));
  CHECK(open[0].newest_level == doctest::Approx(720).epsilon(0.01));
  CHECK(open[0].change_pct == doctest::Approx(-28).epsilon(0.02));
}

TEST_CASE("a regression won back within the threshold closes; a slowdown after a gain opens") {
  CHECK(open_regressions(throughput_history({{1000, 8}, {700, 8}, {990, 6}}), 5).empty());
  const auto after_gain =
      open_regressions(throughput_history({{1000, 8}, {1200, 8}, {1100, 8}}), 5);
  REQUIRE(after_gain.size() == 1);
  CHECK(after_gain[0].change == 1);  // against 1200, not the 1000 before it
  CHECK(after_gain[0].change_pct == doctest::Approx(1100.0 / 1200 * 100 - 100).epsilon(0.02));
  CHECK(open_regressions(throughput_history({{1000, 8}, {1200, 8}, {1180, 8}}), 5).empty());
}

TEST_CASE("two regressions in a row count from the level before the first") {
  const auto open = open_regressions(throughput_history({{1000, 8}, {900, 8}, {800, 8}}), 5);
  REQUIRE(open.size() == 1);
  CHECK(open[0].change == 0);
  CHECK(open[0].change_pct == doctest::Approx(-20).epsilon(0.03));
}

TEST_CASE("a partial recovery after a regression does not move the reference past it") {
  // At 20 %: 1000, 700, 710 is open against 1000; a further slowdown to 600 keeps it open,
  // now at -40 %, rather than comparing 600 with the partial recovery's 710.
  const auto partial = open_regressions(throughput_history({{1000, 8}, {700, 8}, {710, 8}}), 20);
  REQUIRE(partial.size() == 1);
  CHECK(partial[0].reference_level == doctest::Approx(1000).epsilon(0.01));
  const auto worse =
      open_regressions(throughput_history({{1000, 8}, {700, 8}, {710, 8}, {600, 8}}), 20);
  REQUIRE(worse.size() == 1);
  CHECK(worse[0].change == 0);
  CHECK(worse[0].reference_level == doctest::Approx(1000).epsilon(0.01));
  CHECK(worse[0].change_pct == doctest::Approx(-40).epsilon(0.03));
}

TEST_CASE("at 10 %: 1000, 700, 880 is open, and a slowdown to 830 after it stays open") {
  const auto partial = open_regressions(throughput_history({{1000, 8}, {700, 8}, {880, 8}}), 10);
  REQUIRE(partial.size() == 1);
  CHECK(partial[0].change_pct == doctest::Approx(-12).epsilon(0.05));
  const auto worse =
      open_regressions(throughput_history({{1000, 8}, {700, 8}, {880, 8}, {830, 8}}), 10);
  REQUIRE(worse.size() == 1);
  CHECK(worse[0].change == 0);
  CHECK(worse[0].change_pct == doctest::Approx(-17).epsilon(0.03));
}

TEST_CASE("32 campaigns at 1000, 700, 720, 600 with 0.2 % noise leave a -40 % regression open") {
  const StudyHistory history = throughput_history({{1000, 8}, {700, 8}, {720, 8}, {600, 8}}, 0.002);
  REQUIRE(history.series[0].changes.size() == 3);
  const auto open = open_regressions(history, 20);
  REQUIRE(open.size() == 1);
  CHECK(open[0].change == 0);
  CHECK(open[0].reference_level == doctest::Approx(1000).epsilon(0.01));
  CHECK(open[0].newest_level == doctest::Approx(600).epsilon(0.01));
  CHECK(open[0].change_pct == doctest::Approx(-40).epsilon(0.02));
}

TEST_CASE("a slow drift of small slowdowns counts from the level before the first") {
  const auto open =
      open_regressions(throughput_history({{1000, 8}, {1100, 8}, {1070, 8}, {1040, 8}}), 4);
  REQUIRE(open.size() == 1);
  CHECK(open[0].change == 1);  // since the campaign that left 1100
  CHECK(open[0].change_pct == doctest::Approx(1040.0 / 1100 * 100 - 100).epsilon(0.05));
}
