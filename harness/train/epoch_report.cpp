#include "harness/train/epoch_report.hpp"

#include <unistd.h>

#include <cstdio>

namespace scalestudy::train {
namespace {

std::string fixed(const std::optional<double>& value, const char* format) {
  if (!value) return "-";
  char text[64];
  std::snprintf(text, sizeof(text), format, *value);
  return text;
}

std::optional<double> percent(const std::optional<double>& fraction) {
  return fraction ? std::optional<double>(*fraction * 100) : std::nullopt;
}

}  // namespace

std::string format_epoch_line(const record::EpochRow& epoch, int64_t total_epochs,
                              int64_t tokens_per_sample) {
  const std::string throughput =
      tokens_per_sample > 0
          ? fixed(epoch.samples_per_s, "%.0f") + " seq/s, " +
                fixed(epoch.samples_per_s * static_cast<double>(tokens_per_sample), "%.0f") +
                " tokens/s"
          : fixed(epoch.samples_per_s, "%.0f") + " img/s";
  return "Epoch [" + std::to_string(epoch.epoch) + "/" + std::to_string(total_epochs) + "] LR " +
         fixed(epoch.lr, "%.4f") + " | Loss (train, val) " + fixed(epoch.train_loss, "%.3f") +
         ", " + fixed(epoch.val_loss, "%.3f") + " | Accuracy (train, val) " +
         fixed(percent(epoch.train_acc), "%.1f%%") + ", " +
         fixed(percent(epoch.val_acc), "%.1f%%") + " | Throughput " + throughput + " | " +
         fixed(epoch.epoch_s, "%.1f") + " s";
}

ProgressIndicator::ProgressIndicator(bool enabled, int64_t interval_steps)
    : active_(enabled && interval_steps > 0 && isatty(STDOUT_FILENO)),
      interval_steps_(interval_steps) {}

void ProgressIndicator::update(int64_t epoch, int64_t total_epochs, int64_t step, int64_t steps,
                               double loss) {
  if (!active_ || (step % interval_steps_ != 0 && step != steps)) return;
  std::printf("\r\033[K  epoch %lld/%lld  step %lld/%lld  loss %.3f", static_cast<long long>(epoch),
              static_cast<long long>(total_epochs), static_cast<long long>(step),
              static_cast<long long>(steps), loss);
  std::fflush(stdout);
  drawn_ = true;
}

void ProgressIndicator::clear() {
  if (!drawn_) return;
  std::printf("\r\033[K");
  std::fflush(stdout);
  drawn_ = false;
}

}  // namespace scalestudy::train
