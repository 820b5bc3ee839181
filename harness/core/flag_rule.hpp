// FlagRule: which values one workload flag accepts — any text, an integer or a number in
// an optional inclusive range, true/false, or one of a few words. The workload checks its
// command line against its rules, and describes them (`--describe-flags json`) so the
// orchestrator checks a study's parameters with the same rules before anything is
// submitted. Torch-free: shared by the harness and the orchestrator. Value type.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace scalestudy {

struct FlagRule {
  enum class Type { kText, kInteger, kNumber, kBoolean, kChoice };

  Type type = Type::kText;
  std::optional<double> min;         // kInteger, kNumber: the smallest value allowed
  std::optional<double> max;         // kInteger, kNumber: the largest value allowed
  std::vector<std::string> choices;  // kChoice: the words allowed

  // Builders, for declarations: flags.declare(...).integer(1).
  FlagRule& integer(std::optional<double> at_least = std::nullopt,
                    std::optional<double> at_most = std::nullopt);
  FlagRule& number(std::optional<double> at_least = std::nullopt,
                   std::optional<double> at_most = std::nullopt);
  FlagRule& boolean();
  FlagRule& one_of(std::vector<std::string> words);

  // Why `value` is not accepted ("expected an integer >= 1, got '-2'"); nullopt if it is.
  std::optional<std::string> problem_with(const std::string& value) const;
};

// "text", "integer", "number", "boolean", "choice" (the JSON description's "type").
const char* flag_type_name(FlagRule::Type type);
std::optional<FlagRule::Type> parse_flag_type(const std::string& name);

}  // namespace scalestudy
