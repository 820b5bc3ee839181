// The study language's `metrics:` section and the workload invocation keys (args,
// flag_style, env_params, run_flags): what they load to, the errors they give, and how
// they enter the run id.
#include <doctest/doctest.h>

#include "orchestrator/study/metric_spec.hpp"
#include "tests/study/study_test_util.hpp"

namespace scalestudy {
namespace {

using testing::load_error;
using testing::load_ok;

const char kScriptStudy[] = R"(
study: script
workload:
  binary: /usr/bin/python3
  args: [train.py]
  flag_style: underscores
  run_flags: false
  epochs: 2
metrics:
  throughput:
    pattern: 'Throughput ([0-9.]+) img/s'
    unit: img/s
    occurrence: all
    skip_first: 1
    reduce: sum
    role: throughput
  loss: {pattern: 'loss=(\S+)'}
)";

TEST_CASE("metrics load with their defaults and reach every run") {
  Study study = load_ok(kScriptStudy);
  REQUIRE(study.runs.size() == 1);
  const RunSpec& run = study.runs.front();
  REQUIRE(run.metrics.size() == 2);
  const MetricSpec& throughput = run.metrics[0];
  CHECK(throughput.name == "throughput");
  CHECK(throughput.pattern == "Throughput ([0-9.]+) img/s");
  CHECK(throughput.unit == "img/s");
  CHECK(throughput.occurrence == MetricOccurrence::kAll);
  CHECK(throughput.skip_first == 1);
  CHECK(throughput.reduction == MetricReduction::kSum);
  CHECK(throughput.role == MetricRole::kThroughput);
  const MetricSpec& loss = run.metrics[1];
  CHECK(loss.occurrence == MetricOccurrence::kLast);
  CHECK(loss.reduction == MetricReduction::kRank0);
  CHECK(loss.role == MetricRole::kNone);
  CHECK(run.invocation.args == std::vector<std::string>{"train.py"});
  CHECK(run.invocation.flag_form == FlagForm::kUnderscores);
  CHECK_FALSE(run.invocation.run_flags);
  CHECK(run.params.count("args") == 0);

  auto round_trip = metric_specs_from_json(metric_specs_to_json(run.metrics));
  REQUIRE(round_trip);
  REQUIRE(round_trip->size() == 2);
  CHECK((*round_trip)[0].pattern == throughput.pattern);
  CHECK((*round_trip)[0].role == MetricRole::kThroughput);
  CHECK((*round_trip)[0].skip_first == 1);
}

TEST_CASE("metrics change what is read, not what runs: the run id ignores them") {
  std::string changed = kScriptStudy;
  changed.replace(changed.find("reduce: sum"), 11, "reduce: max");
  CHECK(load_ok(changed).runs[0].run_id == load_ok(kScriptStudy).runs[0].run_id);
  std::string other_script = kScriptStudy;
  other_script.replace(other_script.find("[train.py]"), 10, "[eval.py]");
  CHECK(load_ok(other_script).runs[0].run_id != load_ok(kScriptStudy).runs[0].run_id);
}

TEST_CASE("bad metrics are reported with their location") {
  std::string errors = load_error(R"(
study: bad
metrics:
  two_groups: {pattern: '(\d+) of (\d+)'}
  no_group: {pattern: 'Throughput \d+'}
  broken: {pattern: '(unclosed'}
  backref: {pattern: '(a)\1'}
  warmup_last: {pattern: 'x (\d+)', skip_first: 2}
  typo: {pattern: 'x (\d+)', reduce: summ, rol: throughput}
  no_pattern: {unit: s}
  first: {pattern: 'a (\d+)', role: throughput}
  second: {pattern: 'b (\d+)', role: throughput}
)");
  CHECK(errors.find("inline.yaml:4:") != std::string::npos);
  CHECK(errors.find("needs exactly one capture group (the number), found 2") != std::string::npos);
  CHECK(errors.find("found 0") != std::string::npos);
  CHECK(errors.find("field 'metrics.broken.pattern': is not a valid RE2 pattern") !=
        std::string::npos);
  CHECK(errors.find("field 'metrics.backref.pattern': is not a valid RE2 pattern") !=
        std::string::npos);
  CHECK(errors.find("applies to occurrence: all") != std::string::npos);
  CHECK(errors.find("did you mean 'sum'") != std::string::npos);
  CHECK(errors.find("did you mean 'role'") != std::string::npos);
  CHECK(errors.find("field 'metrics.no_pattern.pattern': is required") != std::string::npos);
  CHECK(errors.find("role throughput is already given to another metric") != std::string::npos);
}

TEST_CASE("bad invocation keys are reported") {
  std::string errors = load_error(R"(
study: bad
workload:
  binary: /usr/bin/python3
  args: train.py
  flag_style: camel
  run_flags: maybe
  env_params: {missing: MISSING, epochs: "not a name"}
  epochs: 1
)");
  CHECK(errors.find("field 'workload.args': expected a list of arguments") != std::string::npos);
  CHECK(errors.find("field 'workload.flag_style'") != std::string::npos);
  CHECK(errors.find("field 'workload.run_flags': expected true or false") != std::string::npos);
  CHECK(errors.find("field 'workload.env_params.missing': names no parameter") !=
        std::string::npos);
  CHECK(errors.find("field 'workload.env_params.epochs': expected an environment variable") !=
        std::string::npos);
}

}  // namespace
}  // namespace scalestudy
