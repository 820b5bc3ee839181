// `scalestudy systems`: the systems runs can execute on (systems/<id>.yaml, docs/systems.md):
// list them, show one (as written or resolved), check files, and detect this host's.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "orchestrator/cli/args.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/submission/system_choice.hpp"
#include "orchestrator/systems/system_catalog.hpp"
#include "orchestrator/systems/system_document.hpp"

namespace scalestudy::cli {
namespace {

const char kSystemsUsage[] =
    "usage: scalestudy systems list\n"
    "       scalestudy systems show ID[:VARIANT] [--resolved]\n"
    "       scalestudy systems check [FILE ...]\n"
    "       scalestudy systems detect [--hostname NAME]\n\n"
    "A system is where runs execute, as data: systems/<id>.yaml holds its scheduler (kind and\n"
    "that backend's settings: partition, account, qos, ...), what a node holds, srun flags,\n"
    "the runtime (modules, container, env), limits, default run settings, peak TFLOPS and\n"
    "link bandwidth, a host-name pattern, one parent (`extends`) and named `variants`\n"
    "(selected as ID:VARIANT). docs/systems.md documents every key.\n\n"
    "Files are searched in $SCALESTUDY_SYSTEMS (folders separated by ':'), then\n"
    "$XDG_CONFIG_HOME/scalestudy/systems (~/.config/...), then the shipped systems/; the\n"
    "first <id>.yaml wins.\n"
    "`local` (this machine, the local executor) is built in.\n\n"
    "  list        every system: id, scheduler, node, limits, variants and file\n"
    "  show        the file as written; --resolved: with its parents and the variant applied,\n"
    "              and the system's hash (of what changes how its runs run)\n"
    "  check       every FILE (default: every system on the path), each variant too; every\n"
    "              error at file:line:column\n"
    "  detect      the system whose detect.hostname matches this host (--hostname: another)\n\n"
    "exit codes: 0 ok; 1 a system has errors; 2 wrong arguments (a malformed ID);\n"
    "3 no such system.";

int usage_error(const std::string& message) {
  std::fprintf(stderr, "scalestudy systems: %s\n%s\n", message.c_str(), kSystemsUsage);
  return kExitUsage;
}

int list() {
  int exit_code = kExitOk;
  std::printf("%-22s %-22s %-16s %-9s %-14s %s\n", "id", "scheduler", "node", "max nodes",
              "variants", "file");
  for (const systems::SystemListing& listing :
       systems::list_systems(submission::system_search_path())) {
    if (!listing.system) {
      std::printf("%-22s error: %s\n", listing.file.id.c_str(),
                  listing.system.status().message().c_str());
      exit_code = kExitFailure;
      continue;
    }
    const std::vector<std::string> row = systems::system_list_row(listing);
    std::printf("%-22s %-22s %-16s %-9s %-14s %s\n", row[0].c_str(), row[1].c_str(), row[2].c_str(),
                row[3].c_str(), row[4].c_str(), row[5].c_str());
  }
  return exit_code;
}

int show(const std::string& label, bool resolved) {
  const systems::SystemSearchPath path = submission::system_search_path();
  auto parsed = systems::parse_system_label(label);
  if (!parsed) return usage_error(parsed.status().message());
  if (!systems::system_exists(path, parsed->first)) {
    std::fprintf(stderr, "scalestudy systems show: no system '%s' (systems list shows them)\n",
                 parsed->first.c_str());
    return kExitEnvironment;
  }
  auto system = systems::resolve_system(path, label);
  if (!system) {
    std::fprintf(stderr, "scalestudy systems show: %s\n", system.status().message().c_str());
    return kExitFailure;
  }
  if (!resolved) {
    std::cout << "# " << system->file << "\n" << systems::system_file_text(*system);
    return kExitOk;
  }
  std::cout << "# " << systems::system_label(*system) << ", hash " << system->hash << ", from "
            << system->file << "\n"
            << system->resolved_yaml;
  return kExitOk;
}

int check(const std::vector<std::string>& files) {
  const systems::SystemSearchPath path = submission::system_search_path();
  int exit_code = kExitOk;
  for (const std::string& file : systems::system_files_to_check(path, files)) {
    if (Status status = systems::check_system_file(path, file); !status) {
      std::fprintf(stderr, "%s\n", status.message().c_str());
      exit_code = kExitFailure;
    } else {
      std::printf("ok %s\n", file.c_str());
    }
  }
  return exit_code;
}

int detect(const std::string& hostname) {
  const systems::DetectedSystem detected =
      systems::detect_system(submission::system_search_path(), hostname);
  for (const std::string& problem : detected.problems) {
    std::fprintf(stderr, "warning: not considered: %s\n", problem.c_str());
  }
  if (detected.id) {
    std::printf("%s\n", detected.id->c_str());
  } else {
    std::printf("local\n");
    std::fprintf(stderr, "no system's detect.hostname matches '%s': the built-in local\n",
                 hostname.c_str());
  }
  return kExitOk;
}

int run_systems(const std::vector<std::string>& args) {
  auto parsed = parse_args(args, {{"--hostname"}, {"--resolved"}});
  if (!parsed) return usage_error(parsed.status().message());
  if (parsed->has("--help")) {
    std::puts(kSystemsUsage);
    return kExitOk;
  }
  const std::vector<std::string>& words = parsed->positionals;
  if (words.empty()) return usage_error("which action: list, show, check or detect?");
  const std::string& action = words[0];
  const std::vector<std::string> rest(words.begin() + 1, words.end());
  if (action == "list" && rest.empty()) return list();
  if (action == "show" && rest.size() == 1) return show(rest[0], parsed->has("--resolved"));
  if (action == "check") return check(rest);
  if (action == "detect" && rest.empty()) {
    return detect(parsed->value_or("--hostname", submission::this_host_name()));
  }
  return usage_error("unknown action or wrong arguments: '" + action + "'");
}

}  // namespace

extern const Command kSystemsCommand = {"systems", "list, show, check and detect systems",
                                        &fixed_usage<kSystemsUsage>, &run_systems};

}  // namespace scalestudy::cli
