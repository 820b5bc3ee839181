// The rule by which tables of ranks and hosts read at scale (rank_summary.hpp): the robust
// spread, the outliers by the modified z-score, and the summary's rows.
#include "orchestrator/results/report/rank_summary.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "orchestrator/results/report/member_plot.hpp"

using namespace scalestudy::results;

namespace {

// `count` ranks of one figure: 100 + rank % 5 (a spread of 0..4), `outliers` set apart.
MemberTable ranks_table(size_t count, const std::vector<std::pair<size_t, double>>& outliers) {
  MemberTable table;
  table.title = "Figure per rank";
  table.noun = "ranks";
  table.group_headers = {"ranks"};
  table.name_headers = {"rank", "host"};
  table.figures = {{"value", [](double value) { return format_number(value, "%.1f"); }}};
  table.plotted_figure = 0;
  MemberGroup group{{std::to_string(count)}, {}};
  for (size_t rank = 0; rank < count; ++rank) {
    double value = 100 + static_cast<double>(rank % 5);
    for (const auto& [at, set] : outliers) value = rank == at ? set : value;
    group.members.push_back({{std::to_string(rank), "node" + std::to_string(rank / 4)},
                             "r" + std::to_string(rank),
                             {value}});
  }
  table.groups.push_back(std::move(group));
  return table;
}

std::vector<std::string> first_cells(const Table& table, size_t column) {
  std::vector<std::string> cells;
  for (const auto& row : table.rows) cells.push_back(row[column]);
  return cells;
}

}  // namespace

TEST_CASE("figure_spread: median, extremes with their members, σ = 1.4826 × MAD") {
  const FigureSpread spread = figure_spread({3, 1, 4, 1, 5, 9, 2, 6});
  CHECK(spread.count == 8);
  CHECK(spread.min == 1);
  CHECK(spread.at_min == 1);  // the first of equals
  CHECK(spread.max == 9);
  CHECK(spread.at_max == 5);
  CHECK(spread.median == doctest::Approx(3.5));
  // |x − 3.5|: 0.5 2.5 0.5 2.5 1.5 5.5 1.5 2.5 → MAD 2.0.
  CHECK(spread.sigma == doctest::Approx(1.4826 * 2.0));
  CHECK(sigmas_from_median(spread, 3.5 + 2 * spread.sigma) == doctest::Approx(2));
  CHECK_FALSE(is_outlier(spread, 9));
  CHECK(is_outlier(spread, 20));
  CHECK(is_outlier(spread, -10));
}

TEST_CASE("figure_spread: a MAD of 0 falls back to the mean deviation; agreement is no outlier") {
  // 63 hosts never last, one always: the MAD is 0, the one still stands out.
  std::vector<double> last_pct(64, 0);
  last_pct[17] = 100;
  const FigureSpread hosts = figure_spread(last_pct);
  CHECK(hosts.sigma == doctest::Approx(1.2533 * 100 / 64));
  CHECK(is_outlier(hosts, 100));
  CHECK_FALSE(is_outlier(hosts, 0));
  const FigureSpread equal = figure_spread(std::vector<double>(10, 0));
  CHECK(equal.sigma == 0);
  CHECK(sigmas_from_median(equal, 0) == 0);
}

TEST_CASE("figure_spread: a difference under a few tenths of a percent is never an outlier") {
  // Every rank to the byte but one 1% above: σ counts as 0.5% of the median at least.
  std::vector<double> bytes(100, 16e9);
  bytes[3] = 16.16e9;
  const FigureSpread spread = figure_spread(bytes);
  CHECK(outlier_sigma(spread) == doctest::Approx(0.005 * 16e9));
  CHECK_FALSE(is_outlier(spread, 16.16e9));
  CHECK(is_outlier(spread, 16.4e9));  // 2.5%: 5 σ
}

TEST_CASE("group_outliers: beyond 3.5 σ in some figure, farthest first") {
  const MemberTable table = ranks_table(40, {{7, 160}, {30, 130}, {12, 60}});
  // Median 102, MAD 1 (σ 1.48, at least 0.51): 60 is 28 σ below, 130 19 σ and 160 39 σ above.
  CHECK(group_outliers(table.groups[0], 1) == std::vector<size_t>{7, 12, 30});
}

TEST_CASE("a group of at most 16 members stays whole; past 16 it is its spread and outliers") {
  MemberTable small = ranks_table(16, {{3, 500}});
  CHECK_FALSE(needs_summary(small));
  CHECK(every_member(small).rows.size() == 16);

  MemberTable table = ranks_table(1024, {{517, 160}, {3, 40}, {9, 170}, {600, 150}});
  table.groups.insert(table.groups.begin(), ranks_table(2, {}).groups.front());  // a small point
  REQUIRE(needs_summary(table));
  const Table every = every_member(table);
  CHECK(every.rows.size() == 1026);
  CHECK(every.headers == std::vector<std::string>{"ranks", "rank", "host", "value"});
  CHECK(every.note.empty());

  const Table summary = summarised_members(table);
  CHECK(summary.headers == every.headers);
  CHECK(first_cells(summary, 0) ==
        std::vector<std::string>{"2", "2", "1024", "", "", "", "", "", "", ""});
  CHECK(first_cells(summary, 1) == std::vector<std::string>{"0", "1", "min", "median", "max",
                                                            "spread (σ)", "9", "3", "517",
                                                            "+1,021 more (1 outlier)"});
  CHECK(summary.rows[2][3] == "40.0 r3");
  CHECK(summary.rows[3][3] == "102.0");
  CHECK(summary.rows[4][3] == "170.0 r9");
  CHECK(summary.rows[5][3] == "1.5");
  CHECK(summary.rows[6] == std::vector<std::string>{"", "9", "node2", "170.0"});
  CHECK(summary.rows[7][2] == "node0");
  CHECK(summary.note ==
        "Past 16 ranks: outliers beyond 3.5 σ (1.4826 × median absolute deviation); all ranks: "
        "--wide, --format csv|json|html");
}

TEST_CASE("the members' plot: a dot per member, the outliers red and the farthest named") {
  const MemberTable table = ranks_table(1024, {{517, 160}, {3, 40}});
  const std::string svg = member_plot_svg(table, table.groups[0], 0);
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK(svg.find("class=\"outliers\"") != std::string::npos);
  CHECK(svg.find(">r517</text>") != std::string::npos);
  CHECK(svg.find(">r3</text>") != std::string::npos);
  CHECK(svg.find(">r1023</text>") != std::string::npos);  // the axis's last member
  size_t dots = 0;
  for (size_t at = svg.find("h0"); at != std::string::npos; at = svg.find("h0", at + 2)) ++dots;
  CHECK(dots == 1024);
  CHECK(svg.size() < 40'000);
}

TEST_CASE("a sparse figure: a value many members share is noise, not an outlier") {
  // "last [% of steps]" at 1,024 ranks with no straggler: 924 never last, 100 last once in
  // 100 steps. The MAD is 0 and the mean deviation's σ 0.12, which put every 1 % at 8.2 σ.
  std::vector<double> noise(1024, 0);
  for (size_t rank = 0; rank < 100; ++rank) noise[rank * 10] = 1;
  const FigureSpread spread = figure_spread(noise);
  CHECK(spread.sigma == doctest::Approx(1.2533 * 100 / 1024));
  CHECK_FALSE(is_outlier(spread, 1));
  MemberTable table = ranks_table(1024, {});
  for (size_t rank = 0; rank < 1024; ++rank) table.groups[0].members[rank].figures[0] = noise[rank];
  CHECK(group_outliers(table.groups[0], 1).empty());
  // A straggler among that noise still stands out, and alone.
  table.groups[0].members[5].figures[0] = 60;
  CHECK(group_outliers(table.groups[0], 1) == std::vector<size_t>{5});
}

TEST_CASE("a NaN is left out of the spread instead of hiding every outlier") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  MemberTable table = ranks_table(40, {{7, 160}, {30, 130}, {12, 60}, {21, nan}});
  CHECK(group_outliers(table.groups[0], 1) == std::vector<size_t>{7, 12, 30});
  // Where the MAD is 0, σ is the mean deviation's, which one NaN made NaN.
  MemberTable hosts = ranks_table(64, {});
  for (Member& host : hosts.groups[0].members) host.figures[0] = 0;
  hosts.groups[0].members[17].figures[0] = 100;
  hosts.groups[0].members[40].figures[0] = nan;
  CHECK(group_outliers(hosts.groups[0], 1) == std::vector<size_t>{17});
  const MemberTable wide = ranks_table(1024, {{7, 160}, {30, 130}, {12, 60}, {21, nan}});
  const Table summary = summarised_members(wide);
  CHECK(summary.rows[1][3] == "102.0");  // the median of the numbers
  CHECK(summary.rows[3][3] == "1.5");    // σ
  CHECK(first_cells(summary, 1).back() == "+1,021 more");
  const std::string svg = member_plot_svg(wide, wide.groups[0], 0);
  CHECK(svg.find("nan") == std::string::npos);
  CHECK(svg.find(">r7</text>") != std::string::npos);
}
