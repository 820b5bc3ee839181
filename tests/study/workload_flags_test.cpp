// Workload parameters against the workload's own flag description: the rules (harness/
// core/flag_rule), the JSON a workload prints for --describe-flags, and the check of
// every run's parameters with the location of the bad value.
#include "orchestrator/study/workload_flags.hpp"

#include <doctest/doctest.h>

#include "harness/core/flag_rule.hpp"

namespace scalestudy {
namespace {

const char kDescription[] = R"({"workload": "train", "flags": [
  {"name": "epochs", "type": "integer", "default": "1", "min": 1, "help": "training epochs"},
  {"name": "steps-per-epoch", "type": "integer", "default": "0", "min": 0, "help": ""},
  {"name": "lr", "type": "number", "default": "0.1", "min": 0, "help": ""},
  {"name": "precision", "type": "choice", "default": "fp32", "choices": ["fp32", "bf16"]},
  {"name": "overlap", "type": "boolean", "default": "true"},
  {"name": "batch-size", "type": "integer", "default": "64", "min": 1},
  {"name": "data-root", "type": "text", "default": ""}
]})";

Study load(const std::string& workload_lines, const std::string& extra = "") {
  std::string yaml = "study: flags\nkind: strong\nscale: [1, 2]\nglobal_batch: 8\nworkload:\n" +
                     workload_lines + extra;
  Result<Study> study = load_study_text(yaml, "flags.yaml");
  REQUIRE_MESSAGE(study.is_ok(), study.status().message());
  return std::move(study).value();
}

std::string check(const Study& study) {
  auto flags = parse_workload_flags_json(kDescription);
  REQUIRE(flags.is_ok());
  Diagnostics diagnostics;
  check_workload_params(study, study.runs.front().workload, *flags, diagnostics);
  return diagnostics.to_status().message();
}

}  // namespace

TEST_CASE("flag rules accept what they describe and say why they refuse the rest") {
  FlagRule epochs;
  epochs.integer(1);
  CHECK_FALSE(epochs.problem_with("3"));
  CHECK(epochs.problem_with("-2") == "expected an integer >= 1, got '-2'");
  CHECK(epochs.problem_with("many") == "expected an integer >= 1, got 'many'");
  CHECK(epochs.problem_with("1.5").has_value());
  FlagRule fraction;
  fraction.number(0, 1);
  CHECK_FALSE(fraction.problem_with("0.25"));
  CHECK(fraction.problem_with("2") == "expected a number from 0 to 1, got '2'");
  CHECK(fraction.problem_with("nan").has_value());
  FlagRule precision;
  precision.one_of({"fp32", "bf16"});
  CHECK(precision.problem_with("fp8") == "expected one of fp32 | bf16, got 'fp8'");
  FlagRule overlap;
  overlap.boolean();
  CHECK_FALSE(overlap.problem_with("false"));
  CHECK(overlap.problem_with("yes").has_value());
  CHECK_FALSE(FlagRule{}.problem_with("anything at all"));
}

TEST_CASE("the --describe-flags json answer is read, and nonsense is refused") {
  auto flags = parse_workload_flags_json(kDescription);
  REQUIRE_MESSAGE(flags.is_ok(), flags.status().message());
  CHECK(flags->workload == "train");
  CHECK(flags->rules.size() == 7);
  CHECK(flags->rules.at("epochs").type == FlagRule::Type::kInteger);
  CHECK(flags->rules.at("epochs").min == 1);
  CHECK(flags->rules.at("precision").choices == std::vector<std::string>{"fp32", "bf16"});
  CHECK_FALSE(parse_workload_flags_json("usage: train [--name value]...").is_ok());
  CHECK_FALSE(parse_workload_flags_json(R"({"flags": [{"name": "x", "type": "blob"}]})").is_ok());
}

TEST_CASE("every parameter of every run is checked, at the place the study wrote it") {
  CHECK(check(load("  epochs: 2\n  lr: 0.5\n  precision: bf16\n  overlap: false\n")).empty());

  std::string errors = check(load("  epochs: -2\n  steps_per_epoch: -100\n  lr: fast\n"));
  CAPTURE(errors);
  CHECK(errors.find("flags.yaml:6:11: field 'workload.epochs': --epochs: expected an integer >= "
                    "1, got '-2'") != std::string::npos);
  CHECK(errors.find("flags.yaml:7:20: field 'workload.steps_per_epoch'") != std::string::npos);
  CHECK(errors.find("flags.yaml:8:7: field 'workload.lr'") != std::string::npos);

  std::string unknown = check(load("  epoch: 2\n"));
  CHECK(unknown.find("flags.yaml:6:10: field 'workload.epoch': unknown parameter of "
                     "scalestudy-train 'epoch' (did you mean 'epochs'?)") != std::string::npos);

  // A matrix value is reported where the matrix lists it.
  std::string axis = check(load("  epochs: 1\n", "matrix:\n  precision: [fp32, fp8]\n"));
  CHECK(axis.find("flags.yaml:8:21: field 'workload.precision': --precision: expected one of "
                  "fp32 | bf16, got 'fp8'") != std::string::npos);
}

}  // namespace scalestudy
