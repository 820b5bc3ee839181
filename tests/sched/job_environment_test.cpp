// A secret reaches a job only through the submitter's environment: a study may not write
// one under env:, one under env_passthrough is in no job script, and sbatch exports every
// variable but the secret-looking ones the runs did not ask for.
#include "orchestrator/sched/job_environment.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "orchestrator/sched/render/job_script.hpp"
#include "orchestrator/sched/slurm_scheduler.hpp"
#include "orchestrator/study/secret_names.hpp"
#include "orchestrator/study/study.hpp"
#include "tests/sched/prepared_run_fixture.hpp"

using namespace scalestudy;
using namespace scalestudy::sched;

namespace {

const char kStudy[] = R"yaml(
study: secrets
kind: strong
scale: [1]
global_batch: 64
workload: {model: tiny}
env:
  NCCL_DEBUG: INFO
)yaml";

const Environment kSubmitter = {{"PATH", "/usr/bin"},
                                {"NCCL_DEBUG", "WARN"},
                                {"SCALESTUDY_PACKED_RECORD_WAIT_S", "15"},
                                {"SLURM_JWT", "jwt-value"},
                                {"MLFLOW_TRACKING_TOKEN", "mlflow-value"},
                                {"AWS_SECRET_ACCESS_KEY", "aws-value"},
                                {"HF_TOKEN", "hf-value"}};

}  // namespace

TEST_CASE("a secret-named env value is refused: it would be stored in scripts and databases") {
  auto study = load_study_text(std::string(kStudy) + "  HF_TOKEN: hf-value\n", "secrets.yaml");
  REQUIRE_FALSE(study.is_ok());
  const std::string message = study.status().message();
  INFO(message);
  CHECK(message.find("secrets.yaml:9:3: field 'env.HF_TOKEN'") != std::string::npos);
  CHECK(message.find("'HF_TOKEN' looks like a secret") != std::string::npos);
  CHECK(message.find("env_passthrough") != std::string::npos);
  CHECK(message.find("hf-value") == std::string::npos);
}

TEST_CASE("env_passthrough: the job gets the variable, no script holds its value") {
  auto study = load_study_text(std::string(kStudy) + "env_passthrough: [HF_TOKEN]\n", "s.yaml");
  REQUIRE_MESSAGE(study.is_ok(), study.status().message());
  PreparedRun run;
  run.spec = study->runs.front();
  CHECK(run.spec.env_passthrough == std::vector<std::string>{"HF_TOKEN"});
  RenderContext context;
  context.out_dir = "/results/secrets/runs/" + run.spec.run_id;
  context.binary_path = "/opt/bin/train";
  const std::string script = render_sbatch_script(run.spec, context);
  CHECK(script.find("export NCCL_DEBUG=INFO") != std::string::npos);
  CHECK(script.find("HF_TOKEN") == std::string::npos);
  CHECK(script.find("export SLURM_EXPORT_ENV=ALL") != std::string::npos);

  const std::string option = sbatch_export_list({&run}, kSubmitter);
  CHECK(option == "NCCL_DEBUG,PATH,SCALESTUDY_PACKED_RECORD_WAIT_S,HF_TOKEN");  // names only
  PreparedRun other;  // a run that did not ask for it
  CHECK(sbatch_export_list({&other}, kSubmitter) ==
        "NCCL_DEBUG,PATH,SCALESTUDY_PACKED_RECORD_WAIT_S");

  const Environment rest = rest_job_environment({&run}, kSubmitter);
  CHECK(rest == Environment{{"PATH", "/usr/bin"}, {"HF_TOKEN", "hf-value"}});
  CHECK(rest_job_environment({&other}, {}) ==
        Environment{{"PATH", "/usr/local/bin:/usr/bin:/bin"}});
}

TEST_CASE("env_passthrough names a variable, once, and not one env: sets") {
  auto both = load_study_text(std::string(kStudy) + "env_passthrough: [NCCL_DEBUG]\n", "b.yaml");
  REQUIRE_FALSE(both.is_ok());
  CHECK(both.status().message().find("'NCCL_DEBUG' is also set under env") != std::string::npos);
  auto bad = load_study_text(std::string(kStudy) + "env_passthrough: ['A B']\n", "c.yaml");
  REQUIRE_FALSE(bad.is_ok());
  CHECK(bad.status().message().find("not a valid environment variable name") != std::string::npos);
}

TEST_CASE("secret-looking names") {
  for (const char* name : {"HF_TOKEN", "SLURM_JWT", "aws_secret_access_key", "DB_PASSWORD",
                           "WANDB_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS"}) {
    CAPTURE(name);
    CHECK(looks_secret(name));
  }
  for (const char* name : {"PATH", "NCCL_DEBUG", "OMP_NUM_THREADS", "CUDA_VISIBLE_DEVICES"}) {
    CAPTURE(name);
    CHECK_FALSE(looks_secret(name));
  }
}

TEST_CASE("the sbatch backend names what a job exports; secret-looking variables stay out") {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("scalestudy-export-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "bin");
  // Stand-ins: sbatch records what it would export, the limit queries answer nothing.
  for (const char* name : {"scontrol", "sacctmgr", "squeue"}) {
    std::ofstream(dir / "bin" / name) << "#!/bin/sh\nexit 0\n";
  }
  std::ofstream(dir / "bin" / "sbatch") << "#!/bin/sh\nprintf '%s' \"$SBATCH_EXPORT\" >" +
                                               (dir / "exported").string() + "\necho 42\n";
  for (const auto& entry : fs::directory_iterator(dir / "bin")) {
    fs::permissions(entry.path(), fs::perms::owner_all);
  }
  const std::string old_path = std::getenv("PATH");
  setenv("PATH", ((dir / "bin").string() + ":" + old_path).c_str(), 1);
  setenv("SLURM_JWT", "jwt-value", 1);
  setenv("HF_TOKEN", "hf-value", 1);
  PreparedRun run = scalestudy::sched_testing::prepared_run(dir, "secrets", "r1", "#!/bin/bash\n");
  run.spec.env_passthrough = {"HF_TOKEN"};
  BatchOptions options;
  options.use_job_arrays = false;
  SlurmScheduler scheduler(options);
  auto submitted = scheduler.submit({run}, SubmitCallbacks{});
  setenv("PATH", old_path.c_str(), 1);
  unsetenv("SLURM_JWT");
  unsetenv("HF_TOKEN");
  REQUIRE_MESSAGE(submitted.is_ok(), submitted.status().message());
  std::ifstream in(dir / "exported");
  std::stringstream exported;
  exported << in.rdbuf();
  const std::string names = "," + exported.str() + ",";
  CHECK(names.find(",PATH,") != std::string::npos);
  CHECK(names.find(",HF_TOKEN,") != std::string::npos);
  CHECK(names.find(",SLURM_JWT,") == std::string::npos);
  CHECK(names.find("hf-value") == std::string::npos);
  fs::remove_all(dir);
}
