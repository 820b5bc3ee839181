#include "orchestrator/study/metrics_section.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include "orchestrator/study/json_path.hpp"
#include "orchestrator/study/scalar_values.hpp"
#include "orchestrator/study/schema_values.hpp"

namespace scalestudy {
namespace {

const std::vector<std::string> kMetricKeys = {"pattern", "file", "column",     "field",
                                              "path",    "unit", "occurrence", "skip_first",
                                              "reduce",  "role"};
// What a metric reading a file names inside it, by source (metric_spec.hpp).
const std::vector<std::pair<std::string, MetricSource>> kFileSelectors = {
    {"pattern", MetricSource::kText},
    {"column", MetricSource::kCsv},
    {"field", MetricSource::kJsonLines},
    {"path", MetricSource::kJson}};

bool is_metric_name(const std::string& text) {
  if (text.empty() || !(std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_')) {
    return false;
  }
  return std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// The position of `word` in `choices`, or an error naming the choices.
std::optional<size_t> choice(const ConfigNode& node, const std::string& field,
                             const std::vector<std::string>& choices, Diagnostics& diagnostics) {
  if (!node.is_scalar()) {
    diagnostics.add(node.location, field,
                    std::string("expected one of the words, got a ") + node.type_name());
    return std::nullopt;
  }
  auto found = std::find(choices.begin(), choices.end(), node.scalar);
  if (found == choices.end()) {
    diagnostics.add_unknown(node.location, field, "value", node.scalar, choices);
    return std::nullopt;
  }
  return static_cast<size_t>(found - choices.begin());
}

void check_pattern(const ConfigNode& node, const std::string& field, const std::string& pattern,
                   Diagnostics& diagnostics) {
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingLatin1);
  options.set_log_errors(false);
  RE2 compiled(pattern, options);
  if (!compiled.ok()) {
    diagnostics.add(node.location, field, "is not a valid RE2 pattern: " + compiled.error());
    return;
  }
  if (compiled.NumberOfCapturingGroups() != 1) {
    diagnostics.add(node.location, field,
                    "needs exactly one capture group (the number), found " +
                        std::to_string(compiled.NumberOfCapturingGroups()) +
                        "; use (?:...) for grouping");
  }
}

// A file in the run folder: relative, no '..' step out of it, on one line.
void read_file_name(const ConfigNode& file, const std::string& field, MetricSpec& spec,
                    Diagnostics& diagnostics) {
  const std::string& name = file.scalar;
  bool inside = file.is_scalar() && !name.empty() && name[0] != '/' &&
                std::none_of(name.begin(), name.end(),
                             [](char c) { return static_cast<unsigned char>(c) < 0x20; });
  for (size_t start = 0; inside && start <= name.size();) {
    const size_t slash = std::min(name.find('/', start), name.size());
    inside = name.compare(start, slash - start, "..") != 0;
    start = slash + 1;
  }
  if (!inside) {
    diagnostics.add(file.location, field,
                    "expected a file in the run folder: a relative path without '..' "
                    "(${rank} in it for each rank's own file)");
    return;
  }
  spec.file = name;
}

// `file` and exactly one of pattern (a text file), column (CSV), field (JSON lines) or
// path (a JSON document).
void read_file_source(const ConfigNode& map, const ConfigNode& file, const std::string& prefix,
                      MetricSpec& spec, Diagnostics& diagnostics) {
  read_file_name(file, prefix + ".file", spec, diagnostics);
  const ConfigNode* selector = nullptr;
  for (const auto& [key, source] : kFileSelectors) {
    const ConfigNode* node = map.find(key);
    if (!node) continue;
    if (selector) {
      diagnostics.add(node->location, prefix + "." + key,
                      "a file metric reads one of pattern, column, field or path");
      return;
    }
    selector = node;
    spec.source = source;
  }
  if (!selector) {
    diagnostics.add(file.location, prefix + ".file",
                    "needs what to read in it: pattern (text), column (CSV), field (JSON "
                    "lines) or path (JSON)");
    return;
  }
  const std::string field = prefix + "." + metric_source_key(spec.source);
  if (!selector->is_scalar() || selector->scalar.empty()) {
    diagnostics.add(selector->location, field, "expected one non-empty value");
    return;
  }
  if (spec.source == MetricSource::kText) {
    spec.pattern = selector->scalar;
    check_pattern(*selector, field, spec.pattern, diagnostics);
    return;
  }
  spec.key = selector->scalar;
  if (spec.source == MetricSource::kCsv) return;
  if (auto path = parse_json_path(spec.key); !path) {
    diagnostics.add(selector->location, field, path.status().message());
  }
}

MetricSpec read_metric(const ConfigEntry& entry, Diagnostics& diagnostics) {
  const std::string prefix = "metrics." + entry.key;
  MetricSpec spec;
  spec.name = entry.key;
  const ConfigNode& map = entry.value;
  if (!map.is_map()) {
    diagnostics.add(map.location, prefix,
                    std::string("expected a map with a pattern, got a ") + map.type_name());
    return spec;
  }
  check_keys(map, prefix + ".", kMetricKeys, diagnostics);
  if (const ConfigNode* file = map.find("file")) {
    read_file_source(map, *file, prefix, spec, diagnostics);
  } else if (const ConfigNode* pattern = map.find("pattern"); pattern && pattern->is_scalar()) {
    spec.pattern = pattern->scalar;
    check_pattern(*pattern, prefix + ".pattern", spec.pattern, diagnostics);
  } else {
    diagnostics.add(pattern ? pattern->location : map.location, prefix + ".pattern",
                    "is required: a regular expression with one capture group (or a file with "
                    "a pattern, column, field or path)");
  }
  for (const char* key : {"column", "field", "path"}) {
    if (const ConfigNode* node = map.find(key); node && !map.find("file")) {
      diagnostics.add(node->location, prefix + "." + key, "reads a file: give the metric's file");
    }
  }
  if (const ConfigNode* unit = map.find("unit")) {
    if (unit->is_scalar()) {
      spec.unit = unit->scalar;
    } else {
      diagnostics.add(unit->location, prefix + ".unit", "expected a single value");
    }
  }
  if (const ConfigNode* node = map.find("occurrence")) {
    if (auto index =
            choice(*node, prefix + ".occurrence", metric_occurrence_names(), diagnostics)) {
      spec.occurrence = static_cast<MetricOccurrence>(*index);
    }
  }
  if (const ConfigNode* node = map.find("skip_first")) {
    auto value = node->is_scalar() ? parse_integer(node->scalar) : std::nullopt;
    if (!value || *value < 0 || *value > 1'000'000) {
      diagnostics.add(node->location, prefix + ".skip_first",
                      "expected a whole number of warm-up matches (0 or more)");
    } else {
      spec.skip_first = static_cast<int>(*value);
    }
    if (spec.occurrence != MetricOccurrence::kAll) {
      diagnostics.add(node->location, prefix + ".skip_first",
                      "applies to occurrence: all (with last, only the last match counts)");
    }
  }
  if (const ConfigNode* node = map.find("reduce")) {
    if (auto index = choice(*node, prefix + ".reduce", metric_reduction_names(), diagnostics)) {
      spec.reduction = static_cast<MetricReduction>(*index);
    }
  }
  if (const ConfigNode* node = map.find("role")) {
    if (auto index = choice(*node, prefix + ".role", metric_role_names(), diagnostics)) {
      spec.role = static_cast<MetricRole>(*index);
    }
  }
  return spec;
}

}  // namespace

std::vector<MetricSpec> read_metrics_section(const ConfigNode& metrics, Diagnostics& diagnostics) {
  std::vector<MetricSpec> specs;
  if (!metrics.is_map() || metrics.entries.empty()) {
    diagnostics.add(metrics.location, "metrics",
                    "expected a map of named metrics (name: {pattern: ..., ...})");
    return specs;
  }
  std::set<MetricRole> roles_taken;
  for (const auto& entry : metrics.entries) {
    if (!is_metric_name(entry.key)) {
      diagnostics.add(entry.key_location, "metrics." + entry.key,
                      "metric names are identifiers (letters, digits, '_')");
      continue;
    }
    MetricSpec spec = read_metric(entry, diagnostics);
    if (spec.role != MetricRole::kNone && !roles_taken.insert(spec.role).second) {
      diagnostics.add(entry.key_location, "metrics." + entry.key,
                      std::string("role ") + metric_role_name(spec.role) +
                          " is already given to another metric");
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

}  // namespace scalestudy
