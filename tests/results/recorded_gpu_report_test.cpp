// The report of a study that ran on a GPU, from what its runs recorded: the shared
// fixture h200-2026-11-28/lm-study (GPT-2 small on one NVIDIA H200, optimizer sharding
// none and zero1, 2 repeats each, already ingested; the study planned no gpus_per_node).
// Device, GPU model and GPU count come from the runs; the memory tables show the caching
// allocator's and NVML's figures beside the host's; and with every setting slower than
// the baseline, the verdict names none best.
#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/core/sqlite.hpp"
#include "orchestrator/results/report/report.hpp"
#include "orchestrator/results/report/report_render.hpp"
#include "tests/results/built_report.hpp"
#include "tests/support/cli_test_support.hpp"
#include "tests/support/skip.hpp"

using namespace scalestudy;
using namespace scalestudy::results;
using namespace scalestudy::results::testing;
namespace fs = std::filesystem;

namespace {

// The recorded study (the CI clone has shared/ beside the source tree).
fs::path fixture_dir() {
  return fs::path(scalestudy::testing::source_dir()) / ".." / "shared" / "fixtures" /
         "h200-2026-11-28" / "lm-study";
}

// The fixture's study database, copied into a scratch directory (the fixture is read-only
// and stays as recorded).
std::string copied_study_database(const std::string& name) {
  const fs::path copy = scalestudy::testing::scratch_dir(name);
  fs::copy(fixture_dir(), copy, fs::copy_options::recursive);
  for (const auto& entry : fs::recursive_directory_iterator(copy)) {
    fs::permissions(entry.path(), fs::perms::owner_write, fs::perm_options::add);
  }
  return (copy / "lm-gpt2-small-h100.sqlite").string();
}

Report recorded_report(const std::string& name) {
  auto db = sqlite::Database::open(copied_study_database(name));
  REQUIRE_MESSAGE(db.is_ok(), db.status().message());
  auto report = build_report(*db);
  REQUIRE_MESSAGE(report.is_ok(), report.status().message());
  return *report;
}

// One rendered report with the marker that ends each of its tables.
struct Rendered {
  std::string text, table_end;
};

// `title`'s table in `rendered`: from the title to the end of its table.
std::string section(const Rendered& rendered, const std::string& title) {
  const size_t start = rendered.text.find(title);
  if (start == std::string::npos) return "";
  const size_t end = rendered.text.find(rendered.table_end, start);
  return rendered.text.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// 17,733,287,424 B (the allocator's peak with optimizer sharding none, 17.7 GB) in GiB,
// and 20,505,821,184 B (NVML's largest sample of those runs, 20.5 GB).
constexpr const char* kNoneAllocatorPeakGib = "16.52";
constexpr const char* kNoneNvmlPeakGib = "19.10";

}  // namespace

#define REQUIRE_FIXTURE()                                                            \
  do {                                                                               \
    if (!fs::exists(fixture_dir())) {                                                \
      SKIP_UNLESS_INSTALLED("no shared GPU fixtures at " << fixture_dir().string()); \
    }                                                                                \
  } while (false)

TEST_CASE("JSON: device, GPU model and GPUs as the H200 runs recorded them") {
  REQUIRE_FIXTURE();
  const Report report = recorded_report("recorded_gpu_json");
  CHECK(report.gpu);
  auto json = nlohmann::json::parse(render_report(report, ReportFormat::kJson));
  CHECK(json["device"] == "gpu");
  REQUIRE(json["points"].size() == 2);
  for (const auto& point : json["points"]) {
    INFO(point["config_label"]);
    CHECK(point["device"] == "cuda");
    CHECK(point["gpu_model"] == "NVIDIA H200");
    CHECK(point["gpus"] == 1);
    CHECK(point["memory"]["gpu_reserved_peak_bytes"].get<double>() > 18e9);
    CHECK(point["memory"]["nvml_peak_bytes"].get<double>() > 20e9);
    const auto& rank = point["rank_memory"][0];
    for (const char* figure : {"gpu_peak_bytes", "gpu_reserved_peak_bytes", "nvml_peak_bytes",
                               "nvml_avg_bytes", "rss_peak_bytes"}) {
      CHECK_MESSAGE(rank[figure].is_number(), figure);
    }
  }
  CHECK(json["points"][0]["memory"]["gpu_peak_bytes"] == 17733287424.0);
  CHECK(json["points"][0]["rank_memory"][0]["nvml_peak_bytes"] == 20505821184.0);
}

TEST_CASE("the Memory tables show the allocator's and NVML's figures beside the host's") {
  REQUIRE_FIXTURE();
  const Report report = recorded_report("recorded_gpu_memory");
  const std::string table = render_report(report, ReportFormat::kTable);
  INFO(table);
  const std::vector<Rendered> formats = {{table, "\n\n"},
                                         {render_report(report, ReportFormat::kMarkdown), "|\n\n"},
                                         {render_report(report, ReportFormat::kCsv), "\n# "},
                                         {render_report(report, ReportFormat::kHtml), "</table>"}};
  for (const Rendered& rendered : formats) {
    const std::string memory = section(rendered, "Memory [GiB]");
    const std::string per_rank = section(rendered, "Memory per rank [GiB]");
    INFO(memory);
    INFO(per_rank);
    for (const char* header : {"alloc peak", "NVML peak", "RSS peak"}) {
      CHECK_MESSAGE(memory.find(header) != std::string::npos, header);
    }
    for (const char* header :
         {"alloc peak", "reserved peak", "NVML peak", "NVML avg", "RSS peak", "RSS avg"}) {
      CHECK_MESSAGE(per_rank.find(header) != std::string::npos, header);
    }
    for (const std::string* part : {&memory, &per_rank}) {
      CHECK(part->find(kNoneAllocatorPeakGib) != std::string::npos);
      CHECK(part->find(kNoneNvmlPeakGib) != std::string::npos);
      // The terminal's tables fit 120 columns.
      if (rendered.text == table) CHECK(widest_line(*part) <= 120);
    }
  }
}

TEST_CASE("the terminal report of the H200 runs fits 120 columns, the verdict wrapped") {
  REQUIRE_FIXTURE();
  const std::string table =
      render_report(recorded_report("recorded_gpu_width"), ReportFormat::kTable);
  INFO(table);
  CHECK(widest_line(table) <= 120);
  CHECK(table.find("TFLOPS/device") != std::string::npos);  // the Ceilings table, narrowed
}

TEST_CASE("no setting beat the baseline: the verdict says so and names none best") {
  REQUIRE_FIXTURE();
  const Report report = recorded_report("recorded_gpu_verdict");
  REQUIRE(report.sensitivity.has_value());
  CHECK_FALSE(report.sensitivity->beats_baseline());
  CHECK(report.sensitivity->best_throughput_change_pct < 0);
  for (ReportFormat format : {ReportFormat::kTable, ReportFormat::kMarkdown, ReportFormat::kHtml}) {
    const std::string text = unwrapped(render_report(report, format));
    CHECK(text.find("no setting beat the baseline (optimizer_sharding=none); closest: "
                    "optimizer_sharding=zero1 (-0.1% throughput") != std::string::npos);
    CHECK(text.find("best configuration") == std::string::npos);
  }
  auto json = nlohmann::json::parse(render_report(report, ReportFormat::kJson));
  CHECK(json["sensitivity"]["beats_baseline"] == false);
  CHECK(json["sensitivity"]["baseline_config"] == "optimizer_sharding=none");
}
