// The names a study's runs hold as variables beside its parameters: the builtin slots (in
// study_template.hpp's BuiltinSlot order) and the flags the harness sets itself, which a
// study may neither pass as parameters nor vary. Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

namespace scalestudy {

// "world_size", "nodes", ... in BuiltinSlot order.
std::vector<std::string> builtin_slot_names();
bool is_builtin_slot_name(const std::string& name);

// batch_size, run_id and out_dir: set by the harness for every run.
bool is_reserved_param(const std::string& name);

}  // namespace scalestudy
