#include "progress_printer.hpp"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "orchestrator/campaign/status_report.hpp"

namespace scalestudy::cli {

std::function<void(const campaign::StudyProgress&)> make_progress_printer() {
  const bool terminal = isatty(fileno(stdout)) != 0;
  auto last = std::make_shared<std::string>();
  return [terminal, last](const campaign::StudyProgress& progress) {
    std::string line = campaign::progress_line(progress);
    if (line == *last) return;
    *last = line;
    if (terminal) {
      std::cout << "\r\033[K" << line << std::flush;
      if (progress.in_flight == 0) std::cout << std::endl;
    } else {
      std::cout << line << std::endl;
    }
  };
}

}  // namespace scalestudy::cli
