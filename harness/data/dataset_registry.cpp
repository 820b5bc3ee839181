#include "harness/data/dataset_registry.hpp"

#include <cstdlib>
#include <filesystem>
#include <map>

#include "harness/data/cifar_format.hpp"
#include "harness/data/file_bytes.hpp"
#include "harness/data/idx_format.hpp"

namespace scalestudy::data {
namespace {

constexpr char kFashionMnistDefaultRoot[] = "/usr/share/datasets/fashion-mnist";

// Published per-channel constants (torchvision recipes); others are computed at load.
const std::map<std::string, ChannelStats>& published_stats() {
  static const std::map<std::string, ChannelStats> kStats = {
      {"fashion-mnist", {{0.2860}, {0.3530}}},
      {"mnist", {{0.1307}, {0.3081}}},
      {"cifar10", {{0.4914, 0.4822, 0.4465}, {0.2470, 0.2435, 0.2616}}},
  };
  return kStats;
}

// EMNIST "letters" labels run 1..26, so it has 27 classes with 0 unused (as torchvision).
const std::map<std::string, int64_t>& emnist_classes() {
  static const std::map<std::string, int64_t> kClasses = {{"byclass", 62},  {"bymerge", 47},
                                                          {"balanced", 47}, {"letters", 27},
                                                          {"digits", 10},   {"mnist", 10}};
  return kClasses;
}

std::string join(const std::vector<std::string>& items) {
  std::string joined;
  for (const std::string& item : items) joined += (joined.empty() ? "" : ", ") + item;
  return joined;
}

// The first of `subfolders` (relative to root) holding `probe_file` (plain or .gz).
Result<std::string> find_folder(const std::string& name, const std::string& root,
                                const std::vector<std::string>& subfolders,
                                const std::string& probe_file) {
  std::vector<std::string> searched;
  for (const std::string& subfolder : subfolders) {
    std::filesystem::path folder_path =
        (std::filesystem::path(root) / subfolder).lexically_normal();
    if (!folder_path.has_filename()) folder_path = folder_path.parent_path();  // "root/." -> "root"
    const std::string folder = folder_path.string();
    if (resolve_plain_or_gzip(folder + "/" + probe_file)) return folder;
    searched.push_back(folder);
  }
  return Status::error(name + ": " + probe_file + "[.gz] not found in any of: " + join(searched) +
                       " (set the data root or " + kDataRootEnv + ")");
}

struct IdxLayout {
  std::vector<std::string> subfolders;
  std::string file_prefix;  // "emnist-balanced-" for EMNIST
  std::string test_stem;    // "t10k" (MNIST, Fashion-MNIST) or "test" (EMNIST)
  int64_t num_classes;
  bool transposed;
};

Result<ImageSplit> read_idx_named_split(const std::string& folder, const IdxLayout& layout,
                                        const std::string& stem, bool transpose) {
  const std::string base = folder + "/" + layout.file_prefix + stem;
  Result<std::string> images = resolve_plain_or_gzip(base + "-images-idx3-ubyte");
  if (!images) return images.status();
  Result<std::string> labels = resolve_plain_or_gzip(base + "-labels-idx1-ubyte");
  if (!labels) return labels.status();
  Result<ImageSplit> split = read_idx_split(*images, *labels, transpose);
  if (!split) return split;
  Status valid = validate_split(*split, layout.num_classes, *labels);
  if (!valid) return valid;
  return split;
}

Result<ImageDataset> load_idx(const DatasetOptions& options, const std::string& root,
                              const IdxLayout& layout) {
  Result<std::string> folder = find_folder(options.name, root, layout.subfolders,
                                           layout.file_prefix + "train-images-idx3-ubyte");
  if (!folder) return folder.status();
  const bool transpose = options.transpose_images.value_or(layout.transposed);
  ImageDataset dataset;
  dataset.name = options.name;
  dataset.num_classes = layout.num_classes;
  Result<ImageSplit> train = read_idx_named_split(*folder, layout, "train", transpose);
  if (!train) return train.status();
  Result<ImageSplit> test = read_idx_named_split(*folder, layout, layout.test_stem, transpose);
  if (!test) return test.status();
  if (!test->images.sizes().slice(1).equals(train->images.sizes().slice(1))) {
    return Status::error(options.name + ": train and test images differ in shape in " + *folder);
  }
  dataset.train = std::move(*train);
  dataset.test = std::move(*test);
  return dataset;
}

Result<ImageDataset> load_cifar10(const DatasetOptions& options, const std::string& root) {
  Result<std::string> folder = find_folder(
      options.name, root, {"cifar-10-batches-bin", ".", "cifar10/cifar-10-batches-bin", "cifar10"},
      "data_batch_1.bin");
  if (!folder) return folder.status();
  std::vector<std::string> train_files;
  for (int i = 1; i <= 5; ++i) {
    train_files.push_back(*folder + "/data_batch_" + std::to_string(i) + ".bin");
  }
  ImageDataset dataset;
  dataset.name = options.name;
  dataset.num_classes = 10;
  Result<ImageSplit> train = read_cifar10_batches(train_files);
  if (!train) return train.status();
  Result<ImageSplit> test = read_cifar10_batches({*folder + "/test_batch.bin"});
  if (!test) return test.status();
  dataset.train = std::move(*train);
  dataset.test = std::move(*test);
  return dataset;
}

Result<ImageDataset> load_file_dataset(const DatasetOptions& options, const std::string& root) {
  const std::string& name = options.name;
  if (name == "cifar10") return load_cifar10(options, root);
  if (name == "mnist" || name == "fashion-mnist") {
    const std::string torchvision_folder = name == "mnist" ? "MNIST/raw" : "FashionMNIST/raw";
    return load_idx(options, root, {{".", name, torchvision_folder}, "", "t10k", 10, false});
  }
  const std::string emnist_split = name.substr(std::string("emnist-").size());
  return load_idx(options, root,
                  {{".", "emnist", "emnist/gzip", "gzip", "EMNIST/raw"},
                   "emnist-" + emnist_split + "-",
                   "test",
                   emnist_classes().at(emnist_split),
                   true});
}

bool is_known_name(const std::string& name) {
  if (name == "synthetic" || name == "cifar10" || published_stats().count(name)) return true;
  if (is_image_folder_dataset(name)) return true;
  const std::string emnist_prefix = "emnist-";
  return name.rfind(emnist_prefix, 0) == 0 &&
         emnist_classes().count(name.substr(emnist_prefix.size())) > 0;
}

}  // namespace

std::vector<std::string> dataset_names() {
  std::vector<std::string> names = {"fashion-mnist", "mnist", "cifar10", "synthetic"};
  for (const auto& [split, classes] : emnist_classes()) names.push_back("emnist-" + split);
  for (const std::string& name : image_folder_dataset_names()) names.push_back(name);
  return names;
}

Result<std::string> resolve_data_root(const std::string& name, const std::string& explicit_root,
                                      const char* env_root) {
  if (!explicit_root.empty()) return explicit_root;
  if (env_root != nullptr && env_root[0] != '\0') return std::string(env_root);
  if (name == "fashion-mnist") return std::string(kFashionMnistDefaultRoot);
  return Status::error(name + ": no data root given; pass one or set " + kDataRootEnv);
}

Result<ImageDataset> load_dataset(const DatasetOptions& options) {
  if (!is_known_name(options.name)) {
    return Status::error("unknown data set '" + options.name +
                         "'; valid: " + join(dataset_names()));
  }
  if (options.name == "synthetic") return make_synthetic_dataset(options.synthetic);
  Result<std::string> root =
      resolve_data_root(options.name, options.root, std::getenv(kDataRootEnv));
  if (!root) return root.status();
  if (is_image_folder_dataset(options.name)) {
    return load_image_folder_dataset(options.name, *root, options.image_folder);
  }
  Result<ImageDataset> dataset = load_file_dataset(options, *root);
  if (!dataset) return dataset;
  auto stats = published_stats().find(options.name);
  dataset->normalization =
      stats != published_stats().end() ? stats->second : compute_channel_stats(dataset->train);
  return dataset;
}

}  // namespace scalestudy::data
