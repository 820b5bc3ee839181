// CheckpointStore: the manifest round trip, the configuration check before a resume and the
// layout a commit leaves behind. No LibTorch: shards are plain files here.
#include "harness/train/checkpoint_store.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "tests/harness/child_process.hpp"

namespace scalestudy::train {
namespace {

namespace fs = std::filesystem;

// A shard "written" the way the training loop does: to the temporary path, then published.
void write_shard(const CheckpointStore& store, int64_t step, int rank) {
  auto path = store.prepare_shard(step, rank);
  REQUIRE(path);
  std::ofstream(*path) << "state of rank " << rank;
  REQUIRE(store.publish_shard(step, rank));
}

}  // namespace

TEST_CASE("a committed checkpoint: its manifest reads back, older steps are gone") {
  const std::string out_dir = testing::fresh_dir("checkpoint-store");
  CheckpointStore store(out_dir);
  CHECK_FALSE(CheckpointStore::has_checkpoint(out_dir));
  auto none = store.read_manifest();
  REQUIRE(none);
  CHECK_FALSE(*none);

  CheckpointManifest manifest;
  manifest.world_size = 2;
  manifest.config = resumable_config(
      {{"lr", "0.1"}, {"model", "small-cnn"}, {"out-dir", out_dir}, {"threads", "4"}});
  for (int64_t step : {10, 20}) {
    write_shard(store, step, 0);
    write_shard(store, step, 1);
    manifest.global_step = step;
    manifest.attempt = step == 10 ? 1 : 2;
    REQUIRE(store.commit(manifest));
  }
  // An interrupted later checkpoint: shards without a manifest naming them.
  write_shard(store, 30, 0);

  CHECK(CheckpointStore::has_checkpoint(out_dir));
  auto read = store.read_manifest();
  REQUIRE(read);
  REQUIRE(*read);
  CHECK((*read)->global_step == 20);
  CHECK((*read)->world_size == 2);
  CHECK((*read)->attempt == 2);
  CHECK((*read)->config ==
        std::map<std::string, std::string>{{"lr", "0.1"}, {"model", "small-cnn"}});
  CHECK_FALSE(fs::exists(store.shard_path(10, 0)));
  CHECK(fs::exists(store.shard_path(20, 1)));
  CHECK_FALSE(fs::exists(store.shard_path(20, 1) + ".tmp"));

  REQUIRE(store.remove());
  CHECK_FALSE(CheckpointStore::has_checkpoint(out_dir));
}

TEST_CASE("a checkpoint of another configuration or world size is refused, naming why") {
  CheckpointManifest manifest;
  manifest.world_size = 2;
  manifest.config = {{"lr", "0.1"}, {"seed", "1"}};
  CHECK(check_resumable(manifest, "/runs/x/checkpoint", {{"lr", "0.1"}, {"seed", "1"}}, 2));

  Status refused = check_resumable(manifest, "/runs/x/checkpoint",
                                   {{"lr", "0.2"}, {"seed", "1"}, {"epochs", "3"}}, 4);
  REQUIRE_FALSE(refused);
  const std::string& message = refused.message();
  CHECK(message.find("/runs/x/checkpoint") != std::string::npos);
  CHECK(message.find("world size 2 there, 4 here") != std::string::npos);
  CHECK(message.find("--lr '0.1' there, '0.2' here") != std::string::npos);
  CHECK(message.find("--epochs '(none)' there, '3' here") != std::string::npos);
  CHECK(message.find("--seed") == std::string::npos);
  CHECK(message.find("remove that folder") != std::string::npos);
}

TEST_CASE("a damaged manifest is an error, not a fresh start") {
  const std::string out_dir = testing::fresh_dir("checkpoint-store-damaged");
  fs::create_directories(out_dir + "/checkpoint");
  std::ofstream(out_dir + "/checkpoint/MANIFEST") << "global_step=12\nworld_size=two\n";
  auto read = CheckpointStore(out_dir).read_manifest();
  REQUIRE_FALSE(read);
  CHECK(read.status().message().find("'two' is not a number for world_size") != std::string::npos);
}

}  // namespace scalestudy::train
