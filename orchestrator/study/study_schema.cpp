// parse_study_template(): the study language's schema. Each top-level field has one reader
// below; every problem is reported with its location and field, and reading continues so
// one pass shows every error.
#include <algorithm>
#include <set>

#include "orchestrator/study/metrics_section.hpp"
#include "orchestrator/study/references.hpp"
#include "orchestrator/study/run_spec_names.hpp"
#include "orchestrator/study/scalar_values.hpp"
#include "orchestrator/study/study_template.hpp"
#include "orchestrator/study/workload_section.hpp"

namespace scalestudy {
namespace {

const std::vector<std::string> kTopLevelKeys = {
    "study",         "kind",    "description",  "workload",       "scale",     "global_batch",
    "per_gpu_batch", "matrix",  "zip",          "exclude",        "where",     "repeats",
    "baseline",      "slurm",   "launcher",     "modules",        "container", "env",
    "profile",       "report",  "max_attempts", "array_throttle", "extends",   "defaults",
    "uneven_batch",  "metrics", "budget",       "max_runs"};
const std::vector<std::string> kSlurmKeys = {
    "partition",     "account", "qos",           "constraint",     "time",
    "cpus_per_task", "mem",     "gpus_per_node", "ranks_per_node", "extra"};
const std::vector<std::string> kContainerKeys = {"image", "binds"};
const std::vector<std::string> kReportKeys = {"target_gain_pct", "thresholds"};
// The thresholds the report reads (docs/study-database.md, "Report settings").
const std::vector<std::string> kThresholdKeys = {"efficiency_pct", "input_bound_pct",
                                                 "comm_bound_pct", "cv_warn_pct", "min_repeats"};
const std::vector<std::string> kBudgetKeys = {"gpu_hours"};
const std::vector<std::string> kScalePointKeys = {"nodes", "gpus_per_node", "ranks_per_node"};
// Flags the harness sets itself; a study may not pass them as parameters.
const std::set<std::string> kReservedParams = {"batch_size", "run_id", "out_dir"};
const char* const kBuiltinNames[kBuiltinSlotCount] = {
    "world_size",    "nodes",  "tasks_per_node", "gpus_per_node", "global_batch",
    "per_gpu_batch", "repeat", "study",          "kind",          "binary"};

class SchemaReader {
 public:
  SchemaReader(const ConfigNode& document, Diagnostics& diagnostics)
      : doc_(document), diag_(diagnostics) {}

  StudyTemplate read() {
    check_keys(doc_, "", kTopLevelKeys);
    read_identity();
    read_workload();
    read_metrics();
    read_slurm();
    read_scale();
    read_batch();
    read_axes();
    read_run_settings();
    build_slots();
    read_filters();
    read_policy();
    return std::move(t_);
  }

 private:
  // ---- generic helpers -------------------------------------------------------------
  void error(const ConfigNode& node, const std::string& field, const std::string& message) {
    diag_.add(node.location, field, message);
  }
  void check_keys(const ConfigNode& map, const std::string& prefix,
                  const std::vector<std::string>& allowed) {
    for (const auto& entry : map.entries) {
      if (std::find(allowed.begin(), allowed.end(), entry.key) == allowed.end()) {
        diag_.add_unknown(entry.key_location, prefix + entry.key, "key", entry.key, allowed);
      }
    }
  }
  bool expect_map(const ConfigNode& node, const std::string& field) {
    if (node.is_map()) return true;
    error(node, field, std::string("expected a map, got a ") + node.type_name());
    return false;
  }
  std::optional<std::string> scalar(const ConfigNode& node, const std::string& field) {
    if (node.is_scalar()) return canonical_scalar(node.scalar, node.quoted);
    error(node, field,
          node.is_null() ? std::string("has no value")
                         : std::string("expected a single value, got a ") + node.type_name());
    return std::nullopt;
  }
  // A scalar that may reach a job script line: no control characters (a newline in an
  // #SBATCH line would start a new shell command).
  std::optional<std::string> line_scalar(const ConfigNode& node, const std::string& field) {
    auto text = scalar(node, field);
    if (text && has_control_character(*text)) {
      error(node, field, "may not contain newlines or control characters");
      return std::nullopt;
    }
    return text;
  }
  std::optional<long long> integer(const ConfigNode& node, const std::string& field,
                                   long long minimum) {
    auto text = scalar(node, field);
    if (!text) return std::nullopt;
    auto value = parse_integer(*text);
    if (!value) {
      error(node, field, "expected a whole number, got '" + *text + "'");
    } else if (*value < minimum) {
      error(node, field,
            "must be at least " + std::to_string(minimum) + ", got " + std::to_string(*value));
      value.reset();
    } else if (*value > 1'000'000'000) {
      error(node, field, "is too large: " + std::to_string(*value));
      value.reset();
    }
    return value;
  }
  std::optional<double> number(const ConfigNode& node, const std::string& field) {
    auto text = scalar(node, field);
    if (!text) return std::nullopt;
    if (!looks_numeric(*text)) {
      error(node, field, "expected a number, got '" + *text + "'");
      return std::nullopt;
    }
    return std::strtod(text->c_str(), nullptr);
  }
  // A number no smaller than zero: percentages, thresholds and budgets.
  std::optional<double> non_negative_number(const ConfigNode& node, const std::string& field) {
    auto value = number(node, field);
    if (value && *value < 0) {
      error(node, field, "may not be negative, got " + scalar(node, field).value_or(""));
      return std::nullopt;
    }
    return value;
  }
  // A list field; a single scalar is accepted as a list of one when `allow_single`.
  std::vector<const ConfigNode*> list(const ConfigNode& node, const std::string& field,
                                      bool allow_single = false) {
    std::vector<const ConfigNode*> items;
    if (node.is_sequence()) {
      if (node.items.empty()) error(node, field, "may not be an empty list");
      for (const auto& item : node.items) items.push_back(&item);
    } else if (allow_single && node.is_scalar()) {
      items.push_back(&node);
    } else {
      error(node, field, std::string("expected a list, got a ") + node.type_name());
    }
    return items;
  }
  static std::string indexed(const std::string& field, size_t index) {
    return field + "[" + std::to_string(index) + "]";
  }
  // Text fields that may carry ${references}: syntax-checked now, substituted per run.
  void check_reference_syntax(const ConfigNode& node, const std::string& field,
                              const std::string& text) {
    if (!has_reference(text)) return;
    auto names = referenced_names(text);
    if (!names) error(node, field, names.status().message());
  }
  void remember(const std::string& field, const ConfigNode& node, const std::string& text) {
    t_.field_locations[field] = node.location;
    check_reference_syntax(node, field, text);
  }

  // ---- fields ----------------------------------------------------------------------
  void read_identity() {
    const ConfigNode* name = doc_.find("study");
    if (!name) {
      error(doc_, "study", "missing: every study needs a name");
    } else if (auto text = scalar(*name, "study")) {
      bool safe =
          !text->empty() && text->size() <= 100 &&
          std::isalnum(static_cast<unsigned char>((*text)[0])) &&
          std::all_of(text->begin(), text->end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
          });
      if (!safe) {
        error(*name, "study",
              "'" + *text +
                  "' is not a valid name: it names a results folder, so use letters, "
                  "digits, '-', '_' and '.', starting with a letter or digit");
      }
      t_.info.name = *text;
      t_.name_location = name->location;
    }
    t_.info.kind = StudyKind::kCustom;
    if (const ConfigNode* kind = doc_.find("kind")) {
      if (auto text = scalar(*kind, "kind")) {
        if (auto parsed = parse_study_kind(*text)) {
          t_.info.kind = *parsed;
        } else {
          diag_.add_unknown(kind->location, "kind", "kind", *text,
                            {"strong", "weak", "sensitivity", "custom"});
        }
      }
    }
    if (const ConfigNode* description = doc_.find("description")) {
      if (auto text = scalar(*description, "description")) t_.info.description = *text;
    }
  }

  void read_workload() {
    t_.binary = {"scalestudy-train", doc_.location};
    const ConfigNode* workload = doc_.find("workload");
    if (!workload || !expect_map(*workload, "workload")) return;
    for (const auto& entry : workload->entries) {
      std::string field = "workload." + entry.key;
      if (is_invocation_key(entry.key)) {
        read_invocation_entry(entry, t_.shared.invocation, diag_);
        continue;
      }
      auto text = scalar(entry.value, field);
      if (!text) continue;
      if (entry.key == "binary") {
        if (text->empty() || has_control_character(*text)) {
          error(entry.value, field, "expected a program name or path on one line");
        }
        t_.binary = {*text, entry.value.location};
        remember("workload.binary", entry.value, *text);
        continue;
      }
      if (!is_identifier(entry.key)) {
        diag_.add(entry.key_location, field,
                  "parameter names are identifiers (letters, digits, '_'): they become "
                  "--flags of the workload");
        continue;
      }
      if (kReservedParams.count(entry.key)) {
        diag_.add(entry.key_location, field,
                  entry.key == "batch_size"
                      ? "set the batch with global_batch (strong) or per_gpu_batch (weak)"
                      : "is set by scalestudy itself");
        continue;
      }
      check_reference_syntax(entry.value, field, *text);
      t_.params[entry.key] = {*text, entry.value.location};
    }
    for (const auto& [param, variable] : t_.shared.invocation.env_params) {
      if (param != "batch_size" && t_.params.count(param) == 0) {
        diag_.add(workload->find("env_params")->location, "workload.env_params." + param,
                  "names no parameter of the workload");
      }
    }
  }

  void read_metrics() {
    if (const ConfigNode* metrics = doc_.find("metrics")) {
      t_.shared.metrics = read_metrics_section(*metrics, diag_);
    }
  }

  void read_slurm() {
    const ConfigNode* slurm = doc_.find("slurm");
    if (!slurm || !expect_map(*slurm, "slurm")) return;
    check_keys(*slurm, "slurm.", kSlurmKeys);
    SlurmOptions& options = t_.shared.slurm;
    auto text_field = [&](const char* key, std::string& target) {
      if (const ConfigNode* node = slurm->find(key)) {
        std::string field = std::string("slurm.") + key;
        if (auto text = line_scalar(*node, field)) {
          target = *text;
          remember(field, *node, *text);
        }
      }
    };
    text_field("partition", options.partition);
    text_field("account", options.account);
    text_field("qos", options.qos);
    text_field("constraint", options.constraint);
    if (const ConfigNode* time = slurm->find("time")) {
      if (auto text = scalar(*time, "slurm.time")) {
        auto minutes = parse_time_limit_minutes(*text);
        if (!minutes) {
          error(*time, "slurm.time",
                "malformed time '" + *text + "' (expected MM, HH:MM:SS or D-HH:MM:SS)");
        } else if (*minutes <= 0) {
          error(*time, "slurm.time", "must be longer than zero");
        } else {
          options.time_limit_minutes = *minutes;
        }
      }
    }
    if (const ConfigNode* cpus = slurm->find("cpus_per_task")) {
      if (auto value = integer(*cpus, "slurm.cpus_per_task", 1)) {
        options.cpus_per_task = static_cast<int>(*value);
      }
    }
    if (const ConfigNode* mem = slurm->find("mem")) {
      if (auto text = scalar(*mem, "slurm.mem")) {
        auto megabytes = parse_memory_mb(*text);
        if (!megabytes) {
          error(*mem, "slurm.mem", "malformed memory size '" + *text + "' (e.g. 16G, 4000M)");
        } else if (*megabytes <= 0) {
          error(*mem, "slurm.mem", "must be more than zero");
        } else {
          options.memory_mb = *megabytes;
        }
      }
    }
    if (const ConfigNode* gpus = slurm->find("gpus_per_node")) {
      if (auto value = integer(*gpus, "slurm.gpus_per_node", 0)) {
        default_gpus_per_node_ = static_cast<int>(*value);
      }
    }
    if (const ConfigNode* ranks = slurm->find("ranks_per_node")) {
      if (auto value = integer(*ranks, "slurm.ranks_per_node", 1)) {
        default_ranks_per_node_ = static_cast<int>(*value);
        if (default_gpus_per_node_ > 0) {
          error(*ranks, "slurm.ranks_per_node",
                "give gpus_per_node (GPU runs) or ranks_per_node (CPU runs), not both");
        }
      }
    }
    if (const ConfigNode* extra = slurm->find("extra")) {
      size_t index = 0;
      for (const ConfigNode* item : list(*extra, "slurm.extra")) {
        std::string field = indexed("slurm.extra", index++);
        auto text = line_scalar(*item, field);
        if (!text) continue;
        if (text->size() < 2 || (*text)[0] != '-') {
          error(*item, field, "expected an sbatch option such as --exclusive, got '" + *text + "'");
          continue;
        }
        remember(field, *item, *text);
        options.extra_options.push_back(*text);
      }
    }
  }

  // A whole number of ranks on nodes of `per_node` slots: fill nodes, all equally.
  void add_total_ranks(const ConfigNode& item, const std::string& field, int total) {
    bool gpu = default_gpus_per_node_ > 0;
    int per_node = gpu ? default_gpus_per_node_ : default_ranks_per_node_;
    ScalePoint point{1, total, gpu, item.location};
    if (per_node > 0 && total > per_node) {
      if (total % per_node != 0) {
        std::string unit = gpu ? "gpus_per_node" : "ranks_per_node";
        error(item, field,
              std::to_string(total) + " does not fill whole nodes of " + std::to_string(per_node) +
                  " (" + unit + "); give {nodes: N, " + unit + ": K} instead");
        return;
      }
      point.nodes = total / per_node;
      point.tasks_per_node = per_node;
    }
    t_.scale.push_back(point);
  }

  void read_scale() {
    const ConfigNode* scale = doc_.find("scale");
    if (!scale) {
      if (t_.info.kind == StudyKind::kStrong || t_.info.kind == StudyKind::kWeak) {
        error(doc_, "scale",
              std::string("missing: a ") + study_kind_name(t_.info.kind) +
                  " study needs the GPU (or rank) counts to run");
      }
      ScalePoint single{1, 1, default_gpus_per_node_ > 0, doc_.location};
      t_.scale.push_back(single);
      return;
    }
    size_t index = 0;
    for (const ConfigNode* item : list(*scale, "scale", true)) {
      std::string field = indexed("scale", index++);
      if (item->is_scalar()) {
        if (auto total = integer(*item, field, 1)) add_total_ranks(*item, field, int(*total));
        continue;
      }
      if (!expect_map(*item, field)) continue;
      check_keys(*item, field + ".", kScalePointKeys);
      const ConfigNode* nodes = item->find("nodes");
      const ConfigNode* gpus = item->find("gpus_per_node");
      const ConfigNode* ranks = item->find("ranks_per_node");
      if (!nodes) error(*item, field + ".nodes", "missing");
      if (!gpus == !ranks) {
        error(*item, field, "give exactly one of gpus_per_node and ranks_per_node");
        continue;
      }
      auto node_count = nodes ? integer(*nodes, field + ".nodes", 1) : std::nullopt;
      auto per_node = gpus ? integer(*gpus, field + ".gpus_per_node", 1)
                           : integer(*ranks, field + ".ranks_per_node", 1);
      if (!node_count || !per_node) continue;
      t_.scale.push_back(
          ScalePoint{int(*node_count), int(*per_node), gpus != nullptr, item->location});
    }
  }

  void read_batch() {
    const ConfigNode* global = doc_.find("global_batch");
    const ConfigNode* per_gpu = doc_.find("per_gpu_batch");
    const ConfigNode* matrix = doc_.find("matrix");
    bool global_axis = axis_mentions("global_batch");
    bool per_gpu_axis = axis_mentions("per_gpu_batch");
    bool gives_global = global || global_axis;
    bool gives_per_gpu = per_gpu || per_gpu_axis;
    StudyKind kind = t_.info.kind;
    const ConfigNode& anchor = global ? *global : (per_gpu ? *per_gpu : (matrix ? *matrix : doc_));
    if (gives_global && gives_per_gpu) {
      error(anchor, gives_global && global ? "global_batch" : "per_gpu_batch",
            "give global_batch or per_gpu_batch, not both (the other follows from the scale)");
      return;
    }
    if (kind == StudyKind::kStrong && gives_per_gpu) {
      error(anchor, "per_gpu_batch",
            "a strong study fixes global_batch; per_gpu_batch = global_batch / GPUs");
      return;
    }
    if (kind == StudyKind::kWeak && gives_global) {
      error(anchor, "global_batch",
            "a weak study fixes per_gpu_batch; global_batch = GPUs x per_gpu_batch");
      return;
    }
    if (kind == StudyKind::kStrong && !gives_global) {
      error(doc_, "global_batch", "missing: a strong study needs global_batch");
    }
    if (kind == StudyKind::kWeak && !gives_per_gpu) {
      error(doc_, "per_gpu_batch", "missing: a weak study needs per_gpu_batch");
    }
    if (gives_global) t_.batch_given = StudyTemplate::BatchGiven::kGlobal;
    if (gives_per_gpu) t_.batch_given = StudyTemplate::BatchGiven::kPerGpu;
    if (const ConfigNode* uneven = doc_.find("uneven_batch")) {
      if (auto text = scalar(*uneven, "uneven_batch")) {
        if (*text == "round_down") {
          t_.round_down_uneven_batch = true;
        } else if (*text != "error") {
          diag_.add_unknown(uneven->location, "uneven_batch", "choice", *text,
                            {"error", "round_down"});
        }
      }
    }
    const ConfigNode* fixed = global ? global : per_gpu;
    if (fixed) {
      std::string field = global ? "global_batch" : "per_gpu_batch";
      if (auto value = integer(*fixed, field, 1)) {
        t_.batch = LocatedValue{std::to_string(*value), fixed->location};
      }
    }
  }

  // Whether a matrix or zip group names `key` (read before the axes themselves).
  bool axis_mentions(const std::string& key) const {
    if (const ConfigNode* matrix = doc_.find("matrix"); matrix && matrix->find(key)) return true;
    if (const ConfigNode* zip = doc_.find("zip")) {
      if (zip->is_map()) return zip->find(key) != nullptr;
      for (const auto& group : zip->items) {
        if (group.find(key)) return true;
      }
    }
    return false;
  }

  void read_axis_group(const ConfigNode& group, const std::string& prefix, std::vector<Axis>& out,
                       std::set<std::string>& seen) {
    if (!expect_map(group, prefix)) return;
    if (group.entries.empty()) error(group, prefix, "may not be empty");
    for (const auto& entry : group.entries) {
      std::string field = prefix + "." + entry.key;
      const std::string& key = entry.key;
      bool batch_key = key == "global_batch" || key == "per_gpu_batch";
      if (!batch_key && !is_identifier(key)) {
        diag_.add(entry.key_location, field, "axis names are parameter names (identifiers)");
        continue;
      }
      if (!batch_key && (kReservedParams.count(key) ||
                         std::find(std::begin(kBuiltinNames), std::end(kBuiltinNames), key) !=
                             std::end(kBuiltinNames))) {
        diag_.add(entry.key_location, field,
                  key == "batch_size" ? "vary global_batch or per_gpu_batch instead"
                                      : "cannot be varied here (the scale comes from `scale`)");
        continue;
      }
      if (!seen.insert(key).second) {
        diag_.add(entry.key_location, field, "is varied twice (in matrix and zip, or twice)");
        continue;
      }
      Axis axis{key, field, entry.key_location, {}};
      size_t index = 0;
      for (const ConfigNode* item : list(entry.value, field)) {
        std::string item_field = indexed(field, index++);
        auto text = scalar(*item, item_field);
        if (!text) continue;
        if (batch_key) {
          auto value = integer(*item, item_field, 1);
          if (!value) continue;
        } else {
          check_reference_syntax(*item, item_field, *text);
        }
        axis.values.push_back({*text, item->location});
      }
      out.push_back(std::move(axis));
    }
  }

  void read_axes() {
    std::set<std::string> seen;
    if (const ConfigNode* matrix = doc_.find("matrix")) {
      read_axis_group(*matrix, "matrix", t_.matrix, seen);
    }
    const ConfigNode* zip = doc_.find("zip");
    if (!zip) return;
    std::vector<const ConfigNode*> groups;
    if (zip->is_map()) {
      groups.push_back(zip);
    } else {
      groups = list(*zip, "zip");
    }
    for (size_t g = 0; g < groups.size(); ++g) {
      std::string prefix = zip->is_map() ? "zip" : indexed("zip", g);
      std::vector<Axis> columns;
      read_axis_group(*groups[g], prefix, columns, seen);
      for (const auto& column : columns) {
        if (column.values.size() != columns[0].values.size()) {
          diag_.add(column.location, prefix + "." + column.name,
                    "has " + std::to_string(column.values.size()) + " values but " +
                        columns[0].name + " has " + std::to_string(columns[0].values.size()) +
                        " (zip lists advance together and must be equally long)");
        }
      }
      if (!columns.empty()) t_.zips.push_back(std::move(columns));
    }
  }

  void read_run_settings() {
    RunSpec& shared = t_.shared;
    shared.study = t_.info.name;
    shared.kind = t_.info.kind;
    shared.workload = t_.binary.text;
    if (const ConfigNode* launcher = doc_.find("launcher")) {
      if (auto text = scalar(*launcher, "launcher")) {
        if (auto parsed = parse_launcher(*text)) {
          shared.launcher = *parsed;
        } else {
          diag_.add_unknown(launcher->location, "launcher", "launcher", *text,
                            {"srun", "torchrun"});
        }
      }
    }
    if (const ConfigNode* modules = doc_.find("modules")) {
      for (const ConfigNode* item : list(*modules, "modules", true)) {
        std::string field = indexed("modules", shared.modules.size());
        auto text = scalar(*item, field);
        if (!text) continue;
        if (!has_reference(*text) && !is_module_name(*text)) {
          error(*item, field,
                "'" + *text + "' is not a module name (letters, digits and . _ / + - @ :)");
          continue;
        }
        remember(field, *item, *text);
        shared.modules.push_back(*text);
      }
    }
    if (const ConfigNode* container = doc_.find("container")) {
      if (expect_map(*container, "container")) {
        check_keys(*container, "container.", kContainerKeys);
        const ConfigNode* image = container->find("image");
        if (!image) error(*container, "container.image", "missing: the apptainer image to run");
        if (image) {
          if (auto text = line_scalar(*image, "container.image")) {
            if (text->empty()) error(*image, "container.image", "may not be empty");
            shared.container.image = *text;
            remember("container.image", *image, *text);
          }
        }
        if (const ConfigNode* binds = container->find("binds")) {
          for (const ConfigNode* item : list(*binds, "container.binds", true)) {
            std::string field = indexed("container.binds", shared.container.binds.size());
            if (auto text = line_scalar(*item, field)) {
              remember(field, *item, *text);
              shared.container.binds.push_back(*text);
            }
          }
        }
      }
    }
    if (const ConfigNode* env = doc_.find("env")) {
      if (expect_map(*env, "env")) {
        for (const auto& entry : env->entries) {
          std::string field = "env." + entry.key;
          if (!is_identifier(entry.key)) {
            diag_.add(entry.key_location, field,
                      "'" + entry.key + "' is not a valid environment variable name");
            continue;
          }
          if (auto text = scalar(entry.value, field)) {
            remember(field, entry.value, *text);
            shared.env[entry.key] = *text;
          }
        }
      }
    }
    if (const ConfigNode* profile = doc_.find("profile")) {
      if (auto text = scalar(*profile, "profile")) {
        bool safe = !text->empty() && std::all_of(text->begin(), text->end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
        });
        if (!safe) {
          error(*profile, "profile",
                "'" + *text + "' is not a profile name (a file in profiles/, without .yaml)");
        }
        shared.profile = *text;
      }
    }
  }

  static bool is_module_name(const std::string& text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) ||
             std::string_view("._/+-@:").find(c) != std::string_view::npos;
    });
  }

  void build_slots() {
    t_.slot_names.assign(std::begin(kBuiltinNames), std::end(kBuiltinNames));
    std::set<std::string> names;
    for (const auto& [name, value] : t_.params) names.insert(name);
    for (const auto& axis : t_.matrix) names.insert(axis.name);
    for (const auto& group : t_.zips) {
      for (const auto& axis : group) names.insert(axis.name);
    }
    names.erase("global_batch");
    names.erase("per_gpu_batch");
    for (const auto& name : names) {
      t_.param_slots[name] = static_cast<int>(t_.slot_names.size());
      t_.slot_names.push_back(name);
    }
  }

  std::optional<Selector> read_selector(const ConfigNode& node, const std::string& field) {
    if (!expect_map(node, field)) return std::nullopt;
    if (node.entries.empty()) {
      error(node, field, "may not be empty");
      return std::nullopt;
    }
    Selector selector{node.location, {}};
    for (const auto& entry : node.entries) {
      std::string name = entry.key.rfind("workload.", 0) == 0 ? entry.key.substr(9) : entry.key;
      auto slot = std::find(t_.slot_names.begin(), t_.slot_names.end(), name);
      if (slot == t_.slot_names.end()) {
        diag_.add_unknown(entry.key_location, field + "." + entry.key, "name", entry.key,
                          t_.slot_names);
        continue;
      }
      auto text = scalar(entry.value, field + "." + entry.key);
      if (!text) continue;
      selector.slot_values.push_back(
          {static_cast<int>(slot - t_.slot_names.begin()), {*text, entry.value.location}});
    }
    return selector;
  }

  void read_filters() {
    if (const ConfigNode* exclude = doc_.find("exclude")) {
      size_t index = 0;
      for (const ConfigNode* item : list(*exclude, "exclude")) {
        if (auto selector = read_selector(*item, indexed("exclude", index))) {
          t_.excludes.push_back(std::move(*selector));
        }
        ++index;
      }
    }
    if (const ConfigNode* where = doc_.find("where")) {
      size_t index = 0;
      for (const ConfigNode* item : list(*where, "where", true)) {
        std::string field = where->is_sequence() ? indexed("where", index) : "where";
        ++index;
        auto text = scalar(*item, field);
        if (!text) continue;
        auto expression = WhereExpression::parse(*text, t_.slot_names);
        if (!expression) {
          error(*item, field, expression.status().message());
          continue;
        }
        t_.wheres.push_back({std::move(expression).value(), {*text, item->location}});
      }
    }
    if (const ConfigNode* baseline = doc_.find("baseline")) {
      t_.baseline = read_selector(*baseline, "baseline");
      if (t_.baseline) {
        for (const auto& [slot, value] : t_.baseline->slot_values) {
          t_.info.baseline[t_.slot_names[slot]] = value.text;
        }
      }
    }
  }

  void read_policy() {
    if (const ConfigNode* repeats = doc_.find("repeats")) {
      if (auto value = integer(*repeats, "repeats", 1)) t_.repeats = static_cast<int>(*value);
    }
    if (const ConfigNode* max_runs = doc_.find("max_runs")) {
      if (auto value = integer(*max_runs, "max_runs", 1)) {
        t_.max_runs = static_cast<size_t>(*value);
        t_.max_runs_location = max_runs->location;
      }
    }
    if (const ConfigNode* attempts = doc_.find("max_attempts")) {
      if (auto value = integer(*attempts, "max_attempts", 1)) {
        t_.info.max_attempts = static_cast<int>(*value);
      }
    }
    if (const ConfigNode* throttle = doc_.find("array_throttle")) {
      if (auto value = integer(*throttle, "array_throttle", 1)) {
        t_.info.array_throttle = static_cast<int>(*value);
      }
    }
    if (const ConfigNode* budget = doc_.find("budget"); budget && expect_map(*budget, "budget")) {
      check_keys(*budget, "budget.", kBudgetKeys);
      if (const ConfigNode* hours = budget->find("gpu_hours")) {
        t_.info.budget_gpu_hours = non_negative_number(*hours, "budget.gpu_hours");
      }
    }
    const ConfigNode* report = doc_.find("report");
    if (!report || !expect_map(*report, "report")) return;
    check_keys(*report, "report.", kReportKeys);
    if (const ConfigNode* gain = report->find("target_gain_pct")) {
      t_.info.report.target_gain_pct = non_negative_number(*gain, "report.target_gain_pct");
    }
    if (const ConfigNode* thresholds = report->find("thresholds")) {
      if (expect_map(*thresholds, "report.thresholds")) {
        check_keys(*thresholds, "report.thresholds.", kThresholdKeys);
        for (const auto& entry : thresholds->entries) {
          if (auto value = non_negative_number(entry.value, "report.thresholds." + entry.key)) {
            t_.info.report.thresholds[entry.key] = *value;
          }
        }
      }
    }
  }

  const ConfigNode& doc_;
  Diagnostics& diag_;
  StudyTemplate t_;
  int default_gpus_per_node_ = 0;
  int default_ranks_per_node_ = 0;  // 0: every rank of a CPU run on one node
};

}  // namespace

StudyTemplate parse_study_template(const ConfigNode& document, Diagnostics& diagnostics) {
  return SchemaReader(document, diagnostics).read();
}

}  // namespace scalestudy
