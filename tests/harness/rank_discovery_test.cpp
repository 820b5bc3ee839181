#include "harness/dist/rank_discovery.hpp"

#include "harness/dist/hostlist.hpp"
#include "tests/harness/torch_doctest.hpp"

namespace scalestudy::dist {

TEST_CASE("hostlist expansion covers SLURM's compressed forms") {
  auto plain = expand_hostlist("gpu07");
  REQUIRE(plain);
  CHECK(*plain == std::vector<std::string>{"gpu07"});

  auto mixed = expand_hostlist("node[1-3,5],gpu07");
  REQUIRE(mixed);
  CHECK(*mixed == std::vector<std::string>{"node1", "node2", "node3", "node5", "gpu07"});

  auto padded = expand_hostlist("n[08-11]");
  REQUIRE(padded);
  CHECK(*padded == std::vector<std::string>{"n08", "n09", "n10", "n11"});

  auto nested = expand_hostlist("r[1-2]n[01-02]-ib");
  REQUIRE(nested);
  CHECK(*nested == std::vector<std::string>{"r1n01-ib", "r1n02-ib", "r2n01-ib", "r2n02-ib"});

  for (const char* bad : {"node[1-3", "node]1", "node[3-1]", "node[a-b]", "a,,b"}) {
    auto result = expand_hostlist(bad);
    CHECK_MESSAGE(!result, bad);
    if (!result) CHECK(result.status().message().find(bad) != std::string::npos);
  }
}

TEST_CASE("no launcher variables: a single process") {
  auto info = discover_ranks({});
  REQUIRE(info);
  CHECK(info->convention == "single");
  CHECK(info->rank == 0);
  CHECK(info->world_size == 1);
  CHECK(info->master_addr == "127.0.0.1");
  CHECK(info->master_port == kDefaultMasterPort);
  CHECK(info->job_id.empty());
  CHECK(info->run_id.empty());
  CHECK(info->launch_id.empty());
}

TEST_CASE("torchrun variables") {
  auto info = discover_ranks({{"RANK", "5"},
                              {"WORLD_SIZE", "8"},
                              {"LOCAL_RANK", "1"},
                              {"LOCAL_WORLD_SIZE", "4"},
                              {"MASTER_ADDR", "node3"},
                              {"MASTER_PORT", "29400"},
                              {"SCALESTUDY_RUN_ID", "5f0c2a9e11d3b478"},
                              {"SCALESTUDY_LAUNCH_ID", "1796000000-4242"}});
  REQUIRE(info);
  CHECK(info->convention == "torchrun");
  CHECK(info->run_id == "5f0c2a9e11d3b478");  // the marks a rendezvous compares
  CHECK(info->launch_id == "1796000000-4242");
  CHECK(info->rank == 5);
  CHECK(info->world_size == 8);
  CHECK(info->local_rank == 1);
  CHECK(info->local_world_size == 4);
  CHECK(info->master_addr == "node3");
  CHECK(info->master_port == 29400);
}

TEST_CASE("SLURM variables: master is the first host of the nodelist, port from the job id") {
  Environment slurm = {{"SLURM_PROCID", "3"},
                       {"SLURM_NTASKS", "4"},
                       {"SLURM_LOCALID", "1"},
                       {"SLURM_NODEID", "1"},
                       {"SLURM_TASKS_PER_NODE", "2(x2)"},
                       {"SLURM_JOB_NODELIST", "gpu[12-13]"},
                       {"SLURM_JOB_ID", "4242"}};
  auto info = discover_ranks(slurm);
  REQUIRE(info);
  CHECK(info->convention == "slurm");
  CHECK(info->rank == 3);
  CHECK(info->world_size == 4);
  CHECK(info->local_rank == 1);
  CHECK(info->local_world_size == 2);
  CHECK(info->master_addr == "gpu12");
  CHECK(info->master_port == 20000 + 4242);
  CHECK(info->job_id == "4242");

  SUBCASE("an uneven tasks-per-node list gives each node its own count") {
    slurm["SLURM_TASKS_PER_NODE"] = "3,1";
    slurm["SLURM_LOCALID"] = "0";
    auto uneven = discover_ranks(slurm);
    REQUIRE(uneven);
    CHECK(uneven->local_world_size == 1);
  }
  SUBCASE("an srun step's own task count wins over the allocation's") {
    slurm["SLURM_NTASKS"] = "16";
    slurm["SLURM_STEP_NUM_TASKS"] = "4";
    auto step = discover_ranks(slurm);
    REQUIRE(step);
    CHECK(step->world_size == 4);
  }
  SUBCASE("torchrun inside an srun step: torchrun's variables take precedence") {
    slurm["RANK"] = "0";
    slurm["WORLD_SIZE"] = "2";
    slurm["LOCAL_RANK"] = "0";
    slurm["LOCAL_WORLD_SIZE"] = "2";
    auto nested = discover_ranks(slurm);
    REQUIRE(nested);
    CHECK(nested->convention == "torchrun");
    CHECK(nested->world_size == 2);
    CHECK(nested->master_addr == "gpu12");  // still from the nodelist: no MASTER_ADDR
    CHECK(nested->master_port == 20000 + 4242);
  }
}

TEST_CASE("derived ports differ between concurrent jobs and stay in range") {
  CHECK(derive_master_port("1000") != derive_master_port("1001"));
  for (const char* job : {"0", "12767", "12768", "19999", "987654321"}) {
    int port = derive_master_port(job);
    CHECK(port >= 20000);
    CHECK(port < 32768);  // below the ephemeral ports
  }
  CHECK(derive_master_port("12768") == 20000);
  CHECK(derive_master_port("") == kDefaultMasterPort);
  CHECK(derive_master_port("12_3") == kDefaultMasterPort);
}

TEST_CASE("inconsistent launcher variables are errors naming the variable") {
  auto bad_rank = discover_ranks({{"RANK", "x"}, {"WORLD_SIZE", "2"}});
  REQUIRE(!bad_rank);
  CHECK(bad_rank.status().message().find("RANK='x'") != std::string::npos);

  auto outside = discover_ranks({{"RANK", "2"}, {"WORLD_SIZE", "2"}});
  REQUIRE(!outside);
  CHECK(outside.status().message().find("outside world of 2") != std::string::npos);

  auto no_world = discover_ranks({{"SLURM_PROCID", "0"}});
  REQUIRE(!no_world);
  CHECK(no_world.status().message().find("SLURM_NTASKS") != std::string::npos);

  auto bad_nodes = discover_ranks(
      {{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}, {"SLURM_JOB_NODELIST", "n[1-"}});
  REQUIRE(!bad_nodes);
  CHECK(bad_nodes.status().message().find("SLURM_JOB_NODELIST") != std::string::npos);
}

}  // namespace scalestudy::dist
