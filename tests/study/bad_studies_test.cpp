// Every file in tests/study/bad/ is a study the loader must reject. Its first line says
// where: "# expect: [FILE:]LINE:COLUMN FIELD" ("-" for no field); the test checks that
// the reported errors contain "FILE:LINE:COLUMN: field 'FIELD'".
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "orchestrator/study/study.hpp"

namespace scalestudy {
namespace {

namespace fs = std::filesystem;

fs::path bad_dir() {
  const char* source = std::getenv("SCALESTUDY_SOURCE_DIR");
  REQUIRE(source != nullptr);
  return fs::path(source) / "tests" / "study" / "bad";
}

TEST_CASE("every malformed or hostile study is rejected at the expected file:line:column") {
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(bad_dir())) {
    if (entry.path().extension() != ".yaml") continue;
    std::ifstream in(entry.path());
    std::string header;
    std::getline(in, header);
    const std::string kPrefix = "# expect: ";
    CAPTURE(entry.path().string());
    REQUIRE(header.rfind(kPrefix, 0) == 0);
    std::string expectation = header.substr(kPrefix.size());
    std::string position = expectation.substr(0, expectation.find(' '));
    std::string field = expectation.substr(expectation.find(' ') + 1);
    // Positions in the file itself are given as LINE:COLUMN.
    std::string file = entry.path().string();
    if (std::count(position.begin(), position.end(), ':') == 2) {
      file = (entry.path().parent_path() / position.substr(0, position.find(':'))).string();
      position = position.substr(position.find(':') + 1);
    }
    std::string expected = file + ":" + position + ": ";
    if (field != "-") expected += "field '" + field + "'";

    Result<Study> study = load_study(entry.path().string());
    REQUIRE_FALSE(study.is_ok());
    CAPTURE(study.status().message());
    CHECK(study.status().message().find(expected) != std::string::npos);
    ++checked;
  }
  CHECK(checked >= 25);
}

}  // namespace
}  // namespace scalestudy
