#include <doctest/doctest.h>

#include "orchestrator/sysinfo/sections.hpp"
#include "tests/sysinfo/fake_root.hpp"

namespace scalestudy::sysinfo {
namespace {

using testing::fact;
using testing::FakeRoot;

TEST_CASE("CUDA, cuDNN, NCCL and LibTorch versions are read from headers, saying which") {
  FakeRoot root;
  root.write("/usr/local/cuda/include/cuda_runtime_api.h", "#define CUDART_VERSION  12060\n");
  root.write("/usr/local/cuda/include/nccl.h",
             "#define NCCL_MAJOR 2\n#define NCCL_MINOR 27\n#define NCCL_PATCH 5\n"
             "#define NCCL_VERSION_CODE 22705\n");
  root.write("/usr/include/x86_64-linux-gnu/cudnn_version.h",
             "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 10\n#define CUDNN_PATCHLEVEL 2\n");
  root.write("/usr/include/torch/csrc/api/include/torch/version.h",
             "#define TORCH_VERSION \\\n  \"1.13.0\"\n#define TORCH_VERSION_MAJOR 1\n");
  root.write("/var/lib/dpkg/status",
             "Package: libtorch-dev\nStatus: install ok installed\nVersion: 1.13.1+dfsg-4\n\n"
             "Package: other\nStatus: install ok installed\nVersion: 1\n");
  root.command("nvcc",
               "printf 'nvcc: NVIDIA (R) Cuda compiler driver\\nCuda compilation tools, "
               "release 12.6, V12.6.77\\n'");

  Section software = probe_software(root.probe());
  CHECK(fact(software, "cuda_version") == "12.6");
  CHECK(fact(software, "nvcc_version") == "12.6.77");
  CHECK(fact(software, "nccl_version") == "2.27.5");
  CHECK(testing::find_fact(software, "nccl_version")->source ==
        "/usr/local/cuda/include/nccl.h (NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH)");
  CHECK(fact(software, "cudnn_version") == "9.10.2");
  CHECK(testing::find_fact(software, "cudnn_version")
            ->source.find("/usr/include/x86_64-linux-gnu/") == 0);
  // Debian's header continues the #define on the next line.
  CHECK(fact(software, "libtorch_version") == "1.13.0");
  CHECK(fact(software, "libtorch_package") == "1.13.1+dfsg-4");
  CHECK(fact(software, "libtorch_variant") == "CPU-only");
}

TEST_CASE("an unpacked libtorch named by LIBTORCH wins and its CUDA build is recognised") {
  FakeRoot root;
  root.write("/opt/libtorch/build-version", "2.5.1+cu124\n");
  root.write("/opt/libtorch/lib/libtorch_cuda.so", "");
  ProbeOptions options;
  options.root = root.dir();
  options.env["PATH"] = root.bin();
  options.env["LIBTORCH"] = "/opt/libtorch";
  Section software = probe_software(Probe(options));
  CHECK(fact(software, "libtorch_version") == "2.5.1+cu124");
  CHECK(fact(software, "libtorch_variant") == "CUDA");
  CHECK(testing::find_fact(software, "libtorch_version")->source == "/opt/libtorch/build-version");
  CHECK(fact(software, "nccl_version") == "");
  CHECK(testing::find_fact(software, "nccl_version")->source.find("no nccl.h in") == 0);
}

TEST_CASE("SLURM partitions, cluster name and QOS limits from sinfo/scontrol/sacctmgr") {
  FakeRoot root;
  root.command("sinfo", R"(if [ "$1" = --version ]; then echo 'slurm 23.02.7'; exit 0; fi
[ "$3" = '%P|%a|%l|%D|%c|%m|%G' ] || exit 3
printf 'gpu*|up|2-00:00:00|12|64|1031000|gpu:l40s:4\ncpu|up|7-00:00:00|200|48|192000|(null)\n')");
  root.command("scontrol",
               "printf 'ClusterName             = midway3\\nSLURM_VERSION = 23.02.7\\n'");
  root.command("sacctmgr",
               "printf 'normal|0|1-12:00:00|gres/gpu=8|10|50\\nhcn1|10|2-00:00:00||||\\n'");
  Section slurm = probe_slurm(root.probe());
  CHECK(fact(slurm, "slurm_status") == "available");
  CHECK(fact(slurm, "slurm_version") == "slurm 23.02.7");
  CHECK(fact(slurm, "slurm_cluster") == "midway3");
  CHECK(fact(slurm, "slurm_partitions") == "gpu,cpu");
  CHECK(fact(slurm, "slurm_default_partition") == "gpu");
  REQUIRE(slurm.tables.size() == 2);
  CHECK(slurm.tables[0].rows[0] ==
        std::vector<std::string>{"gpu*", "up", "2-00:00:00", "12", "64", "1031000", "gpu:l40s:4"});
  CHECK(slurm.tables[1].rows[1][0] == "hcn1");
  CHECK(slurm.tables[1].rows[1][2] == "2-00:00:00");
}

TEST_CASE("SLURM installed but without a controller is 'not configured', with the reason") {
  FakeRoot root;
  // As Debian's sinfo without a controller: even --version fails, dpkg knows the version.
  root.write("/var/lib/dpkg/status",
             "Package: slurm-client\nStatus: install ok installed\nVersion: 22.05.8-4+deb12u3\n");
  root.command(
      "sinfo",
      R"(echo 'sinfo: error: resolve_ctls_from_dns_srv: res_nsearch error: Unknown host' >&2
echo 'sinfo: fatal: Could not establish a configuration source' >&2
exit 1)");
  Section slurm = probe_slurm(root.probe());
  CHECK(fact(slurm, "slurm_status") == "not configured");
  CHECK(fact(slurm, "slurm_version") == "slurm 22.05.8-4+deb12u3");
  CHECK(testing::find_fact(slurm, "slurm_status")->source ==
        "`sinfo`: sinfo: fatal: Could not establish a configuration source");
  CHECK(slurm.tables.empty());
}

TEST_CASE("no sinfo on PATH: SLURM not installed") {
  FakeRoot root;
  Section slurm = probe_slurm(root.probe());
  CHECK(fact(slurm, "slurm_status") == "not installed");
  CHECK(slurm.tables.empty());
}

TEST_CASE("compilers report the first line of --version, or where they were not found") {
  FakeRoot root;
  root.command("gcc", "echo 'gcc (GCC) 11.4.1 20230605'");
  root.command("c++", "echo 'c++ (GCC) 11.4.1 20230605'");
  Section compilers = probe_compilers(root.probe());
  CHECK(fact(compilers, "gcc_version") == "gcc (GCC) 11.4.1 20230605");
  CHECK(fact(compilers, "compiler") == "c++ (GCC) 11.4.1 20230605");
  CHECK(fact(compilers, "clang_version") == "");
  CHECK(testing::find_fact(compilers, "clang_version")->source == "`clang` not found on PATH");
}

}  // namespace
}  // namespace scalestudy::sysinfo
