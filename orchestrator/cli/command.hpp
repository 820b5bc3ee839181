// A `scalestudy` subcommand: its name, one-line summary, usage text and entry point.
// Each command lives in its own cmd_<name>.cpp and is listed once in commands.cpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "orchestrator/cli/args.hpp"

namespace scalestudy::cli {

// Exit codes, documented in `scalestudy --help` and the README.
enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,      // the command ran and found a problem (failed runs, bad study)
  kExitUsage = 2,        // wrong flags or arguments
  kExitEnvironment = 3,  // a dependency is missing or unreachable (a scheduler, files)
};

struct Command {
  const char* name;
  const char* summary;
  std::string (*usage)();                            // full --help text
  int (*run)(const std::vector<std::string>& args);  // args after the command name
};

const std::vector<Command>& commands();

// Arguments that did not parse: the error and `usage` on stderr, kExitUsage; --help: `usage`
// on stdout, kExitOk; otherwise nothing, and the command goes on.
std::optional<int> parse_error_or_help(const char* command, const Result<ParsedArgs>& parsed,
                                       const std::string& usage);

// Command::usage for a command whose help text is fixed.
template <const char* kText>
std::string fixed_usage() {
  return kText;
}

}  // namespace scalestudy::cli
