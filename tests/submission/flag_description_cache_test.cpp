// The flag description cache: a second description of the same binary content does not
// start the binary; a corrupt entry is asked again and rewritten; a directory that cannot be
// written only means nothing is remembered; the key names ELF files by build id and
// anything else by its SHA-256.
#include "orchestrator/submission/flag_description_cache.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "orchestrator/common/process_runner.hpp"
#include "tests/support/cli_test_support.hpp"

namespace scalestudy::submission {
namespace {

namespace fs = std::filesystem;

// A script that appends a line to `count_file` each time it runs and prints a description.
std::string write_counting_describer(const fs::path& dir, const fs::path& count_file) {
  const fs::path path = dir / "describer.sh";
  std::ofstream(path) << "#!/bin/sh\necho run >> '" << count_file.string() << "'\n"
                      << R"(echo '{"workload": "w", "flags": [{"name": "epochs", )"
                      << R"("type": "integer", "default": "1", "min": 1}]}')"
                      << "\n";
  fs::permissions(path, fs::perms::owner_all);
  return path.string();
}

Result<std::string> run_describer(const std::string& path) {
  common::ProcessRequest request;
  request.argv = {path, "--describe-flags", "json"};
  auto answer = common::run_process(request);
  if (!answer) return answer.status();
  return answer->stdout_text;
}

struct Describer {
  fs::path dir = testing::scratch_dir("flag_description_cache");
  fs::path count_file = dir / "runs.txt";
  std::string path = write_counting_describer(dir, count_file);

  Result<WorkloadFlags> describe(const std::string& cache_dir) const {
    return cached_flag_description(cache_dir, path, [this] { return run_describer(path); });
  }
  int runs() const { return testing::count_lines(count_file.string()); }
};

}  // namespace

TEST_CASE("a second description of the same binary does not run it") {
  Describer describer;
  const std::string cache_dir = (describer.dir / "cache").string();
  for (int time = 0; time < 3; ++time) {
    auto flags = describer.describe(cache_dir);
    REQUIRE_MESSAGE(flags.is_ok(), flags.status().message());
    CHECK(flags->workload == "w");
    CHECK(flags->rules.count("epochs") == 1);
  }
  CHECK(describer.runs() == 1);
}

TEST_CASE("a corrupt cache entry is ignored and rewritten") {
  Describer describer;
  const std::string cache_dir = (describer.dir / "cache").string();
  REQUIRE(describer.describe(cache_dir).is_ok());
  auto key = binary_content_key(describer.path);
  REQUIRE(key.is_ok());
  const fs::path entry = fs::path(cache_dir) / (*key + ".json");
  REQUIRE(fs::exists(entry));
  std::ofstream(entry, std::ios::trunc) << "{\"flags\": [";
  REQUIRE(describer.describe(cache_dir).is_ok());
  CHECK(describer.runs() == 2);
  REQUIRE(describer.describe(cache_dir).is_ok());
  CHECK(describer.runs() == 2);
}

TEST_CASE("an unwritable cache directory means no caching") {
  Describer describer;
  const fs::path blocker = describer.dir / "not_a_dir";
  std::ofstream(blocker) << "a file";
  for (const std::string& cache_dir : {(blocker / "cache").string(), std::string()}) {
    REQUIRE(describer.describe(cache_dir).is_ok());
  }
  CHECK(describer.runs() == 2);
}

TEST_CASE("a changed script is a new cache entry") {
  Describer describer;
  const std::string cache_dir = (describer.dir / "cache").string();
  REQUIRE(describer.describe(cache_dir).is_ok());
  std::ofstream(describer.path, std::ios::app) << "# changed\n";
  REQUIRE(describer.describe(cache_dir).is_ok());
  CHECK(describer.runs() == 2);
}

TEST_CASE("the content key: build id for ELF files, SHA-256 for others") {
  auto elf = binary_content_key("/proc/self/exe");
  REQUIRE_MESSAGE(elf.is_ok(), elf.status().message());
  CHECK(elf->rfind("build-id-", 0) == 0);
  Describer describer;
  auto script = binary_content_key(describer.path);
  REQUIRE(script.is_ok());
  CHECK(script->rfind("sha256-", 0) == 0);
  CHECK(script->size() == std::string("sha256-").size() + 64);
  CHECK_FALSE(binary_content_key((describer.dir / "missing").string()).is_ok());
}

TEST_CASE("the default cache directory follows XDG_CACHE_HOME, else HOME") {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  const std::string saved_xdg = xdg != nullptr ? xdg : "";
  const std::string saved_home = home != nullptr ? home : "";
  setenv("XDG_CACHE_HOME", "/somewhere/cache", 1);
  CHECK(default_flag_description_cache_dir() == "/somewhere/cache/scalestudy/describe-flags");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/someone", 1);
  CHECK(default_flag_description_cache_dir() == "/home/someone/.cache/scalestudy/describe-flags");
  unsetenv("HOME");
  CHECK(default_flag_description_cache_dir().empty());
  if (xdg != nullptr) setenv("XDG_CACHE_HOME", saved_xdg.c_str(), 1);
  if (home != nullptr) setenv("HOME", saved_home.c_str(), 1);
}

}  // namespace scalestudy::submission
