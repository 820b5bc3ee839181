#include "orchestrator/study/study.hpp"

#include <filesystem>

#include "orchestrator/study/expansion.hpp"
#include "orchestrator/study/study_document.hpp"

namespace scalestudy {
namespace {

Result<Study> build_study(Result<ConfigNode> document) {
  if (!document) return document.status();
  Diagnostics diagnostics;
  StudyTemplate study_template = parse_study_template(*document, diagnostics);
  if (!diagnostics.empty()) return diagnostics.to_status();
  Study study = expand_study(std::move(study_template), diagnostics);
  if (!diagnostics.empty()) return diagnostics.to_status();
  return study;
}

}  // namespace

Result<Study> load_study(const std::string& path) {
  Result<Study> study = build_study(load_study_document_file(path));
  if (study) {
    std::error_code error;
    std::filesystem::path absolute = std::filesystem::absolute(path, error);
    study->source_path = error ? path : absolute.lexically_normal().string();
  }
  return study;
}

Result<Study> load_study_text(const std::string& yaml_text, const std::string& display_path) {
  return build_study(load_study_document(yaml_text, display_path));
}

}  // namespace scalestudy
