// How a report reads at scale: a table that grows with ranks or hosts (memory per rank,
// arrivals at the all-reduce per rank, the hosts) shows a group of more than kFullRows
// members (a point's ranks, the study's hosts) as its spread and its outliers instead of a
// row per member. The spread: min, median and max (each extreme with the member at it) and
// σ, the robust standard deviation (1.4826 × the median absolute deviation). An outlier
// lies more than kOutlierSigmas σ from the median in some figure (Iglewicz and Hoaglin's
// modified z-score rule); the kNamedOutliers farthest get their full rows. The terminal and
// markdown show the summary; --wide, CSV, JSON and the HTML report's detail keep every
// member. One rule for every such table; pure functions over value types; thread-safe.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/results/report/text_table.hpp"

namespace scalestudy::results {

inline constexpr size_t kFullRows = 16;
inline constexpr size_t kNamedOutliers = 3;
inline constexpr double kOutlierSigmas = 3.5;
// The rule counts σ as at least this share of the median: figures equal to the byte on most
// ranks would otherwise make a 1% difference an outlier.
inline constexpr double kMinSigmaOfMedian = 0.005;
// Where more than half the members share the median (the MAD is 0, as in "last [% of
// steps]" at 1,024 ranks, most never last and many last once), a value more than this share
// of them reach (and more than kNamedOutliers) is the figure's granularity, not an outlier.
inline constexpr double kMaxSparseOutlierShare = 0.01;

// One figure across a group's members.
struct FigureSpread {
  size_t count = 0;  // members that recorded it
  double min = 0, median = 0, max = 0;
  double sigma = 0;               // robust σ; 0 when every member agrees
  double shared_deviation = 0;    // where the MAD is 0: an outlier lies beyond it
  size_t at_min = 0, at_max = 0;  // indices into the values given
};

// The spread of `values` (none empty, none NaN); σ falls back to 1.2533 × the mean absolute
// deviation where more than half the values equal the median (the MAD is then 0).
FigureSpread figure_spread(const std::vector<double>& values);

// A member's figure as the spread counts it: none where unrecorded or NaN (which would make
// σ NaN and hide every outlier).
std::optional<double> counted(const std::optional<double>& figure);

// The σ the outlier rule counts in: at least kMinSigmaOfMedian of the median, and more than
// the shared deviation over kOutlierSigmas.
double outlier_sigma(const FigureSpread& spread);
// How many of those `value` lies from the median, signed; 0 when that σ is 0.
double sigmas_from_median(const FigureSpread& spread, double value);
bool is_outlier(const FigureSpread& spread, double value);

// A column of a member table: its header and how a figure prints in it.
struct MemberFigure {
  std::string header;
  std::function<std::string(double)> format;
};

// A rank or a host: the cells that name it (rank and host; the host), the name a spread
// gives it at an extreme ("r517", "node032"), and its figures, none where not recorded.
struct Member {
  std::vector<std::string> names;
  std::string label;
  std::vector<std::optional<double>> figures;
};

// The members of one point (or of the study), after the cells that say which.
struct MemberGroup {
  std::vector<std::string> cells;
  std::vector<Member> members;
};

struct MemberTable {
  std::string title;
  std::string noun;  // what a member is, plural: "ranks", "hosts"
  std::vector<std::string> group_headers, name_headers;
  std::vector<MemberFigure> figures;
  std::vector<MemberGroup> groups;
  std::optional<size_t> plotted_figure;  // the figure a plot of a large group shows
};

// Every member, a row each: the group's cells, the names, the figures ("-" where none).
Table every_member(const MemberTable& table);

// Whether some group has more than kFullRows members.
bool needs_summary(const MemberTable& table);

// Under every_member's headers, each group of at most kFullRows members in full; a larger
// one as the rows "min", "median", "max" (a figure's cell naming the member at an extreme
// unlike the median, "24.77 r517"), "spread (σ)", its kNamedOutliers farthest outliers in
// full, and "+N more" (with the count of outliers left unnamed). The table's note says the
// rule and where every member is.
Table summarised_members(const MemberTable& table);

// The members of `group` beyond kOutlierSigmas in some figure, farthest first (by their
// largest |σ| over the figures), as indices into group.members.
std::vector<size_t> group_outliers(const MemberGroup& group, size_t figures);

}  // namespace scalestudy::results
