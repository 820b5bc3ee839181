#include "orchestrator/results/report/rank_summary.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "orchestrator/results/analysis/statistics.hpp"

namespace scalestudy::results {
namespace {

// σ of a normal sample from its median absolute deviation, and from its mean one.
constexpr double kSigmaPerMad = 1.4826;
constexpr double kSigmaPerMeanDeviation = 1.2533;

// The recorded values of figure `f` and whose they are.
struct FigureValues {
  std::vector<double> values;
  std::vector<size_t> members;
};

FigureValues figure_values(const MemberGroup& group, size_t f) {
  FigureValues figure;
  for (size_t m = 0; m < group.members.size(); ++m) {
    if (const auto value = counted(group.members[m].figures[f])) {
      figure.values.push_back(*value);
      figure.members.push_back(m);
    }
  }
  return figure;
}

std::string cell(const MemberFigure& figure, const std::optional<double>& value) {
  return value ? figure.format(*value) : std::string("-");
}

// "1,021": counts in the summary read like the issue's.
std::string grouped(size_t count) {
  std::string digits = std::to_string(count);
  for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3) digits.insert(at, ",");
  return digits;
}

void add_member_row(const MemberTable& table, const Member& member,
                    const std::vector<std::string>& group_cells, Table& out) {
  std::vector<std::string> row = group_cells;
  row.insert(row.end(), member.names.begin(), member.names.end());
  for (size_t f = 0; f < table.figures.size(); ++f) {
    row.push_back(cell(table.figures[f], member.figures[f]));
  }
  out.rows.push_back(std::move(row));
}

// A row of the spread: its label in the first name column, a cell per figure.
void add_spread_row(const MemberTable& table, const std::string& label,
                    const std::vector<std::string>& cells,
                    const std::vector<std::string>& group_cells, Table& out) {
  std::vector<std::string> row = group_cells;
  row.push_back(label);
  row.resize(row.size() + table.name_headers.size() - 1);
  row.insert(row.end(), cells.begin(), cells.end());
  out.rows.push_back(std::move(row));
}

void add_summary(const MemberTable& table, const MemberGroup& group, Table& out) {
  std::vector<std::string> min, median, max, sigma;
  for (size_t f = 0; f < table.figures.size(); ++f) {
    const MemberFigure& figure = table.figures[f];
    const FigureValues recorded = figure_values(group, f);
    if (recorded.values.empty()) {
      for (auto* row : {&min, &median, &max, &sigma}) row->push_back("-");
      continue;
    }
    const FigureSpread spread = figure_spread(recorded.values);
    auto at = [&](double extreme, size_t index) {
      const std::string value = figure.format(extreme);
      return extreme == spread.median ? value
                                      : value + " " + group.members[recorded.members[index]].label;
    };
    min.push_back(at(spread.min, spread.at_min));
    median.push_back(figure.format(spread.median));
    max.push_back(at(spread.max, spread.at_max));
    sigma.push_back(figure.format(spread.sigma));
  }
  const std::vector<std::string> blank(group.cells.size());
  add_spread_row(table, "min", min, group.cells, out);
  add_spread_row(table, "median", median, blank, out);
  add_spread_row(table, "max", max, blank, out);
  add_spread_row(table, "spread (σ)", sigma, blank, out);
  const std::vector<size_t> outliers = group_outliers(group, table.figures.size());
  const size_t named = std::min(outliers.size(), kNamedOutliers);
  for (size_t i = 0; i < named; ++i) add_member_row(table, group.members[outliers[i]], blank, out);
  std::string more = "+" + grouped(group.members.size() - named) + " more";
  if (const size_t unnamed = outliers.size() - named; unnamed > 0) {
    more += " (" + grouped(unnamed) + (unnamed == 1 ? " outlier)" : " outliers)");
  }
  add_spread_row(table, more, std::vector<std::string>(table.figures.size()), blank, out);
}

}  // namespace

FigureSpread figure_spread(const std::vector<double>& values) {
  FigureSpread spread;
  spread.count = values.size();
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  spread.min = *low;
  spread.max = *high;
  spread.at_min = static_cast<size_t>(low - values.begin());
  spread.at_max = static_cast<size_t>(high - values.begin());
  spread.median = median(values);
  std::vector<double> deviations;
  for (double value : values) deviations.push_back(std::fabs(value - spread.median));
  const double mad = median(deviations);
  if (mad > 0) {
    spread.sigma = kSigmaPerMad * mad;
    return spread;
  }
  spread.sigma = kSigmaPerMeanDeviation * mean(deviations);
  const size_t rare =
      std::max(kNamedOutliers,
               static_cast<size_t>(kMaxSparseOutlierShare * static_cast<double>(values.size())));
  if (rare < deviations.size()) {
    std::nth_element(deviations.begin(), deviations.begin() + static_cast<long>(rare),
                     deviations.end(), std::greater<>());
    spread.shared_deviation = deviations[rare];
  }
  return spread;
}

std::optional<double> counted(const std::optional<double>& figure) {
  if (!figure || std::isnan(*figure)) return std::nullopt;
  return figure;
}

double outlier_sigma(const FigureSpread& spread) {
  // A hair above the shared deviation over the rule's σs, so a value at it is no outlier.
  const double shared = std::nextafter(spread.shared_deviation / kOutlierSigmas, HUGE_VAL);
  return std::max({spread.sigma, kMinSigmaOfMedian * std::fabs(spread.median),
                   spread.shared_deviation > 0 ? shared : 0.0});
}

double sigmas_from_median(const FigureSpread& spread, double value) {
  const double sigma = outlier_sigma(spread);
  return sigma > 0 ? (value - spread.median) / sigma : 0;
}

bool is_outlier(const FigureSpread& spread, double value) {
  return std::fabs(sigmas_from_median(spread, value)) > kOutlierSigmas;
}

std::vector<size_t> group_outliers(const MemberGroup& group, size_t figures) {
  std::map<size_t, double> farthest;  // member → its largest |σ| beyond the rule
  for (size_t f = 0; f < figures; ++f) {
    const FigureValues recorded = figure_values(group, f);
    if (recorded.values.empty()) continue;
    const FigureSpread spread = figure_spread(recorded.values);
    for (size_t i = 0; i < recorded.values.size(); ++i) {
      if (!is_outlier(spread, recorded.values[i])) continue;
      double& sigmas = farthest[recorded.members[i]];
      sigmas = std::max(sigmas, std::fabs(sigmas_from_median(spread, recorded.values[i])));
    }
  }
  std::vector<std::pair<size_t, double>> ranked(farthest.begin(), farthest.end());
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<size_t> members;
  for (const auto& [member, sigmas] : ranked) members.push_back(member);
  return members;
}

Table every_member(const MemberTable& table) {
  Table out;
  out.title = table.title;
  out.headers = table.group_headers;
  out.headers.insert(out.headers.end(), table.name_headers.begin(), table.name_headers.end());
  for (const MemberFigure& figure : table.figures) out.headers.push_back(figure.header);
  for (const MemberGroup& group : table.groups) {
    for (const Member& member : group.members) add_member_row(table, member, group.cells, out);
  }
  return out;
}

bool needs_summary(const MemberTable& table) {
  return std::any_of(table.groups.begin(), table.groups.end(),
                     [](const MemberGroup& group) { return group.members.size() > kFullRows; });
}

Table summarised_members(const MemberTable& table) {
  Table out = every_member(table);
  out.rows.clear();
  for (const MemberGroup& group : table.groups) {
    if (group.members.size() <= kFullRows) {
      for (const Member& member : group.members) add_member_row(table, member, group.cells, out);
    } else {
      add_summary(table, group, out);
    }
  }
  out.note = "Past " + std::to_string(kFullRows) + " " + table.noun + ": outliers beyond " +
             format_number(kOutlierSigmas, "%.1f") +
             " σ (1.4826 × median absolute deviation); all " + table.noun +
             ": --wide, --format csv|json|html";
  return out;
}

}  // namespace scalestudy::results
