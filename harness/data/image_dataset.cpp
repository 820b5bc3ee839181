#include "harness/data/image_dataset.hpp"

namespace scalestudy::data {

ChannelStats compute_channel_stats(const ImageSplit& split) {
  // Accumulate in double: 60000 x 784 uint8 values sum past float's exact range.
  const torch::Tensor per_channel =
      split.images.transpose(0, 1).reshape({split.images.size(1), -1}).to(torch::kDouble) / 255.0;
  const torch::Tensor mean = per_channel.mean(1);
  const torch::Tensor stddev = per_channel.std(1);
  ChannelStats stats;
  for (int64_t c = 0; c < per_channel.size(0); ++c) {
    stats.mean.push_back(mean[c].item<double>());
    stats.stddev.push_back(stddev[c].item<double>());
  }
  return stats;
}

Status validate_split(const ImageSplit& split, int64_t num_classes, const std::string& source) {
  if (!split.images.defined() || split.images.dim() != 4 ||
      split.images.scalar_type() != torch::kUInt8) {
    return Status::error(source + ": images must be a uint8 tensor [N, C, H, W]");
  }
  if (!split.labels.defined() || split.labels.dim() != 1 ||
      split.labels.scalar_type() != torch::kLong) {
    return Status::error(source + ": labels must be an int64 tensor [N]");
  }
  if (split.images.size(0) != split.labels.size(0)) {
    return Status::error(source + ": " + std::to_string(split.images.size(0)) + " images but " +
                         std::to_string(split.labels.size(0)) + " labels");
  }
  if (split.size() == 0) return Status::error(source + ": the split holds no samples");
  const int64_t min_label = split.labels.min().item<int64_t>();
  const int64_t max_label = split.labels.max().item<int64_t>();
  if (min_label < 0 || max_label >= num_classes) {
    return Status::error(source + ": label " +
                         std::to_string(min_label < 0 ? min_label : max_label) + " outside [0, " +
                         std::to_string(num_classes) + ")");
  }
  return Status::ok();
}

}  // namespace scalestudy::data
