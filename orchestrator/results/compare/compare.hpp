// Two reports side by side (`scalestudy compare A B`): per point present in both (same
// configuration, world size and nodes), the throughput and efficiency of each, the ratio
// B/A with its 95% CI, Welch's t over the repeats, and a verdict against a threshold.
// A point regresses when B is significantly slower than A by more than the threshold;
// with fewer than 2 repeats on a side no verdict is made. Beside each verdict, what differs
// between the two sides' provenance (provenance_diff.hpp). Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "orchestrator/results/analysis/significance.hpp"
#include "orchestrator/results/compare/provenance_diff.hpp"
#include "orchestrator/results/report/report.hpp"

namespace scalestudy::results {

inline constexpr double kDefaultCompareThresholdPct = 5;

enum class CompareVerdict { kFaster, kSlower, kNoSignificantChange, kCannotJudge };
const char* to_string(CompareVerdict verdict);

struct ComparedPoint {
  std::string config_label;
  int world_size = 0, nodes = 0;
  Summary throughput_a, throughput_b;  // samples/s over repeats
  std::optional<double> efficiency_a, efficiency_b;
  MeanComparison comparison;
  CompareVerdict verdict = CompareVerdict::kCannotJudge;
  // Repeats per side that would tell this change from noise (cannot judge, or no
  // significant change).
  std::optional<int> repeats_needed;
  std::vector<std::string> run_ids_a, run_ids_b;  // the measured repeats of each side
  // What differs between the two sides' runs, most likely cause first (explain_differences).
  std::vector<ProvenanceDifference> differences;
};

struct Comparison {
  std::string label_a, label_b;  // the studies as named on the command line
  double threshold_pct = kDefaultCompareThresholdPct;
  std::vector<ComparedPoint> points;
  std::vector<std::string> warnings;  // points in one report only, and the like
  bool regressed() const;             // any point slower beyond the threshold
};

Comparison compare_reports(const Report& a, const Report& b, const std::string& label_a,
                           const std::string& label_b, double threshold_pct);

// Fills each compared point's differences from each side's run provenance
// (load_run_provenance of its study database, by run id).
void explain_differences(Comparison& comparison,
                         const std::map<std::string, ProvenanceValues>& provenance_a,
                         const std::map<std::string, ProvenanceValues>& provenance_b);

// The verdict of one pair of summaries: significance from Welch's t, size vs the threshold.
CompareVerdict judge(const MeanComparison& comparison, double threshold_pct);

}  // namespace scalestudy::results
