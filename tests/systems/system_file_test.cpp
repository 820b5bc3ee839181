// Well-formed system files: the shipped ones check, `extends` merges a parent under its
// child, a variant lays its overlay on top, the hash follows what changes how runs run,
// the search path lets a user's file shadow a shipped one, and detect matches host names.
#include <doctest/doctest.h>

#include <filesystem>

#include "orchestrator/systems/system_catalog.hpp"
#include "orchestrator/systems/system_document.hpp"
#include "tests/systems/system_files.hpp"

namespace scalestudy::systems {
namespace {

using testing::SystemFiles;

SystemSpec resolved(const SystemSearchPath& path, const std::string& label) {
  Result<SystemSpec> system = resolve_system(path, label);
  INFO(label << ": " << (system ? "" : system.status().message()));
  REQUIRE(system);
  return *system;
}

TEST_CASE("every shipped system, and each of its variants, checks") {
  SystemSearchPath path{{SystemFiles::shipped_dir()}};
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(SystemFiles::shipped_dir())) {
    Status checked = check_system_file(path, entry.path().string());
    INFO(entry.path().string() << ": " << checked.message());
    CHECK(checked);
    ++files;
  }
  CHECK(files >= 5);
  for (const char* id : {"local", "testcluster-small", "testcluster-big", "example-h100"}) {
    CHECK(find_system_file(path, id));
  }
}

TEST_CASE("a child system inherits its parent's fields and overrides key by key") {
  SystemSearchPath path{{SystemFiles::shipped_dir()}};
  SystemSpec small = resolved(path, "testcluster-small");
  CHECK(small.scheduler == "slurm");
  CHECK(small.scheduler_keys.at("partition") == "small");
  CHECK(small.node.cores == 4);         // from testcluster
  CHECK(small.node.memory_mb == 2000);  // from testcluster
  CHECK(small.limits.max_nodes == 2);   // its own
  CHECK(small.limits.max_time_minutes == 5);
  CHECK(small.defaults.time_minutes == 5);  // its own, over the parent's 10
  SystemSpec big = resolved(path, "testcluster-big");
  CHECK(big.limits.max_nodes == 4);
  CHECK(big.defaults.time_minutes == 10);  // the parent's
  CHECK(small.hash != big.hash);
}

TEST_CASE("a variant overlays the system, and keeps what it does not set") {
  SystemSearchPath path{{SystemFiles::shipped_dir()}};
  SystemSpec base = resolved(path, "example-h100");
  SystemSpec debug = resolved(path, "example-h100:debug");
  CHECK(base.variants == std::vector<std::string>{"debug"});
  CHECK(debug.variant == "debug");
  CHECK(system_label(debug) == "example-h100:debug");
  CHECK(base.scheduler_keys.at("partition") == "gpu-h100");
  CHECK(debug.scheduler_keys.at("partition") == "gpu-h100-debug");
  CHECK(debug.scheduler_keys.at("account") == "my-project");
  CHECK(base.limits.max_nodes == 32);
  CHECK(debug.limits.max_nodes == 2);
  CHECK(debug.limits.max_jobs == 100);
  CHECK(debug.node.gpus == 4);
  CHECK(debug.node.gpu_model == "NVIDIA H100 80GB HBM3");
  CHECK(debug.peak.tflops.at("bf16") == doctest::Approx(989.4));
  CHECK(debug.peak.link_gb_per_s == doctest::Approx(50));
  CHECK(debug.srun_flags == std::vector<std::string>{"--cpu-bind=cores", "--gpu-bind=closest"});
  CHECK(debug.field_locations.at("limits.max_nodes").line > 0);
  CHECK(base.hash != debug.hash);
}

TEST_CASE("the hash follows what changes how runs run, not how the file is written") {
  SystemFiles files("hash");
  const std::string block =
      "scheduler:\n  kind: slurm\n  partition: gpu\nnode:\n  gpus: 4\n  cores: 32\n";
  const std::string flow =
      "# the same content\nnode: {cores: 32, gpus: 4}\nscheduler: {partition: gpu, kind: slurm}\n";
  const std::string described = block + "description: a different text\n";
  const std::string detected = block + "detect: {hostname: 'gpu[0-9]+'}\n";
  const std::string quoted_and_converted =
      "scheduler: {kind: 'slurm', partition: \"gpu\"}\nnode: {gpus: '4', cores: 32}\n"
      "peak: {tflops: {bf16: 100}}\n";
  const std::string other =
      "scheduler:\n  kind: slurm\n  partition: cpu\nnode:\n  gpus: 4\n  cores: 32\n";
  files.write("block", block);
  files.write("flow", flow);
  files.write("described", described);
  files.write("detected", detected);
  files.write("other", other);
  files.write("quoted", quoted_and_converted);
  files.write("hour", "scheduler: {kind: slurm}\nlimits: {max_time: 60}\nnode: {memory: 2G}\n");
  files.write("minutes",
              "scheduler: {kind: slurm}\nlimits: {max_time: '01:00:00'}\nnode: {memory: 2048M}\n");
  // How jobs are sent and what is checked before submit: not how a run runs.
  files.write("sent",
              "scheduler:\n  kind: slurmrest\n  partition: gpu\n  url: unix:/a\nnode:\n"
              "  gpus: 4\n  cores: 32\nlimits: {max_nodes: 2, max_time: 60, max_jobs: 9}\n");
  files.write("sent-elsewhere",
              "scheduler: {kind: slurmrest, partition: gpu, url: 'https://h:1'}\n"
              "node: {gpus: 4, cores: 32}\nlimits: {max_nodes: 64}\n");
  files.write("local-2", "scheduler: {kind: local, max_parallel: 2}\n");
  files.write("local-8", "scheduler: {kind: local, max_parallel: 8}\n");
  CHECK(resolved(files.path(), "sent").hash == resolved(files.path(), "sent-elsewhere").hash);
  CHECK(resolved(files.path(), "local-2").hash == resolved(files.path(), "local-8").hash);
  const std::string hash = resolved(files.path(), "block").hash;
  CHECK(hash.size() == 16);
  CHECK(resolved(files.path(), "flow").hash == hash);
  CHECK(resolved(files.path(), "described").hash == hash);
  CHECK(resolved(files.path(), "detected").hash == hash);
  CHECK(resolved(files.path(), "quoted").hash == hash);  // quotes, and a peak: reports only
  CHECK(resolved(files.path(), "other").hash != hash);
  CHECK(resolved(files.path(), "hour").hash == resolved(files.path(), "minutes").hash);
}

TEST_CASE("variants come with extends: a parent's variant applies over the whole child") {
  SystemFiles files("variants");
  files.write("site",
              "scheduler: {kind: slurm, partition: batch, qos: normal}\n"
              "detect: {hostname: 'site-[0-9]+'}\n"
              "variants:\n  debug: {scheduler: {partition: debug}}\n"
              "  long: {limits: {max_time: '2-00:00:00'}}\n");
  files.write("site-gpu",
              "extends: site\nscheduler: {partition: gpu}\nnode: {gpus: 4}\n"
              "variants:\n  long: {scheduler: {qos: long}}\n");
  SystemSpec gpu = resolved(files.path(), "site-gpu");
  CHECK(gpu.scheduler_keys.at("partition") == "gpu");
  CHECK(gpu.variants == std::vector<std::string>{"debug", "long"});
  CHECK(gpu.detect_hostname.empty());  // the parent's hosts are not the child's
  // The parent's debug overlay lies over the merged child, partition included.
  SystemSpec debug = resolved(files.path(), "site-gpu:debug");
  CHECK(debug.scheduler_keys.at("partition") == "debug");
  CHECK(debug.node.gpus == 4);
  // The child's `long` merges with the parent's `long` key by key.
  SystemSpec long_jobs = resolved(files.path(), "site-gpu:long");
  CHECK(long_jobs.scheduler_keys.at("qos") == "long");
  CHECK(long_jobs.limits.max_time_minutes == 2 * 24 * 60);
  CHECK(long_jobs.scheduler_keys.at("partition") == "gpu");
}

TEST_CASE("a user's system shadows a shipped one of the same id; local is built in") {
  SystemFiles files("shadow");
  files.write("testcluster-small",
              "scheduler: {kind: slurm, partition: mine}\nlimits: {max_nodes: 1}\n");
  SystemSpec mine = resolved(files.path(), "testcluster-small");
  CHECK(mine.scheduler_keys.at("partition") == "mine");
  CHECK(mine.file == (files.dir / "testcluster-small.yaml").string());
  bool listed = false;
  for (const SystemListing& listing : list_systems(files.path())) {
    if (listing.file.id != "testcluster-small") continue;
    listed = true;
    CHECK(listing.file.shadowed ==
          std::vector<std::string>{SystemFiles::shipped_dir() + "/testcluster-small.yaml"});
  }
  CHECK(listed);

  SystemSearchPath empty{{files.dir.string()}};
  SystemSpec local = resolved(empty, "local");
  CHECK(local.scheduler == "local");
  CHECK(local.file == kBuiltinLocalFile);
  CHECK(local.hash == resolved(SystemSearchPath{{SystemFiles::shipped_dir()}}, "local").hash);
}

TEST_CASE("detect: the first system whose pattern matches the whole host name") {
  SystemFiles files("detect");
  files.write("alpha", "scheduler: {kind: slurm}\ndetect: {hostname: 'alpha-login[0-9]'}\n");
  files.write("beta", "scheduler: {kind: slurm}\ndetect: {hostname: '(beta|gamma)-n[0-9]+'}\n");
  files.write("catchall", "scheduler: {kind: slurm}\ndetect: {hostname: '.*-n[0-9]+'}\n");
  SystemSearchPath path{{files.dir.string()}};
  CHECK(detect_system(path, "alpha-login1").id == "alpha");
  CHECK(detect_system(path, "gamma-n17").id == "beta");  // catchall matches too, but later
  CHECK(detect_system(path, "delta-n3").id == "catchall");
  CHECK_FALSE(detect_system(path, "alpha-login1.example.org").id);  // the whole name
  CHECK_FALSE(detect_system(path, "laptop").id);
  CHECK(detect_system(path, "laptop").problems.empty());
  files.write("broken", "scheduler: {kind: slurm}\nnode: {gpus: many}\n");
  DetectedSystem with_broken = detect_system(path, "gamma-n17");
  CHECK(with_broken.id == "beta");
  REQUIRE(with_broken.problems.size() == 1);
  CHECK(with_broken.problems[0].find("broken.yaml:2:14") != std::string::npos);
}

}  // namespace
}  // namespace scalestudy::systems
