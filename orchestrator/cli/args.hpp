// Argument parsing shared by all subcommands: `--name value`, `--name=value`, boolean
// `--flag`, and positionals. Unknown options are an error naming the nearest known one.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::cli {

struct ArgSpec {
  std::set<std::string> value_options;  // take a value: "--format"
  std::set<std::string> flag_options;   // booleans: "--watch"
};

class ParsedArgs {
 public:
  std::vector<std::string> positionals;
  bool has(const std::string& name) const { return flags_.count(name) || values_.count(name); }
  std::optional<std::string> value(const std::string& name) const;
  std::string value_or(const std::string& name, const std::string& fallback) const;
  // Every value of an option that may repeat ("--run A --run B").
  std::vector<std::string> values(const std::string& name) const;
  Result<int> int_value_or(const std::string& name, int fallback) const;
  // The option's value as a number ("--input-bound-pct 3"), nothing when not given; an
  // error naming the option when it is no number.
  Result<std::optional<double>> number_value(const std::string& name) const;

 private:
  friend Result<ParsedArgs> parse_args(const std::vector<std::string>&, const ArgSpec&);
  std::set<std::string> flags_;
  std::multimap<std::string, std::string> values_;
};

// "--help"/"-h" is always accepted as a flag.
Result<ParsedArgs> parse_args(const std::vector<std::string>& args, const ArgSpec& spec);

}  // namespace scalestudy::cli
