// FakeRoot: a temporary directory standing in for "/" (fake /proc, /sys, /etc trees and
// fake commands on a private PATH), removed when it goes out of scope. Test helper.
#pragma once

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "orchestrator/sysinfo/probe.hpp"
#include "orchestrator/sysinfo/section.hpp"

namespace scalestudy::sysinfo::testing {

class FakeRoot {
 public:
  FakeRoot() {
    std::string pattern = (std::filesystem::temp_directory_path() / "sysinfo-XXXXXX").string();
    dir_ = mkdtemp(pattern.data());
    std::filesystem::create_directories(dir_ + "/bin");
  }
  ~FakeRoot() { std::filesystem::remove_all(dir_); }
  FakeRoot(const FakeRoot&) = delete;
  FakeRoot& operator=(const FakeRoot&) = delete;

  const std::string& dir() const { return dir_; }
  std::string bin() const { return dir_ + "/bin"; }

  // A probe that sees only this tree, with bin() as its whole PATH and no NVML.
  Probe probe() const {
    ProbeOptions options;
    options.root = dir_;
    options.env["PATH"] = bin();
    options.nvml_library = dir_ + "/no-libnvidia-ml.so.1";
    return Probe(options);
  }

  // Writes `contents` at `path` (absolute, as the probe sees it) under the fake root.
  void write(const std::string& path, const std::string& contents) const {
    std::filesystem::path full = dir_ + path;
    std::filesystem::create_directories(full.parent_path());
    std::ofstream(full) << contents;
  }
  void make_dir(const std::string& path) const { std::filesystem::create_directories(dir_ + path); }

  // An executable shell script `name` in bin() running `body`.
  void command(const std::string& name, const std::string& body) const {
    std::string path = bin() + "/" + name;
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    chmod(path.c_str(), 0755);
  }

 private:
  std::string dir_;
};

// The value of the fact `key` in `section`; "<absent>" when the section has no such fact.
inline std::string fact(const Section& section, const std::string& key) {
  for (const auto& entry : section.facts) {
    if (entry.key == key) return entry.value;
  }
  return "<absent>";
}

inline const Fact* find_fact(const Section& section, const std::string& key) {
  for (const auto& entry : section.facts) {
    if (entry.key == key) return &entry;
  }
  return nullptr;
}

}  // namespace scalestudy::sysinfo::testing
