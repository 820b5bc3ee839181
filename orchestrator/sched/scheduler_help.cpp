#include "orchestrator/sched/scheduler_help.hpp"

#include <set>
#include <sstream>
#include <vector>

#include "orchestrator/sched/scheduler_registry.hpp"

namespace scalestudy::sched {
namespace {

// Every backend option once, in registry order, with the family of the first backend that
// declares it (an option a family's backends share is named after the family).
std::vector<std::pair<std::string, sched::SchedulerOption>> distinct_options() {
  std::vector<std::pair<std::string, sched::SchedulerOption>> options;
  std::set<std::string> seen;
  for (const sched::SchedulerEntry& entry : sched::scheduler_entries()) {
    for (const sched::SchedulerOption& option : entry.options) {
      if (seen.insert(option.flag).second) options.emplace_back(entry.family, option);
    }
  }
  return options;
}

std::string with_value(const sched::SchedulerOption& option) {
  return option.value_name.empty() ? option.flag : option.flag + " " + option.value_name;
}

// "  --flag VALUE      help", the help column at 20, wrapped under itself.
std::string option_line(const std::string& flag, const std::string& help) {
  std::string prefix = "  " + flag;
  prefix += std::string(prefix.size() < 19 ? 19 - prefix.size() : 0, ' ') + " ";
  return wrap_words(prefix, help, 20) + "\n";
}

}  // namespace

std::string wrap_units(const std::string& first_prefix, const std::vector<std::string>& units,
                       size_t indent) {
  std::string text = first_prefix;
  size_t line_start = 0;
  bool line_empty = true;
  for (const std::string& unit : units) {
    if (!line_empty && text.size() - line_start + 1 + unit.size() > kHelpWidth) {
      text += "\n";
      line_start = text.size();
      text += std::string(indent, ' ');
      line_empty = true;
    }
    text += (line_empty ? "" : " ") + unit;
    line_empty = false;
  }
  return text;
}

std::string wrap_words(const std::string& first_prefix, const std::string& text, size_t indent) {
  std::istringstream stream(text);
  std::vector<std::string> words;
  for (std::string word; stream >> word;) words.push_back(word);
  return wrap_units(first_prefix, words, indent);
}

std::string scheduler_choices(const std::string& separator) {
  const std::vector<std::string> names = sched::scheduler_names();
  std::string text;
  for (size_t index = 0; index < names.size(); ++index) {
    if (index > 0) text += separator == ", " && index + 1 == names.size() ? " or " : separator;
    text += names[index];
  }
  return text;
}

std::vector<std::string> scheduler_option_synopsis() {
  std::vector<std::string> units;
  for (const auto& [family, option] : distinct_options()) {
    units.push_back("[" + with_value(option) + "]");
  }
  return units;
}

std::string scheduler_option_list() {
  std::string text;
  for (const auto& [family, option] : distinct_options()) {
    text += (text.empty() ? "" : ", ") + with_value(option);
  }
  return text;
}

std::string scheduler_flag_help() {
  std::string detected;
  for (const sched::SchedulerEntry* entry : sched::detection_order()) {
    detected += detected.empty() ? "" : ", else ";
    detected += entry->detect == nullptr ? entry->name : entry->name + " if " + entry->detect_when;
  }
  return option_line("--scheduler S", scheduler_choices(", ") +
                                          " (default: a named system's own, of whose family S "
                                          "must be; else " +
                                          detected + ")");
}

std::string scheduler_option_help() {
  std::string text;
  for (const auto& [family, option] : distinct_options()) {
    text += option_line(with_value(option), family + ": " + option.help);
  }
  return text;
}

std::string scheduler_notes() {
  std::string text;
  for (const sched::SchedulerEntry& entry : sched::scheduler_entries()) {
    if (!entry.help_note.empty()) text += wrap_words("", entry.help_note, 0) + "\n\n";
  }
  return text;
}

std::string scheduler_cancel_means() {
  // The cluster backends (those with a detection probe) first, the fallback last.
  std::vector<std::string> means;
  for (bool probed : {true, false}) {
    for (const sched::SchedulerEntry& entry : sched::scheduler_entries()) {
      if ((entry.detect != nullptr) == probed) means.push_back(entry.cancels_with);
    }
  }
  std::string text;
  for (size_t index = 0; index < means.size(); ++index) {
    if (index > 0) text += index + 1 == means.size() ? ", or " : ", ";
    text += means[index];
  }
  return text;
}

}  // namespace scalestudy::sched
