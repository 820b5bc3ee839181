#include "orchestrator/results/query/read_only_open.hpp"

#include <unistd.h>

#include <filesystem>

namespace scalestudy::results {
namespace {

namespace fs = std::filesystem;

// Whether SQLite can create the -wal and -shm files beside the database.
bool side_files_possible(const std::string& study_db_path) {
  fs::path folder = fs::path(study_db_path).parent_path();
  if (folder.empty()) folder = ".";
  return access(folder.c_str(), W_OK) == 0 && access(study_db_path.c_str(), W_OK) == 0;
}

// A file: URI for the path, with the characters URIs reserve escaped.
std::string immutable_uri(const std::string& path) {
  std::string uri = "file:";
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      static const char kHex[] = "0123456789ABCDEF";
      uri += '%';
      uri += kHex[(static_cast<unsigned char>(c) >> 4) & 0xf];
      uri += kHex[static_cast<unsigned char>(c) & 0xf];
    } else {
      uri += c;
    }
  }
  return uri + "?immutable=1";
}

}  // namespace

Result<sqlite::Database> open_study_database_for_reading(const std::string& study_db_path) {
  if (side_files_possible(study_db_path)) {
    return sqlite::Database::open(study_db_path, sqlite::OpenMode::kReadOnly);
  }
  return sqlite::Database::open(immutable_uri(study_db_path), sqlite::OpenMode::kReadOnly);
}

std::optional<std::string> read_only_note(const std::string& study_db_path) {
  if (side_files_possible(study_db_path)) return std::nullopt;
  std::string note = study_db_path +
                     ": the results folder is read-only; reading the database as it is on disk, "
                     "without WAL side files";
  std::error_code error;
  auto wal_bytes = fs::file_size(study_db_path + "-wal", error);
  if (!error && wal_bytes > 0) {
    note += " (its -wal file holds changes not yet in the database; they are not shown)";
  }
  return note;
}

}  // namespace scalestudy::results
