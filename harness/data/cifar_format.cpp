#include "harness/data/cifar_format.hpp"

#include "harness/data/file_bytes.hpp"

namespace scalestudy::data {
namespace {

constexpr int64_t kCifar10Classes = 10;

Result<ImageSplit> read_cifar10_batch(const std::string& path) {
  Result<std::vector<uint8_t>> bytes = read_file_bytes(path);
  if (!bytes) return bytes.status();
  const int64_t size_bytes = static_cast<int64_t>(bytes->size());
  if (size_bytes == 0 || size_bytes % kCifar10RecordBytes != 0) {
    return Status::error(path + ": truncated or not CIFAR-10 binary: " +
                         std::to_string(size_bytes) + " bytes is not a positive multiple of the " +
                         std::to_string(kCifar10RecordBytes) + "-byte record");
  }
  const int64_t records = size_bytes / kCifar10RecordBytes;
  const torch::Tensor table =
      torch::from_blob(bytes->data(), {records, kCifar10RecordBytes}, torch::kUInt8);
  ImageSplit split{
      table.narrow(1, 1, kCifar10RecordBytes - 1).reshape({records, 3, 32, 32}).clone(),
      table.select(1, 0).to(torch::kLong)};
  Status valid = validate_split(split, kCifar10Classes, path);
  if (!valid) return valid;
  return split;
}

}  // namespace

Result<ImageSplit> read_cifar10_batches(const std::vector<std::string>& paths) {
  std::vector<torch::Tensor> images, labels;
  for (const std::string& path : paths) {
    Result<ImageSplit> batch = read_cifar10_batch(path);
    if (!batch) return batch.status();
    images.push_back(batch->images);
    labels.push_back(batch->labels);
  }
  if (paths.empty()) return Status::error("CIFAR-10: no batch files given");
  return ImageSplit{torch::cat(images), torch::cat(labels)};
}

}  // namespace scalestudy::data
