#include "orchestrator/study/study_variables.hpp"

#include <algorithm>
#include <iterator>

#include "orchestrator/study/study_template.hpp"

namespace scalestudy {
namespace {

const char* const kBuiltinNames[kBuiltinSlotCount] = {
    "world_size",    "nodes",  "tasks_per_node", "gpus_per_node", "global_batch",
    "per_gpu_batch", "repeat", "study",          "kind",          "binary"};

}  // namespace

std::vector<std::string> builtin_slot_names() {
  return {std::begin(kBuiltinNames), std::end(kBuiltinNames)};
}

bool is_builtin_slot_name(const std::string& name) {
  return std::find(std::begin(kBuiltinNames), std::end(kBuiltinNames), name) !=
         std::end(kBuiltinNames);
}

bool is_reserved_param(const std::string& name) {
  return name == "batch_size" || name == "run_dir" || is_run_flag_param(name);
}

bool is_run_flag_param(const std::string& name) {
  return name == "run_id" || name == "out_dir";
}

}  // namespace scalestudy
