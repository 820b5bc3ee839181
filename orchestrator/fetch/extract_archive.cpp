#include "orchestrator/fetch/extract_archive.hpp"

#include <vector>

#include "orchestrator/common/process_runner.hpp"

namespace scalestudy::fetch {

Status extract_archive(ExtractKind kind, const std::string& archive,
                       const std::string& destination) {
  std::vector<std::string> argv;
  switch (kind) {
    case ExtractKind::kNone:
      return Status::ok();
    case ExtractKind::kTarGz:
      argv = {"tar", "-xzf", archive, "-C", destination, "--no-same-owner"};
      break;
    case ExtractKind::kZip:
      argv = {"unzip", "-q", "-o", archive, "-d", destination};
      break;
  }
  common::ProcessRequest request;
  request.argv = argv;
  request.timeout_ms = 60 * 60 * 1000;  // ImageNet-sized archives on slow shared storage
  auto result = common::run_process(request);
  if (!result) return result.status().with_context("extracting " + archive);
  if (!result->succeeded()) return common::command_error(argv, *result);
  return Status::ok();
}

}  // namespace scalestudy::fetch
