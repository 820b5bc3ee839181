// Small parsers for the text formats sysinfo reads: /proc "key : value" files, sysfs CPU
// lists ("0-3,8"), C headers' #define lines, command output. Pure functions.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace scalestudy::sysinfo {

std::string trim(const std::string& text);
std::vector<std::string> split_lines(const std::string& text);
std::vector<std::string> split(const std::string& text, char separator);
std::string first_line(const std::string& text);
bool starts_with(const std::string& text, const std::string& prefix);

// "key : value" or "key: value" lines (/proc/cpuinfo, /proc/meminfo, /proc/self/status)
// of the first block; later duplicates of a key are ignored.
std::map<std::string, std::string> parse_colon_fields(const std::string& text);

// Blocks separated by blank lines (one per processor in /proc/cpuinfo).
std::vector<std::map<std::string, std::string>> parse_colon_blocks(const std::string& text);

// Number of CPUs in a sysfs/cgroup list such as "0-3,8,10-11"; nullopt when malformed.
std::optional<int> count_cpu_list(const std::string& list);

// The value of `#define NAME value` in a C header, without quotes or trailing comments.
std::optional<std::string> header_define(const std::string& header_text, const std::string& name);

// "KEY=value" / KEY="value" lines (/etc/os-release).
std::map<std::string, std::string> parse_env_file(const std::string& text);

// A leading unsigned integer ("24684096 kB" -> 24684096); nullopt when none.
std::optional<unsigned long long> leading_number(const std::string& text);

}  // namespace scalestudy::sysinfo
