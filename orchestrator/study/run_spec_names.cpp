#include "orchestrator/study/run_spec_names.hpp"

namespace scalestudy {

const char* study_kind_name(StudyKind kind) {
  switch (kind) {
    case StudyKind::kStrong:
      return "strong";
    case StudyKind::kWeak:
      return "weak";
    case StudyKind::kSensitivity:
      return "sensitivity";
    case StudyKind::kCustom:
      break;
  }
  return "custom";
}

std::optional<StudyKind> parse_study_kind(const std::string& name) {
  for (StudyKind kind :
       {StudyKind::kStrong, StudyKind::kWeak, StudyKind::kSensitivity, StudyKind::kCustom}) {
    if (name == study_kind_name(kind)) return kind;
  }
  return std::nullopt;
}

const char* launcher_name(LauncherKind launcher) {
  return launcher == LauncherKind::kTorchrun ? "torchrun" : "srun";
}

std::optional<LauncherKind> parse_launcher(const std::string& name) {
  for (LauncherKind launcher : {LauncherKind::kSrun, LauncherKind::kTorchrun}) {
    if (name == launcher_name(launcher)) return launcher;
  }
  return std::nullopt;
}

}  // namespace scalestudy
