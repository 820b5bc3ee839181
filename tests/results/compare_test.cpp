// compare_means, repeats_needed and compare_reports on hand-computed fixtures.
#include "orchestrator/results/compare/compare.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "orchestrator/results/compare/compare_render.hpp"

using namespace scalestudy::results;

namespace {

ReportPoint point_of(int world_size, const std::vector<double>& samples_per_s,
                     std::optional<double> efficiency = std::nullopt) {
  ReportPoint point;
  point.config_label = "default";
  point.world_size = world_size;
  point.nodes = 1;
  for (size_t i = 0; i < samples_per_s.size(); ++i) {
    point.run_ids.push_back("run" + std::to_string(world_size) + "_" + std::to_string(i));
  }
  point.throughput_samples_per_s = summarize(samples_per_s);
  point.efficiency = efficiency;
  return point;
}

Report report_of(std::vector<ReportPoint> points) {
  Report report;
  report.kind = "strong";
  report.points = std::move(points);
  return report;
}

}  // namespace

TEST_CASE("compare_means: Welch's t, its degrees of freedom and the ratio's 95% CI") {
  // A: mean 100, s 10; B: mean 60, s 5; n = 3 each.
  // s²/n: 33.333 and 8.333; se = sqrt(41.667) = 6.4550; t = −40 / 6.4550 = −6.1968.
  // df = 41.667² / (33.333²/2 + 8.333²/2) = 1736.11 / 590.28 = 2.9412 → t(0.975, 2) = 4.303.
  // ratio 0.6; log-scale se = sqrt(0.1²/3 + (5/60)²/3) = 0.075154; CI 0.6 · exp(± 4.303 · se).
  const MeanComparison result = compare_means(summarize({100, 110, 90}), summarize({60, 65, 55}));
  CHECK(result.ratio == doctest::Approx(0.6));
  CHECK(result.change_pct == doctest::Approx(-40));
  REQUIRE(result.welch_t.has_value());
  CHECK(*result.welch_t == doctest::Approx(-6.1968).epsilon(1e-4));
  CHECK(*result.welch_df == doctest::Approx(2.9412).epsilon(1e-4));
  CHECK(*result.significant);
  CHECK(*result.ratio_ci95_low == doctest::Approx(0.43422).epsilon(1e-4));
  CHECK(*result.ratio_ci95_high == doctest::Approx(0.82908).epsilon(1e-4));
}

TEST_CASE("compare_means: the ratio's CI stays above 0 when the repeats are noisy") {
  // B: mean 30, s 26.46 (cv 0.88); log-scale se 0.51244, df 2.56 → t 4.303. The linear delta
  // method's interval, 0.3 ± 0.66, reached −0.36.
  const MeanComparison result = compare_means(summarize({100, 110, 90}), summarize({10, 60, 20}));
  CHECK(result.ratio == doctest::Approx(0.3));
  CHECK(*result.ratio_ci95_low == doctest::Approx(0.033074).epsilon(1e-4));
  CHECK(*result.ratio_ci95_high == doctest::Approx(2.72113).epsilon(1e-4));
  CHECK_FALSE(*result.significant);
}

TEST_CASE("compare_means: a 20% drop inside the noise of 3 repeats is not significant") {
  // B: mean 80, s 5: t = −20 / 6.4550 = −3.0984, |t| < 4.303.
  const MeanComparison result = compare_means(summarize({100, 110, 90}), summarize({80, 85, 75}));
  CHECK(*result.welch_t == doctest::Approx(-3.0984).epsilon(1e-4));
  CHECK_FALSE(*result.significant);
  CHECK(judge(result, 5) == CompareVerdict::kNoSignificantChange);
}

TEST_CASE("compare_means: one repeat on a side gives a ratio but no test") {
  const MeanComparison result = compare_means(summarize({100}), summarize({50, 52}));
  CHECK(result.ratio == doctest::Approx(0.51));
  CHECK_FALSE(result.significant.has_value());
  CHECK_FALSE(result.ratio_ci95_low.has_value());
  CHECK(judge(result, 5) == CompareVerdict::kCannotJudge);
}

TEST_CASE("compare_means: identical repeats differ exactly or not at all") {
  CHECK_FALSE(*compare_means(summarize({100, 100}), summarize({100, 100})).significant);
  CHECK(*compare_means(summarize({100, 100}), summarize({90, 90})).significant);
}

TEST_CASE("repeats_needed: 2 (1.960 + 0.842)² (cv/change)², at least 3") {
  // 2 · 2.802² · (10/5)² = 62.81 → 63.
  CHECK(*repeats_needed(10, 5) == 63);
  // 2 · 7.8512 · (2/10)² = 0.628 → the minimum, 3.
  CHECK(*repeats_needed(2, 10) == 3);
  CHECK_FALSE(repeats_needed(2, 0).has_value());
}

TEST_CASE("judge: significance and size against the threshold") {
  MeanComparison comparison;
  comparison.significant = true;
  comparison.change_pct = -3;
  CHECK(judge(comparison, 5) == CompareVerdict::kNoSignificantChange);
  comparison.change_pct = -6;
  CHECK(judge(comparison, 5) == CompareVerdict::kSlower);
  comparison.change_pct = 6;
  CHECK(judge(comparison, 5) == CompareVerdict::kFaster);
}

TEST_CASE("compare_reports: matches points, judges each, regresses on a significant slow-down") {
  const Report a = report_of(
      {point_of(1, {100, 110, 90}, 1.0), point_of(2, {180, 190, 170}, 0.9), point_of(4, {300})});
  const Report b = report_of({point_of(1, {100, 101, 99}, 1.0), point_of(2, {120, 125, 115}, 0.6),
                              point_of(4, {150}), point_of(8, {500, 510})});
  const Comparison comparison = compare_reports(a, b, "before", "after", 5);
  REQUIRE(comparison.points.size() == 3);
  CHECK(comparison.points[0].verdict == CompareVerdict::kNoSignificantChange);
  CHECK(comparison.points[1].verdict == CompareVerdict::kSlower);
  CHECK(comparison.points[1].comparison.ratio == doctest::Approx(120.0 / 180));
  CHECK(*comparison.points[1].efficiency_b == doctest::Approx(0.6));
  // One repeat: no judgement, and the repeats that would allow one.
  CHECK(comparison.points[2].verdict == CompareVerdict::kCannotJudge);
  CHECK(*comparison.points[2].repeats_needed == 3);
  CHECK(comparison.regressed());
  REQUIRE(comparison.warnings.size() == 1);
  CHECK(comparison.warnings[0] == "N=8: measured in after only");

  const std::string text = render_comparison(comparison, ReportFormat::kTable);
  CHECK(text.find("REGRESSION at 1 point(s)") != std::string::npos);
  CHECK(text.find("cannot judge (1 repeat; needs ≥ 3)") != std::string::npos);
  const std::string json = render_comparison(comparison, ReportFormat::kJson);
  CHECK(json.find("\"regressed\": true") != std::string::npos);
}

TEST_CASE("compare_reports: the same measurements compare as no significant change") {
  const Report a = report_of({point_of(1, {100, 110, 90}), point_of(2, {180, 190, 170})});
  const Comparison comparison = compare_reports(a, a, "a", "a again", 5);
  for (const auto& point : comparison.points) {
    CHECK(point.verdict == CompareVerdict::kNoSignificantChange);
    CHECK(point.comparison.ratio == doctest::Approx(1));
  }
  CHECK_FALSE(comparison.regressed());
  CHECK(render_comparison(comparison, ReportFormat::kMarkdown).find("no significant change") !=
        std::string::npos);
}

TEST_CASE("diff_provenance: what differs, most likely cause first; what is shared is left out") {
  const ProvenanceValues a = {{"hostname", {"node1"}},         {"env.NCCL_ALGO", {"Ring"}},
                              {"param.lr", {"0.05"}},          {"nccl_version", {"2.21.5"}},
                              {"binary_build_id", {"aa11"}},   {"optimizer_impl", {"foreach"}},
                              {"libtorch_version", {"2.11.0"}}};
  const ProvenanceValues b = {
      {"hostname", {"node2", "node3"}}, {"env.NCCL_ALGO", {"Tree"}},   {"param.lr", {"0.1"}},
      {"nccl_version", {"2.23.4"}},     {"binary_build_id", {"bb22"}}, {"optimizer_impl", {"loop"}},
      {"libtorch_version", {"2.11.0"}}, {"env.NCCL_DEBUG", {"INFO"}}};
  const auto differences = diff_provenance(a, b);
  std::vector<std::string> keys;
  for (const auto& difference : differences) keys.push_back(difference.key);
  CHECK(keys == std::vector<std::string>{"binary_build_id", "nccl_version", "param.lr",
                                         "env.NCCL_ALGO", "env.NCCL_DEBUG", "optimizer_impl",
                                         "hostname"});
  CHECK(differences[0].kind == DifferenceKind::kBuild);
  CHECK(differences[1].kind == DifferenceKind::kVersions);
  CHECK(differences[2].kind == DifferenceKind::kParameters);
  CHECK(differences[3].kind == DifferenceKind::kEnvironment);
  CHECK(differences[5].kind == DifferenceKind::kRuntime);
  CHECK(differences[6].kind == DifferenceKind::kHosts);
  CHECK(joined_values(differences[4].a) == "(none)");
  CHECK(joined_values(differences[6].b) == "node2|node3");
}
