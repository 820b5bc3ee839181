// The parts of help texts that come from the scheduler registry (sched/scheduler_registry.hpp),
// so adding a backend adds its name, options and notes to every usage text: the choices of
// --scheduler, how the default is detected, each backend's options with their help, its
// notes, and how cancel stops its jobs. Text is wrapped to kHelpWidth columns. Functions.
#pragma once

#include <string>
#include <vector>

namespace scalestudy::sched {

inline constexpr size_t kHelpWidth = 90;

// `units` (kept whole) filled greedily, one space apart, into lines of at most kHelpWidth
// columns: the first after `first_prefix`, the others after `indent` spaces.
std::string wrap_units(const std::string& first_prefix, const std::vector<std::string>& units,
                       size_t indent);
// The same over the words of `text`.
std::string wrap_words(const std::string& first_prefix, const std::string& text, size_t indent);

// The backend names joined by `separator`; with ", " the last two by " or ".
std::string scheduler_choices(const std::string& separator);
// "[--max-parallel N]", "[--max-slots N]", "[--no-arrays]", ...: every backend's options,
// once each.
std::vector<std::string> scheduler_option_synopsis();
// "--max-parallel N, --max-slots N, --no-arrays, ...".
std::string scheduler_option_list();
// The --scheduler option line: the choices and how the default is detected.
std::string scheduler_flag_help();
// One line per backend option: "  --flag VALUE      <family>: <help>".
std::string scheduler_option_help();
// Each backend's help note, as paragraphs each followed by a blank line.
std::string scheduler_notes();
// How each backend's jobs are cancelled, as a list ("A, B, or C"): backends with a
// detection probe first, the fallback last.
std::string scheduler_cancel_means();

}  // namespace scalestudy::sched
