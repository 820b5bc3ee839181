// CheckpointStore: a training run's checkpoints on disk, in its run directory:
//   <out-dir>/checkpoint/step-<S>/rank<R>.pt   every rank's own state at global step S
//   <out-dir>/checkpoint/MANIFEST              the complete checkpoint to resume from
// A shard is written to a temporary name, fsynced and renamed; the manifest is written the
// same way by rank 0 only after every rank's shard exists, then older step folders are
// removed. A reader that trusts only the manifest therefore never sees a partial
// checkpoint, whichever moment a process was killed. The manifest also records the world
// size and the run's configuration (its flags, less those that cannot change the result):
// a run that finds a checkpoint of another configuration refuses to resume instead of
// silently mixing two runs. Torch-free; stateless apart from the folder's path.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "harness/core/status.hpp"

namespace scalestudy::train {

struct CheckpointManifest {
  int64_t global_step = 0;  // the step the run resumes with
  int world_size = 1;
  int attempt = 1;                            // the attempt that wrote it (1: the run's first)
  std::map<std::string, std::string> config;  // see resumable_config()
};

// The flags of `resolved` that must match for a run to resume a checkpoint: all but those
// naming where and how the run is observed (out-dir, run-id, threads, timeouts, logging,
// checkpoint cadence, dumps).
std::map<std::string, std::string> resumable_config(std::map<std::string, std::string> resolved);

class CheckpointStore {
 public:
  explicit CheckpointStore(const std::string& out_dir);

  // Whether `out_dir` holds a committed checkpoint (its manifest).
  static bool has_checkpoint(const std::string& out_dir);
  const std::string& directory() const { return directory_; }
  std::string shard_path(int64_t global_step, int rank) const;

  // Makes step-<S>/ and returns the temporary path to write rank R's shard to; publish_shard
  // then syncs and renames it to shard_path().
  Result<std::string> prepare_shard(int64_t global_step, int rank) const;
  Status publish_shard(int64_t global_step, int rank) const;
  // Rank 0, once every rank published its shard: writes the manifest atomically and
  // removes every other step folder.
  Status commit(const CheckpointManifest& manifest) const;

  // Rank 0, once the run completed: removes the checkpoint folder, so that a later run in
  // the same folder starts afresh.
  Status remove() const;

  // The committed manifest; nullopt when there is none.
  Result<std::optional<CheckpointManifest>> read_manifest() const;

 private:
  std::string step_directory(int64_t global_step) const;
  std::string directory_;
};

// OK when `manifest` was written by a run of this configuration and world size; otherwise
// an error naming the differences and how to start over.
Status check_resumable(const CheckpointManifest& manifest, const std::string& directory,
                       const std::map<std::string, std::string>& config, int world_size);

}  // namespace scalestudy::train
