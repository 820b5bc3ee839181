// Opens a study database for reading wherever it lies, including a results folder the
// user cannot write (a shared or archived copy, a read-only mount). A WAL database needs
// its -shm side file even to read; where that cannot be created, the file is opened
// immutable (no side files, no locks), and read_only_note() says so. Functions.
#pragma once

#include <optional>
#include <string>

#include "harness/core/sqlite.hpp"
#include "harness/core/status.hpp"

namespace scalestudy::results {

Result<sqlite::Database> open_study_database_for_reading(const std::string& study_db_path);

// What open_study_database_for_reading() will do differently for this path, for the
// user; empty when the folder is writable.
std::optional<std::string> read_only_note(const std::string& study_db_path);

}  // namespace scalestudy::results
