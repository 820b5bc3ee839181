#include "tests/support/skip.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>

namespace scalestudy::testing {
namespace {

// Which test case runs, and which ones skipped. Doctest itself is process-wide state; this
// listener only watches it.
struct CaseLedger {
  std::string current;
  std::set<std::string> skipped;
  unsigned cases_run = 0;
};

CaseLedger& ledger() {
  static CaseLedger cases;
  return cases;
}

class SkipListener : public doctest::IReporter {
 public:
  explicit SkipListener(const doctest::ContextOptions&) {}
  void test_case_start(const doctest::TestCaseData& test_case) override {
    ledger().current = test_case.m_name;
  }
  void test_run_end(const doctest::TestRunStats& stats) override {
    ledger().cases_run = stats.numTestCasesPassingFilters;
  }
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

REGISTER_LISTENER("skip_ledger", 1, SkipListener);

}  // namespace

bool prerequisites_required() {
  const char* ci = std::getenv("CI");
  if (ci != nullptr && std::string(ci) == "true") return true;
  return geteuid() == 0 && std::filesystem::exists("/etc/debian_version");
}

void note_skipped_case() {
  ledger().skipped.insert(ledger().current);
}

SkipTally skip_tally() {
  return {ledger().cases_run, static_cast<unsigned>(ledger().skipped.size())};
}

}  // namespace scalestudy::testing
