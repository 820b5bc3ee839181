#include "orchestrator/sched/slurmrest_values.hpp"

#include <algorithm>
#include <array>

namespace scalestudy::sched {

std::optional<long long> rest_number(const nlohmann::json& value) {
  if (value.is_number_integer()) return value.get<long long>();
  if (value.is_object() && value.contains("number")) {
    if (!value.value("set", false) || value.value("infinite", false)) return std::nullopt;
    return rest_number(value["number"]);
  }
  return std::nullopt;
}

std::string rest_state(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (!value.is_array() || value.empty() || !value[0].is_string()) return "";
  static const std::array<const char*, 12> kShownFirst = {
      "COMPLETING",   "STAGE_OUT",    "CONFIGURING", "RESIZING", "REQUEUED",      "REQUEUE_FED",
      "REQUEUE_HOLD", "SPECIAL_EXIT", "STOPPED",     "REVOKED",  "RESV_DEL_HOLD", "SIGNALING"};
  for (const char* flag : kShownFirst) {
    if (std::find(value.begin(), value.end(), flag) != value.end()) return flag;
  }
  return value[0].get<std::string>();
}

std::optional<int> rest_exit_code(const nlohmann::json& value) {
  const bool verbose = value.is_object() && value.contains("return_code");
  auto code = rest_number(verbose ? value["return_code"] : value);
  // Killed by a signal (SIGNALED; 0:53 when the allocation failed before its first step):
  // 128 + signal, as sacct's "0:53" is read (slurm_states.cpp).
  if (verbose && (!code || *code == 0) && value.contains("signal") && value["signal"].is_object()) {
    if (auto signal = rest_number(value["signal"].value("id", nlohmann::json()));
        signal && *signal > 0) {
      return 128 + static_cast<int>(*signal);
    }
  }
  if (!code) return std::nullopt;
  return static_cast<int>(*code);
}

}  // namespace scalestudy::sched
