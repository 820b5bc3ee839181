#include <cstdio>

#include "orchestrator/cli/command.hpp"

namespace scalestudy::cli {

// Each cmd_<name>.cpp defines one of these.
extern const Command kPlanCommand;
extern const Command kValidateCommand;
extern const Command kSubmitCommand;
extern const Command kRunCommand;
extern const Command kStatusCommand;
extern const Command kWaitCommand;
extern const Command kCancelCommand;
extern const Command kIngestCommand;
extern const Command kReportCommand;
extern const Command kCompareCommand;
extern const Command kHistoryCommand;
extern const Command kQueryCommand;
extern const Command kExportCommand;
extern const Command kSysinfoCommand;
extern const Command kSystemsCommand;
extern const Command kFetchCommand;
extern const Command kProfileCommand;
extern const Command kProfileReportCommand;

const std::vector<Command>& commands() {
  static const std::vector<Command> kCommands = {
      kPlanCommand,    kValidateCommand, kSubmitCommand,        kRunCommand,     kStatusCommand,
      kWaitCommand,    kCancelCommand,   kIngestCommand,        kReportCommand,  kCompareCommand,
      kHistoryCommand, kQueryCommand,    kExportCommand,        kSysinfoCommand, kSystemsCommand,
      kFetchCommand,   kProfileCommand,  kProfileReportCommand,
  };
  return kCommands;
}

std::optional<int> parse_error_or_help(const char* command, const Result<ParsedArgs>& parsed,
                                       const std::string& usage) {
  if (!parsed) {
    std::fprintf(stderr, "scalestudy %s: %s\n%s\n", command, parsed.status().message().c_str(),
                 usage.c_str());
    return kExitUsage;
  }
  if (parsed->has("--help")) {
    std::puts(usage.c_str());
    return kExitOk;
  }
  return std::nullopt;
}

}  // namespace scalestudy::cli
