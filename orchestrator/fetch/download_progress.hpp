// DownloadProgress: what a download shows while it runs — on a terminal a bar redrawn in
// place (bytes, %, rate, ETA), elsewhere (batch logs) one line every log interval. Owned
// by one download; not synchronised.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace scalestudy::fetch {

// "52% 88.4 MiB / 162.2 MiB 11.2 MiB/s ETA 0:07" (total 0: unknown, no % or ETA).
std::string describe_progress(unsigned long long done_bytes, unsigned long long total_bytes,
                              double rate_bytes_per_s);

class DownloadProgress {
 public:
  DownloadProgress(std::FILE* stream, bool interactive, std::string label,
                   double log_interval_s = 10.0);
  // Bytes of the file present so far (resumed part included), throttled output.
  void update(unsigned long long done_bytes, unsigned long long total_bytes);
  // The last line, always printed.
  void finish(unsigned long long done_bytes, unsigned long long total_bytes);
  // Rate counts only bytes transferred now, not the resumed part.
  void restart(unsigned long long resumed_bytes);

 private:
  void print(unsigned long long done_bytes, unsigned long long total_bytes, bool final_line);

  std::FILE* stream_;
  bool interactive_;
  std::string label_;
  double log_interval_s_;
  unsigned long long resumed_bytes_ = 0;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_print_ = started_;
};

}  // namespace scalestudy::fetch
