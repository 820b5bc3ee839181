#include <doctest/doctest.h>

#include <fstream>

#include "orchestrator/results/ingest/ingest.hpp"
#include "orchestrator/results/query/export_csv.hpp"
#include "tests/results/fixture.hpp"

using namespace scalestudy;
using namespace scalestudy::results;
using namespace scalestudy::results::testing;

namespace {

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream file(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(file, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("export writes runs.csv and epochs.csv with the seeds' columns") {
  StudyFixture study("export", "strong");
  FixtureRun run;
  run.run_id = "x000000000000001";
  run.world_size = 2;
  run.tasks_per_node = 2;
  run.gpus_per_node = 2;
  run.varied = {{"precision", "bf16"}};
  study.add_run(run);
  REQUIRE(ingest_study(study.db_path()).is_ok());
  auto files = export_csv(study.db_path(), study.dir() + "/csv");
  REQUIRE_MESSAGE(files.is_ok(), files.status().message());
  REQUIRE(files->size() == 2);

  const auto runs = lines_of(study.dir() + "/csv/runs.csv");
  REQUIRE(runs.size() == 2);
  CHECK(runs[0] ==
        "job_id,run_id,repeat,nodes,gpus,ranks,global_batch,per_gpu_batch,config,state,"
        "throughput_samples_per_s,time_per_epoch_s,step_ms_median,final_val_acc,final_val_loss,"
        "epochs,gpu_mem_peak_bytes,cpu_rss_peak_bytes,git_commit,git_dirty,hostname,slurm_job_id,"
        "reason");
  CHECK(runs[1].rfind("job-x000000000000001,x000000000000001,0,1,2,2,64,64,", 0) == 0);
  CHECK(runs[1].find("\"{\"\"precision\"\":\"\"bf16\"\"}\"") != std::string::npos);
  CHECK(runs[1].find(",1000,5,10,0.6,,2,") != std::string::npos);
  CHECK(runs[1].find(",0123abcd,,host0,,") != std::string::npos);

  const auto epochs = lines_of(study.dir() + "/csv/epochs.csv");
  REQUIRE(epochs.size() == 3);
  CHECK(epochs[0].find("epoch,lr,train_loss,train_acc,val_loss,val_acc,samples_per_s,epoch_s,"
                       "git_commit") != std::string::npos);
}
