#include "orchestrator/sysinfo/markdown.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "orchestrator/sysinfo/text.hpp"

namespace scalestudy::sysinfo {
namespace {

std::vector<Section> one_section() {
  Section cpu;
  cpu.title = "CPU";
  cpu.add("cpu_model", "Model", "Xeon | Gold", "/proc/cpuinfo");
  cpu.add("cpu_flags", "Notable ISA extensions", "", "/proc/cpuinfo flags");
  cpu.add_bytes("memory_total_bytes", "System RAM", 1ULL << 30, "/proc/meminfo");
  cpu.tables.push_back({"NUMA nodes", {"Node", "CPUs"}, {{"0", "0-3"}, {"1"}}});
  return {cpu};
}

TEST_CASE("sections render as Markdown tables with value and source") {
  std::string markdown = render_system_markdown(one_section(), "2025-01-01 00:00 UTC", "");
  CHECK(markdown.find("## CPU\n\n| Spec | Value | Source |\n|---|---|---|\n") != std::string::npos);
  CHECK(markdown.find("| Model | Xeon \\| Gold | /proc/cpuinfo |") != std::string::npos);
  CHECK(markdown.find("| Notable ISA extensions | not found | /proc/cpuinfo flags |") !=
        std::string::npos);
  CHECK(markdown.find("| System RAM | 1.0 GiB | /proc/meminfo |") != std::string::npos);
  CHECK(markdown.find("### NUMA nodes\n\n| Node | CPUs |\n|---|---|\n| 0 | 0-3 |\n| 1 |  |\n") !=
        std::string::npos);
  CHECK(markdown.find("## Human notes\n\nWhat the generator cannot see") != std::string::npos);
}

TEST_CASE("human notes survive regeneration byte for byte") {
  std::string notes = "\nCluster: Midway3 (RCC).\n\n## Human notes in prose\n- QOS hcn1: 2 days\n";
  std::string first = render_system_markdown(one_section(), "t1", notes);
  CHECK(extract_human_notes(first) == notes);
  std::string second = render_system_markdown(one_section(), "t2", extract_human_notes(first));
  CHECK(extract_human_notes(second) == notes);
  CHECK(second.find("t2") != std::string::npos);
}

TEST_CASE("a file without the heading has no notes; the heading must be a whole line") {
  CHECK(extract_human_notes("# SYSTEM\n\nsee ## Human notes below\n") == "");
  CHECK(extract_human_notes("## Human notes\nkept\n") == "kept\n");
}

TEST_CASE("update_system_file keeps the notes of the file it replaces") {
  auto dir = std::filesystem::temp_directory_path() / ("system-md-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / "SYSTEM.md").string();
  std::ofstream(path) << "# old, hand-written\n\n## Human notes\n\nAccount: pi-hcn1\n";
  REQUIRE(update_system_file(path, one_section(), "t3").is_ok());
  std::ifstream file(path);
  std::stringstream contents;
  contents << file.rdbuf();
  CHECK(contents.str().find("# old, hand-written") == std::string::npos);
  CHECK(contents.str().find("| Model | Xeon") != std::string::npos);
  CHECK(extract_human_notes(contents.str()) == "\nAccount: pi-hcn1\n");
  CHECK_FALSE(std::filesystem::exists(path + ".tmp"));
  CHECK_FALSE(
      update_system_file((dir / "missing" / "SYSTEM.md").string(), one_section(), "t").is_ok());
  std::filesystem::remove_all(dir);
}

TEST_CASE("text helpers") {
  CHECK(count_cpu_list("0-3,8,10-11") == 7);
  CHECK(count_cpu_list("0") == 1);
  CHECK_FALSE(count_cpu_list("a-b").has_value());
  CHECK(header_define("# define NCCL_MAJOR 2 // major\n", "NCCL_MAJOR") == std::string("2"));
  CHECK_FALSE(header_define("#define NCCL_MAJOR_X 2\n", "NCCL_MAJOR").has_value());
  CHECK(parse_colon_blocks("a : 1\n\na : 2\nb: 3\n").size() == 2);
}

}  // namespace
}  // namespace scalestudy::sysinfo
