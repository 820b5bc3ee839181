#include "orchestrator/study/workload_files.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "orchestrator/study/schema_values.hpp"
#include "orchestrator/study/toml_syntax.hpp"

namespace scalestudy {
namespace {

enum class FileKind { kText, kJson, kToml, kYaml };

FileKind kind_of(const std::string& name) {
  auto ends_with = [&](const char* suffix) {
    const std::string tail = suffix;
    return name.size() > tail.size() &&
           name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
  };
  if (ends_with(".json")) return FileKind::kJson;
  if (ends_with(".toml")) return FileKind::kToml;
  if (ends_with(".yaml") || ends_with(".yml")) return FileKind::kYaml;
  return FileKind::kText;
}

// What the run folder holds of scalestudy's own: a file of the study may not replace it.
bool is_scalestudy_file(const std::string& name) {
  return name == "job.sbatch" || name == "launch.log" || name.rfind("rank", 0) == 0 ||
         name.rfind("slurm-", 0) == 0;
}

bool is_file_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
         });
}

}  // namespace

void read_workload_files(const ConfigNode& files, StudyTemplate& study, Diagnostics& diagnostics) {
  if (!expect_map(files, "workload.files", diagnostics)) return;
  for (const auto& entry : files.entries) {
    const std::string field = "workload.files." + entry.key;
    if (!is_file_name(entry.key) || is_scalestudy_file(entry.key)) {
      diagnostics.add(entry.key_location, field,
                      "expected a file name for the run folder (letters, digits, '.', '_', '-'), "
                      "none of scalestudy's own (job.sbatch, launch.log, rank*, slurm-*)");
      continue;
    }
    if (!entry.value.is_scalar()) {
      diagnostics.add(entry.value.location, field,
                      std::string("expected the file's text (a block scalar: |), got a ") +
                          entry.value.type_name());
      continue;
    }
    check_reference_syntax(entry.value, field, entry.value.scalar, diagnostics);
    study.files[entry.key] = {entry.value.scalar, entry.value.location};
  }
}

std::string escaped_for_file(const std::string& name, const std::string& value) {
  const FileKind kind = kind_of(name);
  if (kind != FileKind::kJson && kind != FileKind::kToml) return value;
  // JSON's and TOML's basic strings share these escapes.
  std::string escaped;
  for (char c : value) {
    switch (c) {
      case '"':
        escaped += "\\\"";
        break;
      case '\\':
        escaped += "\\\\";
        break;
      case '\n':
        escaped += "\\n";
        break;
      case '\t':
        escaped += "\\t";
        break;
      case '\r':
        escaped += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char code[8];
          std::snprintf(code, sizeof code, "\\u%04x", static_cast<unsigned>(c));
          escaped += code;
        } else {
          escaped += c;
        }
    }
  }
  return escaped;
}

Status check_rendered_file(const std::string& name, const std::string& content) {
  switch (kind_of(name)) {
    case FileKind::kText:
      return Status::ok();
    case FileKind::kJson:
      try {
        const nlohmann::json parsed = nlohmann::json::parse(content);
        return Status::ok();
      } catch (const nlohmann::json::parse_error& error) {
        return Status::error("renders to text that is not JSON: " + std::string(error.what()));
      }
    case FileKind::kToml:
      if (Status toml = check_toml_syntax(content); !toml) {
        return Status::error("renders to text that is not TOML: " + toml.message());
      }
      return Status::ok();
    case FileKind::kYaml:
      try {
        const YAML::Node parsed = YAML::Load(content);
        return Status::ok();
      } catch (const YAML::Exception& error) {
        return Status::error("renders to text that is not YAML: " + error.msg + " at line " +
                             std::to_string(error.mark.line + 1));
      }
  }
  return Status::ok();
}

}  // namespace scalestudy
