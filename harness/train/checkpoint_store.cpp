#include "harness/train/checkpoint_store.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "harness/core/run_layout.hpp"

namespace scalestudy::train {
namespace {

namespace fs = std::filesystem;

constexpr const char* kManifestName = "MANIFEST";
constexpr const char* kStepPrefix = "step-";
constexpr const char* kConfigPrefix = "config.";

// Flags that say where and how a run is observed, not what it computes.
const std::set<std::string> kObservationFlags = {"run-id",
                                                 "out-dir",
                                                 "threads",
                                                 "timeout-s",
                                                 "world-size",
                                                 "telemetry-interval-ms",
                                                 "log-interval",
                                                 "checkpoint-every",
                                                 "checkpoint-on-signal",
                                                 "stop-check-every",
                                                 "checkpoint-stop-at-step",
                                                 "test-signal-at-step",
                                                 "test-kill-at-step",
                                                 "test-step-delay-ms",
                                                 "dump-params",
                                                 "dump-initial-state",
                                                 "instrument",
                                                 "profile-steps",
                                                 "target-val-accuracy",
                                                 "target-val-loss"};

Status errno_error(const std::string& what, const std::string& path) {
  return Status::error(what + " " + path + ": " + std::strerror(errno));
}

// fsync of a file or a folder (the latter makes a rename in it durable).
Status sync_path(const std::string& path, bool is_directory) {
  int fd = open(path.c_str(), is_directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
  if (fd < 0) return errno_error("cannot open", path);
  int synced = fsync(fd);
  close(fd);
  if (synced != 0) return errno_error("cannot fsync", path);
  return Status::ok();
}

Status rename_synced(const std::string& from, const std::string& to) {
  if (Status synced = sync_path(from, false); !synced) return synced;
  if (std::rename(from.c_str(), to.c_str()) != 0) return errno_error("cannot rename to", to);
  return sync_path(fs::path(to).parent_path().string(), true);
}

std::string temporary(const std::string& path) {
  return path + ".tmp";
}

}  // namespace

std::map<std::string, std::string> resumable_config(std::map<std::string, std::string> resolved) {
  for (const std::string& name : kObservationFlags) resolved.erase(name);
  return resolved;
}

CheckpointStore::CheckpointStore(const std::string& out_dir)
    : directory_((fs::path(out_dir) / "checkpoint").string()) {}

bool CheckpointStore::has_checkpoint(const std::string& out_dir) {
  std::error_code error;
  return fs::is_regular_file(fs::path(CheckpointStore(out_dir).directory()) / kManifestName, error);
}

std::string CheckpointStore::step_directory(int64_t global_step) const {
  return (fs::path(directory_) / (kStepPrefix + std::to_string(global_step))).string();
}

std::string CheckpointStore::shard_path(int64_t global_step, int rank) const {
  return run_layout::in_dir(step_directory(global_step), run_layout::checkpoint_shard_name(rank));
}

Result<std::string> CheckpointStore::prepare_shard(int64_t global_step, int rank) const {
  std::error_code error;
  fs::create_directories(step_directory(global_step), error);
  if (error) {
    return Status::error("cannot create " + step_directory(global_step) + ": " + error.message());
  }
  return temporary(shard_path(global_step, rank));
}

Status CheckpointStore::publish_shard(int64_t global_step, int rank) const {
  const std::string path = shard_path(global_step, rank);
  return rename_synced(temporary(path), path);
}

Status CheckpointStore::commit(const CheckpointManifest& manifest) const {
  const std::string path = (fs::path(directory_) / kManifestName).string();
  {
    std::ofstream out(temporary(path), std::ios::trunc);
    out << "global_step=" << manifest.global_step << "\n"
        << "world_size=" << manifest.world_size << "\n"
        << "attempt=" << manifest.attempt << "\n";
    for (const auto& [name, value] : manifest.config) {
      out << kConfigPrefix << name << "=" << value << "\n";
    }
    if (!out.flush()) return Status::error("cannot write " + temporary(path));
  }
  if (Status renamed = rename_synced(temporary(path), path); !renamed) return renamed;
  const std::string kept = fs::path(step_directory(manifest.global_step)).filename().string();
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(directory_, error)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && name.rfind(kStepPrefix, 0) == 0 && name != kept) {
      fs::remove_all(entry.path(), error);
    }
  }
  return Status::ok();
}

Status CheckpointStore::remove() const {
  std::error_code error;
  fs::remove_all(directory_, error);
  if (error) return Status::error("cannot remove " + directory_ + ": " + error.message());
  return Status::ok();
}

Result<std::optional<CheckpointManifest>> CheckpointStore::read_manifest() const {
  const std::string path = (fs::path(directory_) / kManifestName).string();
  std::ifstream in(path);
  if (!in) return std::optional<CheckpointManifest>();
  CheckpointManifest manifest;
  std::set<std::string> seen;
  for (std::string line; std::getline(in, line);) {
    const size_t equals = line.find('=');
    if (equals == std::string::npos) return Status::error(path + ": malformed line '" + line + "'");
    const std::string key = line.substr(0, equals), value = line.substr(equals + 1);
    try {
      if (key == "global_step") {
        manifest.global_step = std::stoll(value);
      } else if (key == "world_size") {
        manifest.world_size = std::stoi(value);
      } else if (key == "attempt") {
        manifest.attempt = std::stoi(value);
      } else if (key.rfind(kConfigPrefix, 0) == 0) {
        manifest.config[key.substr(std::string(kConfigPrefix).size())] = value;
      }
    } catch (const std::exception&) {
      return Status::error(path + ": '" + value + "' is not a number for " + key);
    }
    seen.insert(key);
  }
  for (const char* required : {"global_step", "world_size", "attempt"}) {
    if (seen.count(required) == 0) return Status::error(path + ": no " + required);
  }
  return std::optional<CheckpointManifest>(std::move(manifest));
}

Status check_resumable(const CheckpointManifest& manifest, const std::string& directory,
                       const std::map<std::string, std::string>& config, int world_size) {
  std::vector<std::string> differences;
  if (manifest.world_size != world_size) {
    differences.push_back("world size " + std::to_string(manifest.world_size) + " there, " +
                          std::to_string(world_size) + " here");
  }
  std::set<std::string> names;
  for (const auto& entry : manifest.config) names.insert(entry.first);
  for (const auto& entry : config) names.insert(entry.first);
  for (const std::string& name : names) {
    auto theirs = manifest.config.find(name);
    auto ours = config.find(name);
    const std::string their_value = theirs == manifest.config.end() ? "(none)" : theirs->second;
    const std::string our_value = ours == config.end() ? "(none)" : ours->second;
    if (their_value != our_value) {
      differences.push_back("--" + name + " '" + their_value + "' there, '" + our_value + "' here");
    }
  }
  if (differences.empty()) return Status::ok();
  std::ostringstream message;
  message << "the checkpoint in " << directory << " belongs to a run of another configuration (";
  for (size_t i = 0; i < differences.size(); ++i) message << (i ? "; " : "") << differences[i];
  message << "): refusing to resume; remove that folder to start this run from step 0";
  return Status::error(message.str());
}

}  // namespace scalestudy::train
