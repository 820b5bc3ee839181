#include "orchestrator/sysinfo/sections.hpp"
#include "orchestrator/sysinfo/text.hpp"

namespace scalestudy::sysinfo {
namespace {

// First line of `program --version`; empty (with the reason as source) when absent.
void add_tool(const Probe& probe, Section& section, const std::string& key,
              const std::string& label, const std::string& program) {
  auto output = probe.run({program, "--version"});
  if (!output) {
    section.add(key, label, "", output.status().message());
    return;
  }
  std::string line =
      first_line(output->stdout_text.empty() ? output->stderr_text : output->stdout_text);
  section.add(key, label, output->succeeded() ? line : "",
              "`" + *probe.find_program(program) + " --version`");
}

}  // namespace

Section probe_compilers(const Probe& probe) {
  Section section;
  section.title = "Compilers and tools";
  std::string cxx = probe.env("CXX").value_or("");
  add_tool(probe, section, "compiler", "C++ compiler (" + (cxx.empty() ? "c++" : cxx) + ")",
           cxx.empty() ? "c++" : cxx);
  add_tool(probe, section, "gcc_version", "GCC", "gcc");
  add_tool(probe, section, "clang_version", "Clang", "clang");
  add_tool(probe, section, "mpi_version", "MPI launcher", "mpirun");
  add_tool(probe, section, "cmake_version", "CMake", "cmake");
  return section;
}

}  // namespace scalestudy::sysinfo
