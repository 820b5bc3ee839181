#include "orchestrator/fetch/dataset_table.hpp"

#include <cctype>
#include <fstream>
#include <sstream>

#include "harness/core/ascii_case.hpp"

namespace scalestudy::fetch {
namespace {

enum Column { kName, kFile, kBytes, kDigest, kExtract, kUrls, kColumnCount };
const char* const kColumnNames[] = {"name", "file", "bytes", "digest", "extract", "urls"};

bool is_hex(const std::string& text, size_t length) {
  if (text.size() != length) return false;
  for (char character : text) {
    if (!std::isxdigit(static_cast<unsigned char>(character))) return false;
  }
  return true;
}

// One parsed row, or the message of what is wrong with which field.
Status parse_row(const std::vector<std::string>& fields, std::string& name, DatasetFile& file,
                 int& bad_column) {
  bad_column = kName;
  if (fields.size() != kColumnCount) {
    bad_column = static_cast<int>(std::min<size_t>(fields.size(), kColumnCount - 1));
    return Status::error("expected " + std::to_string(kColumnCount) +
                         " tab-separated columns (name, file, bytes, digest, extract, urls), got " +
                         std::to_string(fields.size()));
  }
  name = fields[kName];
  if (name.empty()) return Status::error("empty data set name");
  // The name is a folder under the data root: no '/', no '..', no hidden name.
  if (name[0] == '.' ||
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                             "0123456789._-") != std::string::npos) {
    return Status::error("'" + name +
                         "' is no data set name (letters, digits, '.', '_', '-'; "
                         "not starting with '.')");
  }
  bad_column = kFile;
  file.file_name = fields[kFile];
  if (file.file_name.empty() || file.file_name.find('/') != std::string::npos ||
      file.file_name[0] == '.') {
    return Status::error("a plain file name is required, got '" + file.file_name + "'");
  }
  bad_column = kBytes;
  const std::string& bytes = fields[kBytes];
  if (bytes.empty() || bytes.find_first_not_of("0123456789") != std::string::npos) {
    return Status::error("expected a byte count, got '" + bytes + "'");
  }
  file.size_bytes = std::stoull(bytes);
  bad_column = kDigest;
  const std::string& digest = fields[kDigest];
  if (digest == "-") {
    file.digest_kind = DigestKind::kNone;
  } else if (digest.rfind("sha256:", 0) == 0 && is_hex(digest.substr(7), 64)) {
    file.digest_kind = DigestKind::kSha256;
    file.digest_hex = ascii_lowercase(digest.substr(7));
  } else if (digest.rfind("md5:", 0) == 0 && is_hex(digest.substr(4), 32)) {
    file.digest_kind = DigestKind::kMd5;
    file.digest_hex = ascii_lowercase(digest.substr(4));
  } else {
    return Status::error("expected sha256:<64 hex digits>, md5:<32 hex digits> or -, got '" +
                         digest + "'");
  }
  bad_column = kExtract;
  const std::string& extract = fields[kExtract];
  if (extract == "none")
    file.extract = ExtractKind::kNone;
  else if (extract == "tar.gz")
    file.extract = ExtractKind::kTarGz;
  else if (extract == "zip")
    file.extract = ExtractKind::kZip;
  else
    return Status::error("expected none, tar.gz or zip, got '" + extract + "'");
  bad_column = kUrls;
  std::istringstream urls(fields[kUrls]);
  for (std::string url; urls >> url;) file.urls.push_back(url);
  if (file.urls.empty()) return Status::error("at least one URL is required");
  return Status::ok();
}

}  // namespace

Result<std::vector<Dataset>> parse_dataset_table(const std::string& text,
                                                 const std::string& source_name) {
  std::vector<Dataset> table;
  std::istringstream lines(text);
  int line_number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::vector<size_t> columns;  // 1-based column where each field starts
    size_t start = 0;
    while (true) {
      size_t tab = line.find('\t', start);
      columns.push_back(start + 1);
      fields.push_back(
          line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
    std::string name;
    DatasetFile file;
    int bad_column = 0;
    if (Status row = parse_row(fields, name, file, bad_column); !row) {
      size_t column =
          bad_column < static_cast<int>(columns.size()) ? columns[bad_column] : line.size() + 1;
      return Status::error(source_name + ":" + std::to_string(line_number) + ":" +
                           std::to_string(column) + ": " + kColumnNames[bad_column] + ": " +
                           row.message());
    }
    if (table.empty() || table.back().name != name) {
      for (const auto& earlier : table) {
        if (earlier.name == name) {
          return Status::error(source_name + ":" + std::to_string(line_number) +
                               ":1: name: rows of data set '" + name + "' must be adjacent");
        }
      }
      table.push_back({name, {}});
    }
    table.back().files.push_back(std::move(file));
  }
  return table;
}

Result<std::vector<Dataset>> load_dataset_table(const std::optional<std::string>& file) {
  if (!file) return parse_dataset_table(builtin_dataset_table(), "datasets.tsv (built in)");
  std::ifstream in(*file);
  if (!in) return Status::error("cannot read " + *file);
  std::ostringstream contents;
  contents << in.rdbuf();
  return parse_dataset_table(contents.str(), *file);
}

Result<Dataset> find_dataset(const std::vector<Dataset>& table, const std::string& name) {
  std::string known;
  for (const auto& dataset : table) {
    if (dataset.name == name) return dataset;
    known += (known.empty() ? "" : ", ") + dataset.name;
  }
  return Status::error("unknown data set '" + name + "'; known: " + known);
}

const char* digest_name(DigestKind kind) {
  switch (kind) {
    case DigestKind::kSha256:
      return "sha256";
    case DigestKind::kMd5:
      return "md5";
    case DigestKind::kNone:
      return "size only";
  }
  return "";
}

}  // namespace scalestudy::fetch
