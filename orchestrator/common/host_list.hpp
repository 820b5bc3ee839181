// SLURM host lists ("node[1-3,07],gpu2") as the node names they stand for, so failures can
// be counted per node; `--exclude` takes the compressed form as it is. Pure function.
#pragma once

#include <string>
#include <vector>

namespace scalestudy::common {

// The names, in the list's order; a range keeps its numbers' zero padding ("n[08-10]":
// n08, n09, n10). Text that is no host list comes back as one name.
std::vector<std::string> expand_host_list(const std::string& list);

// The comma-separated items of a host list, each still compressed ("a[1-2],b" -> "a[1-2]", "b").
std::vector<std::string> host_list_items(const std::string& list);

}  // namespace scalestudy::common
