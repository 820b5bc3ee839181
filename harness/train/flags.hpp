// Flags: the workload binaries' command line, in the one form the orchestrator emits:
// `--name value` (every flag takes a value; booleans are "true"/"false"). Flags are
// declared with a default, a help line and a rule for its values (FlagRule), which
// `--describe-flags json` publishes so the orchestrator can check a study before it
// runs; the workload's own reading of each value stays the final word. An unknown flag
// is an error naming the nearest declared one. parse() reads every argument even after
// an error, so --out-dir and --run-id are known and a failed run can still be recorded.
// Used by one thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "harness/core/flag_rule.hpp"
#include "harness/core/status.hpp"

namespace scalestudy::train {

class Flags {
 public:
  // Hidden flags are for tests (left out of usage()). The rule accepts any text until
  // narrowed through the returned reference: flags.declare("epochs", "1", "...").integer(1).
  FlagRule& declare(const std::string& name, const std::string& default_value,
                    const std::string& help, bool hidden = false);

  // Returns the first error; values parsed before and after it are kept.
  Status parse(const std::vector<std::string>& arguments);
  bool help_requested() const { return help_requested_; }

  std::string get(const std::string& name) const;
  Result<int64_t> get_int(const std::string& name) const;
  Result<double> get_double(const std::string& name) const;
  Result<bool> get_bool(const std::string& name) const;
  bool was_set(const std::string& name) const { return set_.count(name) > 0; }
  // Replaces the value of a declared flag the command line left unset: a default that
  // depends on other flags (a size preset's batch). No effect on a flag that was set.
  void set_default(const std::string& name, const std::string& value);

  // Every declared flag with its resolved value (for the run's config_json).
  std::map<std::string, std::string> resolved() const;
  std::string usage(const std::string& program) const;
  // `--describe-flags json`: {"workload": name, "git_commit": the build's, "flags":
  // [{"name", "type", "default", "min", "max", "choices", "help"}, ...]}; hidden flags
  // included, they are accepted too.
  std::string describe_json(const std::string& workload, const std::string& git_commit) const;

 private:
  struct Declared {
    std::string value;
    std::string help;
    bool hidden = false;
    FlagRule rule;
  };
  std::map<std::string, Declared> flags_;
  std::map<std::string, bool> set_;
  bool help_requested_ = false;
};

// The data-source flags every data-reading workload shares, so studies spell them alike:
// --data-root, --train-samples, --val-samples (class-balanced subsets; 0 = all).
void declare_data_source_flags(Flags& flags);

}  // namespace scalestudy::train
