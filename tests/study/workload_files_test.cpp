// workload.files: templates rendered per run with ${...}, values escaped for JSON and TOML
// strings, ${files.NAME} as the file's path in the run folder, rendered content in the run
// id (a changed template gives new ids, a whitespace-only change elsewhere does not), the
// errors at plan time, and the TOML syntax check the rendered files go through.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "orchestrator/study/toml_syntax.hpp"
#include "tests/study/study_test_util.hpp"

namespace scalestudy {
namespace {

using testing::load_error;
using testing::load_ok;

std::string study_with(const std::string& files_yaml, const std::string& tail = "") {
  return "study: s\nscale: [1, 2]\nper_gpu_batch: 4\nworkload:\n  binary: /bin/prog\n"
         "  run_flags: false\n  flags: {names: {note: none, batch_size: none}}\n"
         "  note: 'a \"quoted\" \\ note'\n  config: ${files.run.json}\n  files:\n" +
         files_yaml + tail;
}

const char kJsonFile[] =
    "    run.json: |\n"
    "      {\"batch\": ${per_gpu_batch}, \"ranks\": ${world_size}, \"note\": \"${note}\",\n"
    "       \"out\": \"${run_dir}/out\"}\n";

TEST_CASE("a template renders per run, escaped for JSON, and its path reaches the flags") {
  Study study = load_ok(study_with(kJsonFile));
  REQUIRE(study.runs.size() == 2);
  const RunSpec& run = study.runs[1];
  const auto json = nlohmann::json::parse(run.files.at("run.json"));
  CHECK(json["batch"] == 4);
  CHECK(json["ranks"] == 2);
  CHECK(json["note"] == "a \"quoted\" \\ note");
  CHECK(json["out"] == "${run_dir}/out");  // the run's folder, written in at launch
  CHECK(run.params.at("config") == "${run_dir}/run.json");
}

TEST_CASE("the rendered content is part of the run id; whitespace elsewhere is not") {
  const std::vector<std::string> ids = [] {
    std::vector<std::string> out;
    for (const auto& run : load_ok(study_with(kJsonFile)).runs) out.push_back(run.run_id);
    return out;
  }();
  auto ids_of = [](const std::string& yaml) {
    std::vector<std::string> out;
    for (const auto& run : load_ok(yaml).runs) out.push_back(run.run_id);
    return out;
  };
  CHECK(ids_of(study_with(kJsonFile)) == ids);
  // Blank lines, comments and other indentation outside the template: the same runs.
  CHECK(ids_of("# a comment\n\nstudy:   s\nscale: [ 1,   2 ]\n\nper_gpu_batch: 4\nworkload:\n"
               "    binary: /bin/prog   # the program\n    run_flags: false\n"
               "    flags: {names: {note: none, batch_size: none}}\n"
               "    note: 'a \"quoted\" \\ note'\n    config: ${files.run.json}\n    files:\n"
               "      run.json: |\n"
               "        {\"batch\": ${per_gpu_batch}, \"ranks\": ${world_size}, \"note\": "
               "\"${note}\",\n"
               "         \"out\": \"${run_dir}/out\"}\n") == ids);
  // A changed template: every run it renders for is a new run.
  const auto changed = ids_of(
      study_with("    run.json: |\n      {\"batch\": ${per_gpu_batch}, \"ranks\": ${world_size}, "
                 "\"note\": \"${note}\", \"out\": \"${run_dir}/out\", \"lr\": 0.1}\n"));
  REQUIRE(changed.size() == 2);
  CHECK(changed[0] != ids[0]);
  CHECK(changed[1] != ids[1]);
}

TEST_CASE("a template's errors are refused at plan time where the template is written") {
  CHECK(load_error(study_with("    run.json: |\n      {\"layers\": ${n_layers}}\n"))
            .find("inline.yaml:11:15: field 'workload.files.run.json': undefined reference "
                  "'${n_layers}'") != std::string::npos);
  CHECK(load_error(study_with("    run.json: |\n      {\"batch\": ${per_gpu_batch},}\n"))
            .find("field 'workload.files.run.json': renders to text that is not JSON") !=
        std::string::npos);
  CHECK(load_error(study_with(kJsonFile) + "    run.toml: |\n      [training]\n      name = "
                                           "${note}\n")
            .find("field 'workload.files.run.toml': renders to text that is not TOML: line 2") !=
        std::string::npos);
  CHECK(
      load_error(study_with("    job.sbatch: echo\n")).find("field 'workload.files.job.sbatch'") !=
      std::string::npos);
  CHECK(load_error("study: s\nworkload:\n  binary: /bin/prog\n  config: ${files.run.toml}\n")
            .find("inline.yaml:4:11: field 'workload.config': undefined reference "
                  "'${files.run.toml}'") != std::string::npos);
}

TEST_CASE("TOML syntax: what torchtitan-style configs hold passes, malformed text says where") {
  CHECK(
      check_toml_syntax("# a config\n[job]\ndescription = \"run \\\"1\\\"\"\n"
                        "[training]\nlocal_batch_size = 8\nlr = 3e-4\nsteps = 1_000\n"
                        "compile = false\nmesh = [1, 2,\n  4, # trailing comma\n]\n"
                        "'quoted key'.x = 'literal \\ string'\n"
                        "text = \"\"\"\nline one\nline two\"\"\"\n"
                        "[[checkpoint.keep]]\nat = 1979-05-27T07:32:00Z\n"
                        "inline = {a = 1, b = \"two\"}\nneg = -inf\nhex = 0xff\n"));
  for (const char* bad :
       {"name = unquoted\n", "[table\n", "a = \"open\n", "a = 1 2\n", "a = [1 2]\n",
        "a = \"bad \\q escape\"\n", "= 1\n", "a = {b = 1,\n", "a = 1.\n"}) {
    CAPTURE(bad);
    CHECK_FALSE(check_toml_syntax(bad));
  }
  CHECK(check_toml_syntax("a = 1\n\nb = oops\n").message().find("line 3") == 0);
}

}  // namespace
}  // namespace scalestudy
