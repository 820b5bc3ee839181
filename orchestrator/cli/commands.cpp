#include "orchestrator/cli/command.hpp"

namespace scalestudy::cli {

// Each cmd_<name>.cpp defines one of these.
extern const Command kPlanCommand;

const std::vector<Command>& commands() {
  static const std::vector<Command> kCommands = {
      kPlanCommand,
  };
  return kCommands;
}

}  // namespace scalestudy::cli
