// Hostile values must reach the workload intact and never run: a study full of $(...),
// backticks, ;, &&, newlines, quotes and globs is loaded and rendered like any other, the
// job script is run by bash through stand-ins for sbatch, srun, scontrol, module and
// apptainer that record their argv, and the test checks the argv srun received and that
// none of the injected commands left its marker file.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "orchestrator/sched/render/job_script.hpp"
#include "orchestrator/study/study.hpp"

namespace scalestudy {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> read_nul_separated(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::string> words;
  std::string word;
  while (std::getline(in, word, '\0')) words.push_back(word);
  return words;
}

void write_stand_in(const fs::path& path, const std::string& body) {
  std::ofstream(path) << "#!/bin/sh\n" << body;
  fs::permissions(path, fs::perms::owner_all);
}

TEST_CASE("hostile values in a study are passed through verbatim and never executed") {
  fs::path dir = fs::temp_directory_path() / ("scalestudy-hostile-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "bin");
  fs::create_directories(dir / "record");
  const std::string m = (dir / "MARKER").string();  // every payload tries to create m*

  std::string yaml = R"yaml(
study: hostile
kind: strong
scale: [2]
global_batch: 64
workload:
  model: "$(touch @M@1)"
  dataset: "`touch @M@2`"
  data_root: "/data; touch @M@3 && echo pwned"
  note: "line one\nline two $(touch @M@4)\n"
  glob: "*"
  quotes: "it's \"quoted\" $HOME \\ ${study}"
  dollar: '$$(touch @M@5)'
env:
  HOSTILE: "$(touch @M@6)'; touch @M@7; '"
  GLOB: "* ?"
modules: [cuda/12.2]
container:
  image: "/img/$(touch @M@8).sif"
  binds: ["/data:/data;touch @M@9"]
)yaml";
  for (size_t at = yaml.find("@M@"); at != std::string::npos; at = yaml.find("@M@", at)) {
    yaml.replace(at, 3, m);
  }
  Result<Study> study = load_study_text(yaml, "hostile.yaml");
  INFO(study.status().message());
  REQUIRE(study.is_ok());
  const RunSpec& spec = study->runs.front();
  CHECK(spec.params.at("note") == "line one\nline two $(touch " + m + "4)\n");
  CHECK(spec.params.at("quotes") == "it's \"quoted\" $HOME \\ hostile");

  RenderContext context;
  context.out_dir = (dir / "results" / "hostile" / "runs" / spec.run_id).string();
  context.binary_path = "/opt/scalestudy/bin/scalestudy-train";
  REQUIRE(check_render_context(context).is_ok());
  fs::path script = dir / "job.sbatch";
  std::ofstream(script) << render_sbatch_script(spec, context);

  const std::string record = (dir / "record").string();
  write_stand_in(dir / "bin" / "sbatch", "exec bash \"$@\"\n");
  write_stand_in(dir / "bin" / "srun",
                 "for a in \"$@\"; do printf '%s\\0' \"$a\"; done > " + record +
                     "/srun.argv\n"
                     "printf '%s\\0' \"$HOSTILE\" \"$GLOB\" \"$MASTER_ADDR\" \"$MASTER_PORT\" > " +
                     record + "/srun.env\n");
  // A host list longer than a pipe's buffer (64 KiB): the script must not end scontrol by
  // SIGPIPE after reading the first line (under pipefail that would fail the job).
  write_stand_in(dir / "bin" / "scontrol", "echo node007; seq -f 'node%06g' 8 20000\n");
  write_stand_in(dir / "bin" / "module",
                 "for a in \"$@\"; do printf '%s\\0' \"$a\"; done >> " + record + "/module.argv\n");
  write_stand_in(dir / "bin" / "apptainer", "touch " + record + "/apptainer.called\n");

  std::string command = "cd '" + dir.string() + "' && env PATH='" + (dir / "bin").string() +
                        "':/usr/bin:/bin SLURM_JOB_ID=1234 SLURM_JOB_NODELIST='node[007-008]' "
                        "sbatch job.sbatch > '" +
                        record + "/job.log' 2>&1";
  int status = std::system(command.c_str());
  std::ifstream log(dir / "record" / "job.log");
  std::stringstream log_text;
  log_text << log.rdbuf();
  CAPTURE(log_text.str());
  REQUIRE(status == 0);

  std::vector<std::string> expected = launch_command(spec, context);
  expected.erase(expected.begin());  // srun's own name
  CHECK(read_nul_separated(dir / "record" / "srun.argv") == expected);
  CHECK(read_nul_separated(dir / "record" / "srun.env") ==
        std::vector<std::string>{spec.env.at("HOSTILE"), "* ?", "node007", "21234"});
  CHECK(read_nul_separated(dir / "record" / "module.argv") ==
        std::vector<std::string>{"load", "cuda/12.2"});
  CHECK(fs::is_directory(context.out_dir));
  CHECK_FALSE(fs::exists(dir / "record" / "apptainer.called"));  // srun's argument only
  for (int i = 1; i <= 9; ++i) {
    CAPTURE(i);
    CHECK_FALSE(fs::exists(m + std::to_string(i)));
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace scalestudy
