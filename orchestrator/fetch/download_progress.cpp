#include "orchestrator/fetch/download_progress.hpp"

#include "orchestrator/common/human_bytes.hpp"

namespace scalestudy::fetch {
namespace {

constexpr double kRedrawInterval_s = 0.2;
constexpr int kBarWidth = 24;

std::string clock_text(double seconds) {
  long total = static_cast<long>(seconds + 0.5);
  char text[32];
  if (total >= 3600) {
    std::snprintf(text, sizeof(text), "%ld:%02ld:%02ld", total / 3600, total / 60 % 60, total % 60);
  } else {
    std::snprintf(text, sizeof(text), "%ld:%02ld", total / 60, total % 60);
  }
  return text;
}

}  // namespace

std::string describe_progress(unsigned long long done_bytes, unsigned long long total_bytes,
                              double rate_bytes_per_s) {
  std::string text;
  if (total_bytes > 0) {
    text += std::to_string(done_bytes * 100 / total_bytes) + "% ";
  }
  text += common::human_bytes(done_bytes);
  if (total_bytes > 0) text += " / " + common::human_bytes(total_bytes);
  if (rate_bytes_per_s > 0) {
    text += " " + common::human_bytes(static_cast<unsigned long long>(rate_bytes_per_s)) + "/s";
    if (total_bytes > done_bytes) {
      text +=
          " ETA " + clock_text(static_cast<double>(total_bytes - done_bytes) / rate_bytes_per_s);
    }
  }
  return text;
}

DownloadProgress::DownloadProgress(std::FILE* stream, bool interactive, std::string label,
                                   double log_interval_s)
    : stream_(stream),
      interactive_(interactive),
      label_(std::move(label)),
      log_interval_s_(log_interval_s) {}

void DownloadProgress::restart(unsigned long long resumed_bytes) {
  resumed_bytes_ = resumed_bytes;
  started_ = std::chrono::steady_clock::now();
  last_print_ = started_;
}

void DownloadProgress::update(unsigned long long done_bytes, unsigned long long total_bytes) {
  auto now = std::chrono::steady_clock::now();
  double since_print_s = std::chrono::duration<double>(now - last_print_).count();
  if (since_print_s < (interactive_ ? kRedrawInterval_s : log_interval_s_)) return;
  last_print_ = now;
  print(done_bytes, total_bytes, false);
}

void DownloadProgress::finish(unsigned long long done_bytes, unsigned long long total_bytes) {
  print(done_bytes, total_bytes, true);
}

void DownloadProgress::print(unsigned long long done_bytes, unsigned long long total_bytes,
                             bool final_line) {
  if (stream_ == nullptr) return;
  double elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  unsigned long long transferred = done_bytes > resumed_bytes_ ? done_bytes - resumed_bytes_ : 0;
  double rate = elapsed_s > 0 ? static_cast<double>(transferred) / elapsed_s : 0;
  std::string status = describe_progress(done_bytes, total_bytes, rate);
  if (interactive_) {
    int filled = total_bytes > 0 ? static_cast<int>(done_bytes * kBarWidth / total_bytes) : 0;
    std::string bar(static_cast<size_t>(std::min(filled, kBarWidth)), '=');
    bar.resize(kBarWidth, ' ');
    std::fprintf(stream_, "\r%s [%s] %s\033[K%s", label_.c_str(), bar.c_str(), status.c_str(),
                 final_line ? "\n" : "");
  } else {
    std::fprintf(stream_, "%s: %s\n", label_.c_str(), status.c_str());
  }
  std::fflush(stream_);
}

}  // namespace scalestudy::fetch
