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

// batch_size, run_dir, run_id and out_dir: set by scalestudy for every run (${run_dir} is
// the run's folder).
bool is_reserved_param(const std::string& name);
// run_id and out_dir: scalestudy's --run-id/--out-dir, the program's own with run_flags: false.
bool is_run_flag_param(const std::string& name);

}  // namespace scalestudy
