// Parsing and canonical spelling of the scalar values a study holds: whole numbers, SLURM
// time limits and memory sizes, and the canonical text of a parameter value (so `0.10` and
// `1e-1` give the same run id). Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace scalestudy {

// A whole number written in decimal, optionally signed; nullopt otherwise or on overflow.
std::optional<long long> parse_integer(std::string_view text);

// SLURM time formats: "MM", "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS".
// Seconds round up to whole minutes. nullopt when malformed.
std::optional<int> parse_time_limit_minutes(std::string_view text);
// The shortest SLURM spelling: "HH:MM:SS" or "D-HH:MM:SS".
std::string format_time_limit(int minutes);

// A memory size "4000", "4000M", "16G", "1T", "512K" (unit optional: megabytes; a trailing
// "B" is allowed) in whole megabytes, rounded up. nullopt when malformed.
std::optional<long long> parse_memory_mb(std::string_view text);
// "16G" when a whole number of gigabytes, else "4000M".
std::string format_memory(long long megabytes);

// The canonical text of an unquoted YAML scalar: booleans as true/false, integers without
// sign or leading zeros, other numbers in their shortest round-trip form; anything else,
// and every quoted scalar, as written.
std::string canonical_scalar(const std::string& text, bool quoted);

// True when `text` reads as a number (integer or floating point).
bool looks_numeric(std::string_view text);

// True for a C-style identifier: a letter or '_', then letters, digits and '_'.
bool is_identifier(std::string_view text);

// True when `text` holds a control byte (below 0x20, or DEL).
bool has_control_character(std::string_view text);

}  // namespace scalestudy
