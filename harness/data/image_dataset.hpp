// ImageDataset: a whole image-classification data set held in memory, one ImageSplit per
// split. Images stay uint8 [N, C, H, W] (contiguous) so a GPU path can upload each split
// once and assemble batches on the device; labels are int64 [N]. The data sets this
// harness trains on (MNIST family, CIFAR-10, synthetic) fit in memory many times over.
// Value types sharing tensor storage: copies are cheap; concurrent reads are safe, writes
// are not synchronised.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::data {

struct ImageSplit {
  torch::Tensor images;  // uint8 [N, C, H, W], contiguous
  torch::Tensor labels;  // int64 [N]

  int64_t size() const { return labels.defined() ? labels.size(0) : 0; }
};

// Per-channel mean and standard deviation of pixel values scaled to [0, 1].
struct ChannelStats {
  std::vector<double> mean;
  std::vector<double> stddev;
};

struct ImageDataset {
  std::string name;  // "fashion-mnist", "cifar10", "synthetic", ...
  int64_t num_classes = 0;
  ImageSplit train;
  ImageSplit test;
  ChannelStats normalization;  // used by batch assembly for every split

  int64_t channels() const { return train.images.size(1); }
  int64_t height() const { return train.images.size(2); }
  int64_t width() const { return train.images.size(3); }
};

// Per-channel statistics of a split (pixel values / 255), for data sets without published
// constants.
ChannelStats compute_channel_stats(const ImageSplit& split);

// Checks shapes, dtypes, matching counts and that every label lies in [0, num_classes);
// `source` names the files the split came from, for the message.
Status validate_split(const ImageSplit& split, int64_t num_classes, const std::string& source);

}  // namespace scalestudy::data
