#include "orchestrator/study/schema_values.hpp"

#include <algorithm>
#include <cstdlib>

#include "orchestrator/study/references.hpp"
#include "orchestrator/study/scalar_values.hpp"

namespace scalestudy {
namespace {

std::optional<double> read_number(const ConfigNode& node, const std::string& field,
                                  Diagnostics& diagnostics) {
  auto text = read_scalar(node, field, diagnostics);
  if (!text) return std::nullopt;
  if (!looks_numeric(*text)) {
    diagnostics.add(node.location, field, "expected a number, got '" + *text + "'");
    return std::nullopt;
  }
  return std::strtod(text->c_str(), nullptr);
}

}  // namespace

void check_keys(const ConfigNode& map, const std::string& prefix,
                const std::vector<std::string>& allowed, Diagnostics& diagnostics) {
  for (const auto& entry : map.entries) {
    if (std::find(allowed.begin(), allowed.end(), entry.key) == allowed.end()) {
      diagnostics.add_unknown(entry.key_location, prefix + entry.key, "key", entry.key, allowed);
    }
  }
}

bool expect_map(const ConfigNode& node, const std::string& field, Diagnostics& diagnostics) {
  if (node.is_map()) return true;
  diagnostics.add(node.location, field, std::string("expected a map, got a ") + node.type_name());
  return false;
}

std::optional<std::string> read_scalar(const ConfigNode& node, const std::string& field,
                                       Diagnostics& diagnostics) {
  if (node.is_scalar()) return canonical_scalar(node.scalar, node.quoted);
  diagnostics.add(node.location, field,
                  node.is_null()
                      ? std::string("has no value")
                      : std::string("expected a single value, got a ") + node.type_name());
  return std::nullopt;
}

std::optional<std::string> read_line_scalar(const ConfigNode& node, const std::string& field,
                                            Diagnostics& diagnostics) {
  auto text = read_scalar(node, field, diagnostics);
  if (text && has_control_character(*text)) {
    diagnostics.add(node.location, field, "may not contain newlines or control characters");
    return std::nullopt;
  }
  return text;
}

std::optional<long long> read_integer(const ConfigNode& node, const std::string& field,
                                      long long minimum, Diagnostics& diagnostics) {
  auto text = read_scalar(node, field, diagnostics);
  if (!text) return std::nullopt;
  auto value = parse_integer(*text);
  if (!value) {
    diagnostics.add(node.location, field, "expected a whole number, got '" + *text + "'");
  } else if (*value < minimum) {
    diagnostics.add(
        node.location, field,
        "must be at least " + std::to_string(minimum) + ", got " + std::to_string(*value));
    value.reset();
  } else if (*value > 1'000'000'000) {
    diagnostics.add(node.location, field, "is too large: " + std::to_string(*value));
    value.reset();
  }
  return value;
}

std::optional<int> read_time_limit(const ConfigNode& node, const std::string& field,
                                   Diagnostics& diagnostics) {
  auto text = read_scalar(node, field, diagnostics);
  if (!text) return std::nullopt;
  auto minutes = parse_time_limit_minutes(*text);
  if (!minutes) {
    diagnostics.add(node.location, field,
                    "malformed time '" + *text + "' (expected MM, HH:MM:SS or D-HH:MM:SS)");
    return std::nullopt;
  }
  if (*minutes <= 0) {
    diagnostics.add(node.location, field, "must be longer than zero");
    return std::nullopt;
  }
  return minutes;
}

std::optional<long long> read_memory_size(const ConfigNode& node, const std::string& field,
                                          Diagnostics& diagnostics) {
  auto text = read_scalar(node, field, diagnostics);
  if (!text) return std::nullopt;
  auto megabytes = parse_memory_mb(*text);
  if (!megabytes) {
    diagnostics.add(node.location, field,
                    "malformed memory size '" + *text + "' (e.g. 16G, 4000M)");
    return std::nullopt;
  }
  if (*megabytes <= 0) {
    diagnostics.add(node.location, field, "must be more than zero");
    return std::nullopt;
  }
  return megabytes;
}

std::optional<double> read_non_negative_number(const ConfigNode& node, const std::string& field,
                                               Diagnostics& diagnostics) {
  auto value = read_number(node, field, diagnostics);
  if (value && *value < 0) {
    diagnostics.add(node.location, field,
                    "may not be negative, got " + canonical_scalar(node.scalar, node.quoted));
    return std::nullopt;
  }
  return value;
}

std::vector<const ConfigNode*> read_list(const ConfigNode& node, const std::string& field,
                                         Diagnostics& diagnostics, SingleValue single) {
  std::vector<const ConfigNode*> items;
  if (node.is_sequence()) {
    if (node.items.empty()) diagnostics.add(node.location, field, "may not be an empty list");
    for (const auto& item : node.items) items.push_back(&item);
  } else if (single == SingleValue::kListOfOne && node.is_scalar()) {
    items.push_back(&node);
  } else {
    diagnostics.add(node.location, field,
                    std::string("expected a list, got a ") + node.type_name());
  }
  return items;
}

std::string indexed_field(const std::string& field, size_t index) {
  return field + "[" + std::to_string(index) + "]";
}

void check_reference_syntax(const ConfigNode& node, const std::string& field,
                            const std::string& text, Diagnostics& diagnostics) {
  if (!has_reference(text)) return;
  auto names = referenced_names(text);
  if (!names) diagnostics.add(node.location, field, names.status().message());
}

void remember_setting(const std::string& field, const ConfigNode& node, const std::string& text,
                      std::map<std::string, SourceLocation>& field_locations,
                      Diagnostics& diagnostics) {
  field_locations[field] = node.location;
  check_reference_syntax(node, field, text, diagnostics);
}

}  // namespace scalestudy
