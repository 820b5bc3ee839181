// A printing study for the history and site tests (the "measure any program" path): a
// script prints "throughput X samples/s", 1000 x $PRINTER_FACTOR wobbling 1 % with the
// repeat's seed and $PRINTER_CAMPAIGN, as repeated measurements do; each campaign is one
// `scalestudy run --campaign c<N>` on the local executor. Header-only test support.
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/cli_test_support.hpp"

namespace scalestudy::testing {

// DIR/<name>.yaml: 3 repeats of the printer, with `extra` YAML appended.
inline std::string write_printing_study(const std::filesystem::path& dir, const std::string& name,
                                        const std::string& extra = "") {
  std::filesystem::create_directories(dir);
  const auto printer = dir / "printer.sh";
  std::ofstream(printer) << R"sh(#!/bin/sh
seed=0
while [ $# -gt 0 ]; do case "$1" in --seed) seed=$2; shift 2 ;; *) shift ;; esac; done
awk -v s="$seed" -v c="${PRINTER_CAMPAIGN:-0}" -v f="${PRINTER_FACTOR:-1}" \
  'BEGIN { printf "throughput %.3f samples/s\n", 1000 * f * (1 + 0.01 * sin(s * 2.3 + c * 1.7)) }'
)sh";
  std::filesystem::permissions(printer, std::filesystem::perms::all);
  const auto path = dir / (name + ".yaml");
  std::ofstream(path) << "study: " << name
                      << "\nkind: custom\nworkload: {binary: " << printer.string()
                      << ", seed: \"${repeat}\"}\nrepeats: 3\nmetrics:\n  throughput: "
                         "{pattern: 'throughput ([0-9.]+)', role: throughput}\n"
                      << extra;
  return path.string();
}

// Campaign c<campaign> of `study`, its throughput `factor` x 1000.
inline void run_printing_campaign(const std::string& study, const std::string& results,
                                  int campaign, double factor) {
  common::ProcessResult ran = run_cli_with(
      {"run", study, "--scheduler", "local", "--results-dir", results, "--campaign",
       "c" + std::to_string(campaign), "--no-plots", "--format", "json"},
      {{"PRINTER_CAMPAIGN", std::to_string(campaign)}, {"PRINTER_FACTOR", std::to_string(factor)}},
      300'000);
  INFO(ran.stdout_text << ran.stderr_text);
  REQUIRE(ran.exit_code == 0);
}

}  // namespace scalestudy::testing
