#include "harness/data/image_folder_scan.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "harness/core/ascii_case.hpp"

namespace scalestudy::data {
namespace {

namespace fs = std::filesystem;

constexpr char kAnnotationsFile[] = "val_annotations.txt";
constexpr char kClassListFile[] = "wnids.txt";

// Adds one source file (image, annotation list, class list) to the fingerprint.
Status add_to_fingerprint(const std::string& path, SourceFingerprint& fingerprint) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    return Status::error(path + ": cannot stat (" + std::strerror(errno) + ")");
  }
  const int64_t mtime_ns = static_cast<int64_t>(info.st_mtim.tv_sec) * 1000000000 +
                           static_cast<int64_t>(info.st_mtim.tv_nsec);
  fingerprint.file_count += 1;
  fingerprint.total_bytes += static_cast<int64_t>(info.st_size);
  fingerprint.newest_mtime_ns = std::max(fingerprint.newest_mtime_ns, mtime_ns);
  return Status::ok();
}

// Image files anywhere under `folder`, sorted by path; hidden entries are skipped.
Result<std::vector<std::string>> list_images(const fs::path& folder) {
  std::vector<std::string> files;
  std::error_code error;
  fs::recursive_directory_iterator it(folder, error), end;
  for (; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (!name.empty() && name[0] == '.') {
      if (it->is_directory(error)) it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(error) && is_image_file_name(name)) files.push_back(it->path());
  }
  if (error) return Status::error(folder.string() + ": cannot list (" + error.message() + ")");
  std::sort(files.begin(), files.end());
  return files;
}

// Non-hidden sub-folder names of `folder`, sorted.
Result<std::vector<std::string>> list_subfolders(const fs::path& folder) {
  std::vector<std::string> names;
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (!name.empty() && name[0] != '.' && it->is_directory(error)) names.push_back(name);
  }
  if (error) return Status::error(folder.string() + ": cannot list (" + error.message() + ")");
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> split_fields(const std::string& line, char separator) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (;;) {
    const size_t end = line.find(separator, start);
    fields.push_back(line.substr(start, end == std::string::npos ? end : end - start));
    if (end == std::string::npos) return fields;
    start = end + 1;
  }
}

std::string trim(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

std::map<std::string, int32_t> index_of(const std::vector<std::string>& class_names) {
  std::map<std::string, int32_t> index;
  for (size_t i = 0; i < class_names.size(); ++i) index[class_names[i]] = static_cast<int32_t>(i);
  return index;
}

Status check_class_list(const fs::path& path, const std::vector<std::string>& class_names) {
  std::ifstream in(path);
  if (!in) return Status::error(path.string() + ": cannot open");
  const std::set<std::string> train_classes(class_names.begin(), class_names.end());
  std::set<std::string> listed;
  std::string line;
  for (int line_number = 1; std::getline(in, line); ++line_number) {
    const std::string name = trim(line);
    if (name.empty()) continue;
    if (!train_classes.count(name)) {
      return Status::error(path.string() + ":" + std::to_string(line_number) + ":1: class '" +
                           name + "' has no folder under train/");
    }
    listed.insert(name);
  }
  for (const std::string& name : class_names) {
    if (!listed.count(name)) {
      return Status::error(path.string() + ": train/" + name + " is not listed");
    }
  }
  return Status::ok();
}

// val/images/* labelled by val/val_annotations.txt, in the annotation file's order.
Result<ImageFolderListing> scan_annotated_split(const fs::path& split_folder,
                                                ImageFolderListing listing,
                                                const std::vector<std::string>& class_names) {
  const fs::path annotations = split_folder / kAnnotationsFile;
  std::ifstream in(annotations);
  if (!in) return Status::error(annotations.string() + ": cannot open");
  const std::map<std::string, int32_t> class_index = index_of(class_names);
  std::string line;
  for (int line_number = 1; std::getline(in, line); ++line_number) {
    if (trim(line).empty()) continue;
    const std::string where = annotations.string() + ":" + std::to_string(line_number);
    const std::vector<std::string> fields = split_fields(line, '\t');
    if (fields.size() < 2 || fields[0].empty()) {
      return Status::error(where + ":1: expected 'file<TAB>class[<TAB>bbox...]'");
    }
    auto found = class_index.find(trim(fields[1]));
    if (found == class_index.end()) {
      return Status::error(where + ":" + std::to_string(fields[0].size() + 2) + ": class '" +
                           trim(fields[1]) + "' has no folder under train/");
    }
    const std::string image = (split_folder / "images" / fields[0]).string();
    Status counted = add_to_fingerprint(image, listing.fingerprint);
    if (!counted) return counted.with_context(where);
    listing.files.push_back(image);
    listing.labels.push_back(found->second);
  }
  Status counted = add_to_fingerprint(annotations.string(), listing.fingerprint);
  if (!counted) return counted;
  return listing;
}

// <split>/<class>/** for every class folder present.
Result<ImageFolderListing> scan_class_folders(const fs::path& split_folder,
                                              ImageFolderListing listing,
                                              const std::vector<std::string>& class_names) {
  const std::map<std::string, int32_t> class_index = index_of(class_names);
  Result<std::vector<std::string>> folders = list_subfolders(split_folder);
  if (!folders) return folders.status();
  for (const std::string& folder : *folders) {
    auto found = class_index.find(folder);
    if (found == class_index.end()) {
      return Status::error((split_folder / folder).string() +
                           ": class folder has no counterpart under train/");
    }
    Result<std::vector<std::string>> images = list_images(split_folder / folder);
    if (!images) return images.status();
    for (const std::string& image : *images) {
      Status counted = add_to_fingerprint(image, listing.fingerprint);
      if (!counted) return counted;
      listing.files.push_back(image);
      listing.labels.push_back(found->second);
    }
  }
  return listing;
}

}  // namespace

std::string SourceFingerprint::describe() const {
  char nanoseconds[16];
  std::snprintf(nanoseconds, sizeof(nanoseconds), "%09lld",
                static_cast<long long>(newest_mtime_ns % 1000000000));
  return std::to_string(file_count) + " files, " + std::to_string(total_bytes) +
         " bytes, newest mtime " + std::to_string(newest_mtime_ns / 1000000000) + "." +
         nanoseconds + "s";
}

bool is_image_file_name(const std::string& file_name) {
  const std::string extension = ascii_lowercase(fs::path(file_name).extension().string());
  return extension == ".jpeg" || extension == ".jpg" || extension == ".png";
}

Result<std::vector<std::string>> scan_class_names(const std::string& root) {
  const fs::path train = fs::path(root) / "train";
  std::error_code error;
  if (!fs::is_directory(train, error)) {
    return Status::error(train.string() + ": no such folder (expected train/<class>/*.JPEG)");
  }
  Result<std::vector<std::string>> class_names = list_subfolders(train);
  if (!class_names) return class_names;
  if (class_names->empty()) return Status::error(train.string() + ": no class folders");
  const fs::path class_list = fs::path(root) / kClassListFile;
  if (fs::is_regular_file(class_list, error)) {
    Status matches = check_class_list(class_list, *class_names);
    if (!matches) return matches;
  }
  return class_names;
}

Result<ImageFolderListing> scan_split(const std::string& root, const std::string& split,
                                      const std::vector<std::string>& class_names) {
  const fs::path split_folder = fs::path(root) / split;
  std::error_code error;
  if (!fs::is_directory(split_folder, error)) {
    return Status::error(split_folder.string() + ": no such folder");
  }
  ImageFolderListing listing;
  listing.split = split;
  const fs::path class_list = fs::path(root) / kClassListFile;
  if (fs::is_regular_file(class_list, error)) {
    Status counted = add_to_fingerprint(class_list.string(), listing.fingerprint);
    if (!counted) return counted;
  }
  Result<ImageFolderListing> scanned =
      fs::is_regular_file(split_folder / kAnnotationsFile, error)
          ? scan_annotated_split(split_folder, std::move(listing), class_names)
          : scan_class_folders(split_folder, std::move(listing), class_names);
  if (!scanned) return scanned;
  if (scanned->files.empty()) {
    return Status::error(split_folder.string() + ": no images (.JPEG, .jpg, .jpeg, .png)");
  }
  if (split == "train") {
    std::vector<bool> seen(class_names.size(), false);
    for (int32_t label : scanned->labels) seen[static_cast<size_t>(label)] = true;
    for (size_t i = 0; i < seen.size(); ++i) {
      if (!seen[i]) return Status::error((split_folder / class_names[i]).string() + ": no images");
    }
  }
  return scanned;
}

}  // namespace scalestudy::data
