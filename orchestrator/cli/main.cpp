// scalestudy: declare, submit, run and report distributed-training scaling studies.
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "harness/core/nearest_name.hpp"
#include "orchestrator/cli/args.hpp"
#include "orchestrator/cli/command.hpp"

namespace {

void print_help() {
  std::printf(
      "usage: scalestudy COMMAND [ARGS...]\n\n"
      "Declare a scaling study in YAML, submit it to SLURM or run it on this machine, and\n"
      "report efficiency tables.\n\ncommands:\n");
  for (const auto& command : scalestudy::cli::commands()) {
    std::printf("  %-10s %s\n", command.name, command.summary);
  }
  std::printf(
      "\n`scalestudy COMMAND --help` describes one command.\n\n"
      "exit codes: 0 ok; 1 the command found a problem (invalid study, failed runs);\n"
      "            2 wrong arguments; 3 a dependency is missing or unreachable.\n");
}

// Runs one command; no exception escapes it. Commands report errors as values, so an
// exception here is a defect or exhaustion (std::bad_alloc): it is named, not an abort.
int run_guarded(const scalestudy::cli::Command& command, const std::vector<std::string>& args) {
  try {
    return command.run(args);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "scalestudy %s: out of memory\n", command.name);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "scalestudy %s: internal error: %s\n", command.name, error.what());
  } catch (...) {
    std::fprintf(stderr, "scalestudy %s: internal error: unknown exception\n", command.name);
  }
  return scalestudy::cli::kExitFailure;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace scalestudy::cli;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_help();
    return args.empty() ? kExitUsage : kExitOk;
  }
  if (args[0] == "--version") {
    std::printf("scalestudy %s\n", SCALESTUDY_VERSION);
    return kExitOk;
  }
  std::vector<std::string> names;
  for (const auto& command : commands()) {
    if (args[0] == command.name) {
      std::vector<std::string> rest(args.begin() + 1, args.end());
      for (const auto& arg : rest) {
        if (arg == "--help" || arg == "-h") {
          std::printf("%s\n", command.usage().c_str());
          return kExitOk;
        }
      }
      return run_guarded(command, rest);
    }
    names.push_back(command.name);
  }
  std::fprintf(stderr, "scalestudy: unknown command '%s'", args[0].c_str());
  if (auto suggestion = scalestudy::nearest_name(args[0], names)) {
    std::fprintf(stderr, " (did you mean '%s'?)", suggestion->c_str());
  }
  std::fprintf(stderr, "\nrun `scalestudy --help` for the list of commands\n");
  return kExitUsage;
}
