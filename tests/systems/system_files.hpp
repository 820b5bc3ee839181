// A scratch folder of system files for the systems suites: write <id>.yaml files, search
// them first, then the shipped systems/.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "orchestrator/systems/system_search_path.hpp"

namespace scalestudy::testing {

struct SystemFiles {
  std::filesystem::path dir;

  explicit SystemFiles(const std::string& name)
      : dir(std::filesystem::temp_directory_path() /
            ("scalestudy-systems-" + name + "-" + std::to_string(getpid()))) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~SystemFiles() { std::filesystem::remove_all(dir); }

  std::string write(const std::string& id, const std::string& yaml) const {
    const auto path = dir / (id + ".yaml");
    std::ofstream(path) << yaml;
    return path.string();
  }

  static std::string shipped_dir() {
    return std::string(std::getenv("SCALESTUDY_SOURCE_DIR")) + "/systems";
  }

  // This folder, then the shipped systems.
  systems::SystemSearchPath path() const { return {{dir.string(), shipped_dir()}}; }
};

}  // namespace scalestudy::testing
