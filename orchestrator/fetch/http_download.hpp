// One transfer of one URL into a partial file with libcurl. Over HTTP(S) an existing
// partial file is resumed with a Range request; a server that answers 200 instead of 206
// (ignoring Range) gets the file rewritten from the start, and a 206 for the wrong offset
// is refused, and so is a body longer than expected. Other schemes (file://, ftp://) always start
// over. Stateless; each call uses its own curl handle, so calls may run on several threads.
#pragma once

#include <string>

#include "harness/core/status.hpp"
#include "orchestrator/fetch/download_progress.hpp"

namespace scalestudy::fetch {

struct DownloadRequest {
  std::string url;
  std::string partial_path;               // created, appended to or rewritten
  unsigned long long expected_bytes = 0;  // progress, and the most accepted; 0 when unknown
  long connect_timeout_s = 30;
  long stall_timeout_s = 60;  // give up when under 1 byte/s for this long
};

struct DownloadResult {
  Status status;                              // ok when the whole body arrived
  long http_status = 0;                       // the final response's code; 0 for non-HTTP schemes
  unsigned long long resumed_from_bytes = 0;  // the Range offset asked for; 0 if none
  bool server_ignored_range = false;          // asked for a range, got the whole file
  unsigned long long received_bytes = 0;      // body bytes written by this transfer
};

DownloadResult download_to_partial(const DownloadRequest& request, DownloadProgress* progress);

}  // namespace scalestudy::fetch
