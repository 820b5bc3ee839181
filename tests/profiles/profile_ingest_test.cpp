// Profiler output -> profile tables: the readers on the committed fixtures (written in
// the tools' documented formats), kernel classification, the store's idempotence, error
// positions, and the breakdown text.
#include "orchestrator/profiling/profile_ingest.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "harness/core/sqlite.hpp"
#include "orchestrator/profiling/breakdown_report.hpp"
#include "orchestrator/profiling/csv_table.hpp"
#include "orchestrator/profiling/ncu_csv.hpp"
#include "orchestrator/profiling/nsys_export.hpp"
#include "orchestrator/profiling/nsys_stats.hpp"
#include "orchestrator/profiling/nvtx_trace.hpp"
#include "orchestrator/profiling/profile_store.hpp"

namespace scalestudy::profiling {
namespace {

namespace fs = std::filesystem;

const std::string kRun = "3f9a1c0d2b4e5f60";

std::string fixture(const std::string& name) {
  const char* source = std::getenv("SCALESTUDY_SOURCE_DIR");
  REQUIRE(source != nullptr);
  return std::string(source) + "/tests/profiles/fixtures/" + name;
}

std::string read_text(const std::string& path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() /
                 ("scalestudy-profiles-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Category -> summed ns of a kernel list.
std::map<KernelCategory, int64_t> by_category(const std::vector<KernelTime>& kernels) {
  std::map<KernelCategory, int64_t> totals;
  for (const KernelTime& kernel : kernels) totals[kernel.category] += kernel.total_ns;
  return totals;
}

// Writes the SQL fixture into an SQLite file named like an nsys export of rank 1.
fs::path make_export(const fs::path& dir) {
  fs::path path = dir / ("nsys-" + kRun + "-rank1.sqlite");
  auto db = sqlite::Database::open(path.string());
  REQUIRE(db.is_ok());
  REQUIRE(db->exec(read_text(fixture("nsys_export.sql"))).is_ok());
  return path;
}

TEST_CASE("kernel names fall into the documented categories") {
  CHECK(classify_kernel("sm80_xmma_wgrad_implicit_gemm_indexed_tf32f32") ==
        KernelCategory::kConvolution);
  CHECK(classify_kernel("void cudnn::cnn::conv2d_grouped_direct_kernel<float>") ==
        KernelCategory::kConvolution);
  CHECK(classify_kernel("dgrad2d_alg1_1_kernel") == KernelCategory::kConvolution);
  // cuDNN batch-norm kernels say "cudnn" too; batch norm wins.
  CHECK(classify_kernel("void cudnn::bn_bw_1C11_kernel_new<float>") == KernelCategory::kBatchNorm);
  CHECK(classify_kernel("void at::native::batch_norm_backward_kernel<float>") ==
        KernelCategory::kBatchNorm);
  CHECK(classify_kernel("ampere_sgemm_128x64_tn") == KernelCategory::kGemm);
  CHECK(classify_kernel("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm>") ==
        KernelCategory::kGemm);
  CHECK(classify_kernel("sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n") == KernelCategory::kGemm);
  CHECK(classify_kernel("ncclKernel_AllReduce_RING_LL_Sum_float") == KernelCategory::kNccl);
  CHECK(classify_kernel("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL") == KernelCategory::kNccl);
  CHECK(classify_kernel("void at::native::vectorized_elementwise_kernel<4>") ==
        KernelCategory::kElementwise);
  CHECK(classify_kernel("void at::native::reduce_kernel<512, 1>") == KernelCategory::kElementwise);
  CHECK(classify_kernel("[CUDA memcpy HtoD]") == KernelCategory::kMemcpy);
  CHECK(classify_kernel("void at::native::cunn_SoftMaxForward<4>") == KernelCategory::kOther);
  CHECK(std::string(category_name(KernelCategory::kBatchNorm)) == "batch norm");
}

TEST_CASE("nsys stats CSV: kernels, memory operations and NVTX ranges") {
  auto kernels = read_nsys_kernel_summary(fixture("nsys-" + kRun + "-rank0_cuda_gpu_kern_sum.csv"));
  REQUIRE_MESSAGE(kernels.is_ok(), kernels.status().message());
  REQUIRE(kernels->size() == 9);
  CHECK(kernels->front().total_ns == 41250000);
  CHECK(kernels->front().instances == 530);
  auto categories = by_category(*kernels);
  CHECK(categories[KernelCategory::kConvolution] == 65050000);
  CHECK(categories[KernelCategory::kBatchNorm] == 24860000);
  CHECK(categories[KernelCategory::kNccl] == 12830000);
  CHECK(categories[KernelCategory::kElementwise] == 17730000);
  CHECK(categories[KernelCategory::kGemm] == 6745000);
  CHECK(categories[KernelCategory::kOther] == 5030000);

  auto memory =
      read_nsys_memory_summary(fixture("nsys-" + kRun + "-rank0_cuda_gpu_mem_time_sum.csv"));
  REQUIRE_MESSAGE(memory.is_ok(), memory.status().message());
  CHECK(by_category(*memory)[KernelCategory::kMemcpy] == 4052000);
  CHECK(memory->at(1).instances == 1060);

  auto ranges = read_nsys_nvtx_summary(fixture("nsys-" + kRun + "-rank0_nvtx_sum.csv"));
  REQUIRE_MESSAGE(ranges.is_ok(), ranges.status().message());
  REQUIRE(ranges->size() == 6);
  CHECK(ranges->front().domain == "scalestudy");
  CHECK(ranges->front().name == "step");
  CHECK(ranges->front().total_ns == 152300000);
  CHECK(ranges->front().instances == 10);
  CHECK(ranges->front().min_ns == 14980000);
  CHECK(ranges->front().max_ns == 15710000);
}

TEST_CASE("ncu CSV: details page and raw page, units converted to ns") {
  auto details = read_ncu_csv(fixture("ncu-" + kRun + "-rank0.csv"));
  REQUIRE_MESSAGE(details.is_ok(), details.status().message());
  REQUIRE(details->size() == 4);
  CHECK(details->front().category == KernelCategory::kGemm);  // 0.67 msecond
  CHECK(details->front().total_ns == 670000);
  auto categories = by_category(*details);
  CHECK(categories[KernelCategory::kConvolution] == 161000);  // 81.34 + 79.66 usecond
  CHECK(categories[KernelCategory::kBatchNorm] == 33090);
  CHECK(categories[KernelCategory::kElementwise] == 7552);  // "7,552" nsecond

  auto raw = read_ncu_csv(fixture("ncu_raw_page.csv"));
  REQUIRE_MESSAGE(raw.is_ok(), raw.status().message());
  REQUIRE(raw->size() == 2);
  CHECK(raw->front().category == KernelCategory::kNccl);
  CHECK(raw->front().instances == 2);
  CHECK(raw->front().total_ns == 2563200);  // "1,283.20" + "1,280.00" usecond
  CHECK(raw->back().total_ns == 20510);
}

TEST_CASE("nsys SQLite export: kernels by demangled name, copies, domain ranges") {
  fs::path dir = fresh_dir("export");
  auto data = read_nsys_export(make_export(dir).string());
  REQUIRE_MESSAGE(data.is_ok(), data.status().message());
  auto categories = by_category(data->kernels);
  CHECK(categories[KernelCategory::kConvolution] == 158000);
  CHECK(categories[KernelCategory::kBatchNorm] == 62000);
  CHECK(categories[KernelCategory::kNccl] == 1280000);
  CHECK(categories[KernelCategory::kMemcpy] == 51000);
  std::map<std::string, RangeTime> ranges;
  for (const RangeTime& range : data->ranges) ranges[range.domain + ":" + range.name] = range;
  CHECK(ranges.size() == 4);
  CHECK(ranges["scalestudy:step"].instances == 2);
  CHECK(ranges["scalestudy:step"].total_ns == 6200000);
  CHECK(ranges["scalestudy:step"].min_ns == 3000000);
  CHECK(ranges["scalestudy:forward"].total_ns == 1000000);  // text from StringIds
  CHECK(ranges[":other-library-range"].total_ns == 500000);
  fs::remove_all(dir);
}

TEST_CASE("bad values and missing headers are reported with file, line, column and field") {
  fs::path dir = fresh_dir("errors");
  std::string text = read_text(fixture("nsys-" + kRun + "-rank0_cuda_gpu_kern_sum.csv"));
  text.replace(text.find("41250000"), 8, "41x50000");
  fs::path bad = dir / "bad_cuda_gpu_kern_sum.csv";
  std::ofstream(bad) << text;
  auto kernels = read_nsys_kernel_summary(bad.string());
  REQUIRE_FALSE(kernels.is_ok());
  CHECK(kernels.status().message() ==
        bad.string() + ":3:6: field 'Total Time (ns)': '41x50000' is not a number");

  auto nvtx_as_kernels = read_nsys_kernel_summary(fixture("nsys-" + kRun + "-rank0_nvtx_sum.csv"));
  REQUIRE_FALSE(nvtx_as_kernels.is_ok());
  CHECK(nvtx_as_kernels.status().message().find(
            ":1:1: no header row with the columns 'Total Time (ns)', 'Instances', 'Name'") !=
        std::string::npos);

  auto open_quote = parse_csv_table("\"a\",\"b\"\n1,\"2\n", "x.csv", {"a"});
  REQUIRE_FALSE(open_quote.is_ok());
  CHECK(open_quote.status().message() == "x.csv:2:3: quoted cell is never closed");
  fs::remove_all(dir);
}

TEST_CASE("an NVTX trace cut short still reads, with nesting and payloads") {
  fs::path dir = fresh_dir("trace");
  fs::path path = dir / "trace-x-rank0.json";
  std::ofstream(path) << R"([
{"name":"step","cat":"scalestudy","ph":"B","ts":10.0,"pid":1,"tid":7,"args":{"payload":4}},
{"name":"forward","cat":"scalestudy","ph":"B","ts":11.0,"pid":1,"tid":7},
{"name":"forward","cat":"scalestudy","ph":"E","ts":15.5,"pid":1,"tid":7},
{"name":"profiler_start","cat":"scalestudy","ph":"i","ts":16.0,"pid":1,"tid":7,"s":"t"},
{"name":"step","cat":"scalestudy","ph":"E","ts":20.0,"pid":1,"tid":7},
{"name":"step","cat":"scalestudy","ph":"B","ts":21.0,"pid":1,"tid":7})";
  auto trace = read_nvtx_trace(path.string());
  REQUIRE_MESSAGE(trace.is_ok(), trace.status().message());
  REQUIRE(trace->ranges.size() == 2);  // the open last step is dropped
  CHECK(trace->ranges[0].name == "step");
  CHECK(trace->ranges[0].payload == 4);
  CHECK(trace->ranges[1].parent == 0);
  CHECK(trace->ranges[1].depth == 1);
  REQUIRE(trace->marks.size() == 1);
  CHECK(trace->marks[0].name == "profiler_start");
  ProfileData summary = summarize_trace(*trace);
  REQUIRE(summary.ranges.size() == 2);
  CHECK(summary.ranges[0].total_ns == 10000);
  CHECK(summary.ranges[1].total_ns == 4500);
  fs::remove_all(dir);
}

TEST_CASE("ingesting a run folder twice stores each rank and source once") {
  fs::path dir = fresh_dir("ingest");
  for (const char* name :
       {"_cuda_gpu_kern_sum.csv", "_cuda_gpu_mem_time_sum.csv", "_nvtx_sum.csv"}) {
    fs::copy_file(fixture("nsys-" + kRun + "-rank0" + name),
                  dir / ("nsys-" + kRun + "-rank0" + name));
  }
  fs::copy_file(fixture("ncu-" + kRun + "-rank0.csv"), dir / ("ncu-" + kRun + "-rank0.csv"));
  make_export(dir);
  std::ofstream(dir / "rank0.sqlite") << "not a profile: the run database is left alone";

  auto db = sqlite::Database::open((dir / "study.sqlite").string());
  REQUIRE(db.is_ok());
  for (int pass = 0; pass < 2; ++pass) {
    auto files = ingest_profile_dir(*db, kRun, dir.string());
    REQUIRE_MESSAGE(files.is_ok(), files.status().message());
    CHECK(files->size() == 5);
  }
  auto kernel_rows = db->query_value("SELECT COUNT(*) FROM p_kernels WHERE source = 'nsys-stats'");
  REQUIRE(kernel_rows.is_ok());
  CHECK(sqlite::to_string(**kernel_rows) == "11");
  auto ranks = db->query("SELECT DISTINCT source, rank FROM p_kernels ORDER BY source");
  REQUIRE(ranks.is_ok());
  REQUIRE(ranks->size() == 3);
  CHECK(sqlite::to_string((*ranks)[1][0]) == "nsys-sqlite");
  CHECK(sqlite::to_string((*ranks)[1][1]) == "1");

  auto profiles = load_profiles(*db, kRun);
  REQUIRE(profiles.is_ok());
  REQUIRE(profiles->size() == 3);
  const StoredProfile& stats = (*profiles)[2];
  CHECK(stats.source == "nsys-stats");
  CHECK(stats.ranks == 1);
  int64_t total_ns = 0;
  for (const CategoryTime& time : stats.categories) total_ns += time.total_ns;
  CHECK(total_ns == 136297000);
  CHECK(stats.ranges.front().name == "step");

  // batch norm: 24.86 of 136.297 ms = 18.2%, a bar of 7 of 40 characters.
  std::string report = render_profile_breakdown(*profiles);
  CAPTURE(report);
  std::string section = report.substr(report.find("(nsys-stats"));
  std::string line = section.substr(section.find("batch norm"));
  line = line.substr(0, line.find('\n'));
  CHECK(line.find("24.860") != std::string::npos);
  CHECK(line.find("18.2%") != std::string::npos);
  CHECK(line.substr(line.find('#')) == std::string(7, '#'));
  CHECK(section.find("scalestudy:step") != std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace scalestudy::profiling
