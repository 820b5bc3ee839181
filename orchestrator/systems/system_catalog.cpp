#include "orchestrator/systems/system_catalog.hpp"

#include <fstream>
#include <regex>
#include <sstream>

#include "orchestrator/systems/system_document.hpp"
#include "orchestrator/systems/system_schema.hpp"

namespace scalestudy::systems {
namespace {

Result<SystemSpec> checked(Result<SystemDocument> document) {
  if (!document) return document.status();
  Diagnostics diagnostics;
  SystemSpec system = read_system(*document, diagnostics);
  if (!diagnostics.empty()) return diagnostics.to_status();
  return system;
}

std::string describe_scheduler(const SystemSpec& system) {
  std::string text = system.scheduler;
  if (auto partition = system.scheduler_keys.find("partition");
      partition != system.scheduler_keys.end()) {
    text += " " + partition->second;
  }
  return text;
}

std::string describe_node(const SystemSpec& system) {
  std::string text;
  if (system.node.gpus > 0) text = std::to_string(system.node.gpus) + " GPU";
  if (system.node.cores > 0) {
    text += (text.empty() ? "" : ", ") + std::to_string(system.node.cores) + " cores";
  }
  return text.empty() ? "-" : text;
}

}  // namespace

Result<SystemSpec> resolve_system(const SystemSearchPath& path, const std::string& label) {
  return checked(load_system_document(path, label));
}

Status check_system_file(const SystemSearchPath& path, const std::string& file) {
  Result<SystemSpec> base = checked(load_system_document_file(path, file, ""));
  if (!base) return base.status();
  std::string problems;
  for (const std::string& variant : base->variants) {
    Result<SystemSpec> each = checked(load_system_document_file(path, file, variant));
    if (!each) problems += (problems.empty() ? "" : "\n") + each.status().message();
  }
  return problems.empty() ? Status::ok() : Status::error(problems);
}

std::vector<SystemListing> list_systems(const SystemSearchPath& path) {
  std::vector<SystemListing> listings;
  bool local_listed = false;
  for (SystemFile& file : list_system_files(path)) {
    local_listed = local_listed || file.id == "local";
    Result<SystemSpec> system = checked(load_system_document_file(path, file.path, ""));
    listings.push_back({std::move(file), std::move(system)});
  }
  if (!local_listed) {
    Result<SystemSpec> local = resolve_system(path, "local");
    listings.insert(
        listings.begin(),
        {SystemFile{"local", local ? local->file : kBuiltinLocalFile, {}}, std::move(local)});
  }
  return listings;
}

DetectedSystem detect_system(const SystemSearchPath& path, const std::string& hostname) {
  DetectedSystem detected;
  for (const SystemListing& listing : list_systems(path)) {
    if (!listing.system) {
      detected.problems.push_back(listing.system.status().message());
      continue;
    }
    const std::string& pattern = listing.system->detect_hostname;
    if (pattern.empty() || detected.id) continue;
    try {
      if (std::regex_match(hostname, std::regex(pattern))) detected.id = listing.file.id;
    } catch (const std::regex_error& error) {  // a pattern too complex for this host name
      detected.problems.push_back(listing.system->file + ": detect.hostname '" + pattern +
                                  "' on '" + hostname + "': " + error.what());
    }
  }
  return detected;
}

std::vector<std::string> system_list_row(const SystemListing& listing) {
  const SystemSpec& system = *listing.system;
  std::string variants;
  for (const std::string& name : system.variants) variants += (variants.empty() ? "" : ",") + name;
  std::string file = system.file;
  for (const std::string& shadowed : listing.file.shadowed) file += " (shadows " + shadowed + ")";
  return {system.id,
          describe_scheduler(system),
          describe_node(system),
          system.limits.max_nodes ? std::to_string(*system.limits.max_nodes) : "-",
          variants.empty() ? "-" : variants,
          file};
}

std::string system_file_text(const SystemSpec& system) {
  if (system.file == kBuiltinLocalFile) return system.resolved_yaml;
  std::ifstream in(system.file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> system_files_to_check(const SystemSearchPath& path,
                                               const std::vector<std::string>& files) {
  std::vector<std::string> checked = files;
  if (checked.empty()) {
    for (const SystemFile& file : list_system_files(path)) checked.push_back(file.path);
  }
  return checked;
}

}  // namespace scalestudy::systems
