// scalestudy-pack: decodes an ImageFolder tree (TinyImageNet layout) once into the packed
// split files training reads (harness/data/image_folder_dataset.hpp, format in
// docs/pack-format.md). Training packs on first use by itself; this tool does it ahead of
// time (say, on a login node before a large allocation starts) and reports the decode rate.
//   scalestudy-pack --data-root DIR [--image-size 64] [--split all|train|val]
//                   [--output-dir DIR | --output FILE] [--threads 0] [--force false]
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "harness/data/image_folder_dataset.hpp"
#include "harness/train/flags.hpp"

namespace scalestudy {
namespace {

void declare_flags(train::Flags& flags) {
  flags.declare("data-root", "", "folder holding train/ and val/ (or tiny-imagenet-200/)");
  flags.declare("image-size", "64", "packed images are this many pixels square").integer(1);
  flags.declare("split", "all", "all | train | val").one_of({"all", "train", "val"});
  flags.declare("output-dir", "",
                "where the packs go; default <root>/.scalestudy-pack (the cache)");
  flags.declare("output", "", "the pack file, with --split train or val");
  flags.declare("threads", "0", "decode threads; 0: one per hardware thread").integer(0);
  flags.declare("force", "false", "decode even when the pack is current").boolean();
}

struct PackRequest {
  std::string root;
  std::vector<std::string> splits;
  std::string output;
  data::ImageFolderOptions options;
  bool force = false;
};

Result<PackRequest> resolve(const train::Flags& flags) {
  PackRequest request;
  if (flags.get("data-root").empty()) return Status::error("--data-root is required");
  Result<std::string> root = data::find_image_folder_root(flags.get("data-root"));
  if (!root) return root.status();
  request.root = *root;
  const std::string split = flags.get("split");
  if (split == "all") {
    request.splits = {"train", "val"};
  } else if (split == "train" || split == "val") {
    request.splits = {split};
  } else {
    return Status::error("--split: '" + split + "' is not all, train or val");
  }
  request.output = flags.get("output");
  if (!request.output.empty() && request.splits.size() != 1) {
    return Status::error("--output names one file: pass --split train or --split val with it");
  }
  Result<int64_t> size = flags.get_int("image-size");
  if (!size) return size.status();
  if (*size <= 0 || *size > 4096)
    return Status::error("--image-size: " + std::to_string(*size) + " is not in 1..4096");
  Result<int64_t> threads = flags.get_int("threads");
  if (!threads) return threads.status();
  if (*threads < 0) return Status::error("--threads: must be 0 or more");
  Result<bool> force = flags.get_bool("force");
  if (!force) return force.status();
  request.options = {*size, flags.get("output-dir"), static_cast<int>(*threads)};
  request.force = *force;
  return request;
}

Status pack(const PackRequest& request) {
  for (const std::string& split : request.splits) {
    const std::string path = request.output.empty()
                                 ? data::pack_cache_path(request.root, split, request.options)
                                 : request.output;
    Result<data::PackedSplitLoad> load =
        data::pack_split(request.root, split, path, request.options, request.force);
    if (!load) return load.status();
    const data::PackOutcome& outcome = load->outcome;
    const data::PackHeader& header = load->packed.header;
    std::error_code ignored;
    const double megabytes = static_cast<double>(std::filesystem::file_size(path, ignored)) / 1e6;
    std::printf("%s: %lld images %lldx%lld, %zu classes -> %s (%.1f MB)\n", split.c_str(),
                static_cast<long long>(header.count), static_cast<long long>(header.height),
                static_cast<long long>(header.width), header.class_names.size(), path.c_str(),
                megabytes);
    if (outcome.reused) {
      std::printf("%s: current (%s), nothing decoded\n", split.c_str(),
                  header.source.describe().c_str());
      continue;
    }
    const data::DecodeReport& decode = outcome.decode;
    std::printf("%s: decoded in %.2f s: %.0f images/s on %d threads (%s)\n", split.c_str(),
                decode.seconds, decode.images_per_second(), decode.threads,
                outcome.repack_reason.c_str());
    if (decode.warnings > 0) {
      std::printf("%s: %lld images decoded with warnings; first: %s\n", split.c_str(),
                  static_cast<long long>(decode.warnings), decode.first_warning.c_str());
    }
  }
  return Status::ok();
}

}  // namespace
}  // namespace scalestudy

int main(int argc, char** argv) {
  scalestudy::train::Flags flags;
  scalestudy::declare_flags(flags);
  const scalestudy::Status parsed = flags.parse(std::vector<std::string>(argv + 1, argv + argc));
  if (flags.help_requested()) {
    std::cout << flags.usage("scalestudy-pack");
    return 0;
  }
  scalestudy::Status status = parsed;
  if (status) {
    scalestudy::Result<scalestudy::PackRequest> request = scalestudy::resolve(flags);
    status = request ? scalestudy::pack(*request) : request.status();
  }
  if (!status) {
    std::cerr << "scalestudy-pack: " << status.message() << "\n";
    return 1;
  }
  return 0;
}
