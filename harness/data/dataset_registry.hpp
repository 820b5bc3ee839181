// Loads a data set by name: "fashion-mnist", "mnist", "emnist-<split>" (byclass, bymerge,
// balanced, letters, digits, mnist), "cifar10" or "synthetic". File data sets are found
// under a data root: the explicit one, else $SCALESTUDY_DATA_ROOT, else the data set's
// default (fashion-mnist: /usr/share/datasets/fashion-mnist, Debian's package). Within the
// root, the files may sit directly or in the usual sub-folders (see harness/data/README.md).
// Stateless; thread-safe (reads the environment only in load_dataset).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "harness/data/image_dataset.hpp"
#include "harness/data/image_folder_dataset.hpp"
#include "harness/data/synthetic_dataset.hpp"

namespace scalestudy::data {

inline constexpr char kDataRootEnv[] = "SCALESTUDY_DATA_ROOT";

struct DatasetOptions {
  std::string name;
  std::string root;                      // empty: $SCALESTUDY_DATA_ROOT, then the default
  std::optional<bool> transpose_images;  // IDX only; unset: true for EMNIST, else false
  SyntheticOptions synthetic;            // used when name == "synthetic"
  ImageFolderOptions image_folder;       // used by "imagefolder" and "tinyimagenet"
};

// Valid names for messages and --help; "emnist-<split>" stands for the EMNIST splits.
std::vector<std::string> dataset_names();

// The root a file data set is read from: `explicit_root`, else `env_root` (may be null or
// empty), else the data set's default; an error when none applies.
Result<std::string> resolve_data_root(const std::string& name, const std::string& explicit_root,
                                      const char* env_root);

Result<ImageDataset> load_dataset(const DatasetOptions& options);

}  // namespace scalestudy::data
