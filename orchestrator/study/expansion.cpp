#include "orchestrator/study/expansion.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>

#include "harness/core/nearest_name.hpp"
#include "orchestrator/study/references.hpp"
#include "orchestrator/study/run_id.hpp"
#include "orchestrator/study/run_spec_names.hpp"
#include "orchestrator/study/workload_command_line.hpp"
#include "orchestrator/study/workload_files.hpp"

namespace scalestudy {
namespace {

// Past this many errors the rest of the expansion would only repeat them.
constexpr size_t kMaxErrors = 50;

// One dimension of the combination space: a matrix axis, or a zip group (its columns
// advance together).
struct Dimension {
  std::vector<const Axis*> columns;
  size_t length = 0;
};

// Where a run's value came from: a field, and the list index for axis values.
struct ValueSource {
  const SourceLocation* location;
  const std::string* field;
  int index;  // -1: not a list item
  std::string describe() const {
    return index < 0 ? *field : *field + "[" + std::to_string(index) + "]";
  }
};

// Expands one study; holds the per-run scratch state so the hot loop does not allocate
// more than the RunSpec it produces.
class Expander {
 public:
  Expander(StudyTemplate& t, Diagnostics& diag) : t_(t), diag_(diag) {
    for (const auto& axis : t_.matrix) dimensions_.push_back({{&axis}, axis.values.size()});
    for (const auto& group : t_.zips) {
      dimensions_.push_back({{}, group.empty() ? 0 : group[0].values.size()});
      for (const auto& column : group) dimensions_.back().columns.push_back(&column);
    }
    size_t slots = t_.slot_names.size();
    values_.resize(slots);
    sources_.resize(slots, {&t_.name_location, &scale_field_, -1});
    base_fields_.resize(slots);
    resolve_state_.resize(slots);
    for (const auto& [name, slot] : t_.param_slots) base_fields_[slot] = "workload." + name;
    base_fields_[kSlotBinary] = "workload.binary";
    batch_field_ =
        t_.batch_given == StudyTemplate::BatchGiven::kGlobal ? "global_batch" : "per_gpu_batch";
    values_[kSlotStudy] = t_.info.name;
    values_[kSlotKind] = study_kind_name(t_.info.kind);
    values_[kSlotBinary] = t_.binary.text;
    sources_[kSlotBinary] = {&t_.binary.location, &base_fields_[kSlotBinary], -1};
  }

  Study run() {
    size_t combinations = 1;
    for (const auto& dimension : dimensions_) combinations *= dimension.length;
    if (!within_max_runs()) return std::move(study_);
    study_.runs.reserve(t_.scale.size() * combinations * t_.repeats);
    std::vector<size_t> index(dimensions_.size(), 0);
    for (const ScalePoint& point : t_.scale) {
      for (size_t combination = 0; combination < combinations; ++combination) {
        size_t rest = combination;
        for (size_t d = dimensions_.size(); d-- > 0;) {
          index[d] = rest % dimensions_[d].length;
          rest /= dimensions_[d].length;
        }
        for (int repeat = 0; repeat < t_.repeats; ++repeat) {
          if (diag_.size() >= kMaxErrors) return std::move(study_);
          expand_one(point, index, repeat);
        }
      }
    }
    if (t_.baseline && !baseline_matched_ && diag_.empty()) {
      diag_.add(t_.baseline->location, "baseline", "matches none of the study's runs");
    }
    fill_varied();
    return std::move(study_);
  }

 private:
  // The run count before filters (scale points x combinations x repeats), computed without
  // overflow, against `max_runs`; an error names the count and its factors.
  bool within_max_runs() {
    std::vector<size_t> factors{t_.scale.size()};
    for (const auto& dimension : dimensions_) factors.push_back(dimension.length);
    factors.push_back(static_cast<size_t>(t_.repeats));
    unsigned long long runs = 1;
    bool overflowed = false;
    std::string product;
    for (size_t factor : factors) {
      overflowed = overflowed || __builtin_mul_overflow(runs, factor, &runs);
      product += (product.empty() ? "" : " x ") + std::to_string(factor);
    }
    if (!overflowed && runs <= t_.max_runs) return true;
    std::string count = overflowed ? "more than 2^64" : std::to_string(runs);
    diag_.add(t_.max_runs_location.value_or(t_.name_location), "max_runs",
              "the study expands to " + count + " runs (" + product +
                  ": scale points x matrix/zip lengths x repeats), more than max_runs " +
                  std::to_string(t_.max_runs) + "; set `max_runs:` higher if that is meant");
    return false;
  }

  void expand_one(const ScalePoint& point, const std::vector<size_t>& index, int repeat) {
    // Parameters: the workload's, then the axes' values for this combination.
    for (const auto& [name, value] : t_.params) {
      int slot = t_.param_slots.at(name);
      values_[slot] = value.text;
      sources_[slot] = {&value.location, &base_fields_[slot], -1};
    }
    const LocatedValue* batch = t_.batch ? &*t_.batch : nullptr;
    ValueSource batch_source = {batch ? &batch->location : &point.location, &batch_field_, -1};
    ValueSource origin = {&point.location, &scale_field_, -1};
    for (size_t d = 0; d < dimensions_.size(); ++d) {
      int position = static_cast<int>(index[d]);
      for (const Axis* axis : dimensions_[d].columns) {
        const LocatedValue& value = axis->values[position];
        origin = {&value.location, &axis->field, position};
        if (axis->name == "global_batch" || axis->name == "per_gpu_batch") {
          batch = &value;
          batch_source = origin;
          continue;
        }
        int slot = t_.param_slots.at(axis->name);
        values_[slot] = value.text;
        sources_[slot] = origin;
      }
    }
    // Scale and batch math.
    int world_size = point.nodes * point.tasks_per_node;
    long long given = batch ? std::stoll(batch->text) : 0;
    long long global_batch = 0, per_gpu_batch = 0;
    bool divisible = true;
    if (t_.batch_given == StudyTemplate::BatchGiven::kGlobal) {
      per_gpu_batch = given / world_size;
      divisible = given % world_size == 0 || t_.round_down_uneven_batch;
      global_batch = t_.round_down_uneven_batch ? per_gpu_batch * world_size : given;
    } else if (t_.batch_given == StudyTemplate::BatchGiven::kPerGpu) {
      per_gpu_batch = given;
      global_batch = given * world_size;
    }
    values_[kSlotWorldSize] = std::to_string(world_size);
    values_[kSlotNodes] = std::to_string(point.nodes);
    values_[kSlotTasksPerNode] = std::to_string(point.tasks_per_node);
    values_[kSlotGpusPerNode] = std::to_string(point.gpu ? point.tasks_per_node : 0);
    values_[kSlotGlobalBatch] = std::to_string(global_batch);
    values_[kSlotPerGpuBatch] = std::to_string(per_gpu_batch);
    values_[kSlotRepeat] = std::to_string(repeat);

    if (!resolve_params()) return;
    for (const Selector& exclude : t_.excludes) {
      if (matches(exclude)) return;
    }
    for (const WhereFilter& where : t_.wheres) {
      if (!where.expression.evaluate(values_)) return;
    }
    if (batch && per_gpu_batch == 0) {
      diag_.add(*batch_source.location, batch_source.describe(),
                "global batch " + std::to_string(given) + " is smaller than " +
                    std::to_string(world_size) + " ranks");
      return;
    }

    if (!divisible) {
      diag_.add(*batch_source.location, batch_source.describe(),
                "global batch " + std::to_string(global_batch) + " does not divide evenly over " +
                    std::to_string(world_size) + " ranks (scale point at " +
                    point.location.to_string() + "); set `uneven_batch: round_down` to run " +
                    std::to_string(per_gpu_batch) + " per rank, a global batch of " +
                    std::to_string(per_gpu_batch * world_size));
      return;
    }
    RunSpec spec = t_.shared;
    spec.repeat = repeat;
    spec.nodes = point.nodes;
    spec.tasks_per_node = point.tasks_per_node;
    spec.world_size = world_size;
    spec.slurm.gpus_per_node = point.gpu ? point.tasks_per_node : 0;
    spec.global_batch = static_cast<int>(global_batch);
    spec.per_gpu_batch = static_cast<int>(per_gpu_batch);
    spec.workload = values_[kSlotBinary];
    for (const auto& [name, slot] : t_.param_slots)
      spec.params.emplace_hint(spec.params.end(), name, values_[slot]);
    if (!substitute_shared(spec)) return;
    if (!render_files(spec)) return;
    if (t_.baseline && matches(*t_.baseline)) baseline_matched_ = true;

    spec.run_id = compute_run_id(spec);
    auto [existing, inserted] = ids_.emplace(spec.run_id, study_.runs.size());
    if (!inserted) {
      diag_.add(*origin.location, origin.describe(),
                "duplicate run: repeat " + std::to_string(repeat) + " at " +
                    std::to_string(world_size) + " ranks resolves to the same content as an " +
                    "earlier run (id " + spec.run_id + "); remove the repeated value or filter it");
      return;
    }
    study_.runs.push_back(std::move(spec));
    given_batches_.push_back(given);
  }

  bool matches(const Selector& selector) const {
    for (const auto& [slot, value] : selector.slot_values) {
      if (values_[slot] != value.text) return false;
    }
    return true;
  }

  // Substitutes ${} in parameter values, following references between parameters.
  bool resolve_params() {
    std::fill(resolve_state_.begin(), resolve_state_.end(), kUnresolved);
    bool ok = true;
    for (const auto& [name, slot] : t_.param_slots) {
      if (resolve_state_[slot] == kUnresolved && has_reference(values_[slot])) {
        std::vector<std::string> chain;
        ok = resolve_slot(slot, chain) && ok;
      }
    }
    return ok;
  }

  enum ResolveState : char { kUnresolved, kResolving, kResolved };

  bool resolve_slot(int slot, std::vector<std::string>& chain) {
    resolve_state_[slot] = kResolving;
    chain.push_back(t_.slot_names[slot]);
    Result<std::string> resolved = substitute_references(
        values_[slot], [&](const std::string& name) { return lookup(name, &chain); });
    chain.pop_back();
    resolve_state_[slot] = kResolved;
    if (!resolved) {
      diag_.add(*sources_[slot].location, sources_[slot].describe(), resolved.status().message());
      return false;
    }
    values_[slot] = std::move(resolved).value();
    return true;
  }

  // The value of ${name} for the current run. `chain` (the parameters being resolved)
  // detects cycles; nullptr when substituting a field that no reference can lead back to.
  Result<std::string> lookup(const std::string& name, std::vector<std::string>* chain) {
    std::string_view key = name;
    if (key.rfind("workload.", 0) == 0) key.remove_prefix(9);
    if (key == "launcher") return std::string(launcher_name(t_.shared.launcher));
    if (key == "profile") return t_.shared.profile;
    // The run's folder is named after the run id, which hashes this very text: the
    // reference stays as written and is replaced at launch (workload_command_line.hpp).
    if (key == "run_dir") return std::string(kRunDirReference);
    if (key.rfind("files.", 0) == 0) return file_path(name, key.substr(6));
    auto slot_it = std::find(t_.slot_names.begin(), t_.slot_names.end(), key);
    if (slot_it == t_.slot_names.end()) {
      std::vector<std::string> candidates = t_.slot_names;
      candidates.insert(candidates.end(), {"launcher", "profile", "run_dir"});
      std::string message = "undefined reference '${" + name + "}'";
      if (auto suggestion = nearest_name(std::string(key), candidates)) {
        message += " (did you mean '${" + *suggestion + "}'?)";
      }
      return Status::error(message);
    }
    int slot = static_cast<int>(slot_it - t_.slot_names.begin());
    if (resolve_state_[slot] == kResolving) {
      std::string cycle;
      for (const auto& link : *chain) cycle += "${" + link + "} -> ";
      return Status::error("reference cycle: " + cycle + "${" + std::string(key) + "}");
    }
    if (resolve_state_[slot] == kUnresolved && has_reference(values_[slot]) && chain) {
      if (!resolve_slot(slot, *chain)) {
        return Status::error("'${" + name + "}' refers to a value that cannot be resolved");
      }
    }
    return values_[slot];
  }

  // ${files.NAME}: where the run's file NAME is written.
  Result<std::string> file_path(const std::string& reference, std::string_view name) const {
    if (t_.files.count(std::string(name))) {
      return std::string(kRunDirReference) + "/" + std::string(name);
    }
    std::vector<std::string> names;
    for (const auto& [file, text] : t_.files) names.push_back("files." + file);
    std::string message = "undefined reference '${" + reference + "}'";
    if (auto suggestion = nearest_name(reference, names)) {
      message += " (did you mean '${" + *suggestion + "}'?)";
    }
    return Status::error(message + ": workload.files names no such file");
  }

  // Renders each of workload.files for this run, its values escaped for the file's kind, and
  // checks that a JSON, TOML or YAML file parses; errors point at the template.
  bool render_files(RunSpec& spec) {
    bool ok = true;
    for (const auto& [name, text] : t_.files) {
      const std::string field = "workload.files." + name;
      std::vector<std::string> chain;
      Result<std::string> rendered =
          substitute_references(text.text, [&](const std::string& key) -> Result<std::string> {
            auto value = lookup(key, &chain);
            if (!value) return value;
            return escaped_for_file(name, *value);
          });
      Status checked = rendered ? check_rendered_file(name, *rendered) : rendered.status();
      if (!checked) {
        diag_.add(text.location, field, checked.message());
        ok = false;
        continue;
      }
      spec.files[name] = std::move(rendered).value();
    }
    return ok;
  }

  // Substitutes ${} in one shared field; `field` names it (with `index` for list items)
  // and is only turned into text when there is something to report.
  bool substitute_field(std::string& text, const char* field, int index = -1) {
    if (!has_reference(text)) return true;
    std::string name = index < 0 ? field : std::string(field) + "[" + std::to_string(index) + "]";
    std::vector<std::string> chain;
    Result<std::string> resolved =
        substitute_references(text, [&](const std::string& key) { return lookup(key, &chain); });
    auto where = t_.field_locations.find(name);
    const SourceLocation& location =
        where != t_.field_locations.end() ? where->second : t_.name_location;
    if (!resolved) {
      diag_.add(location, name, resolved.status().message());
      return false;
    }
    text = std::move(resolved).value();
    // Environment values are quoted in the script; everything else may land on one line.
    bool one_line = std::strncmp(field, "env.", 4) != 0;
    if (one_line && std::any_of(text.begin(), text.end(),
                                [](char c) { return static_cast<unsigned char>(c) < 0x20; })) {
      diag_.add(location, name, "resolves to text with a newline or control character");
      return false;
    }
    return true;
  }

  // sbatch splits a #SBATCH line at white space, so a value with a space would carry
  // options of its own ("gpu --exclusive"); these fields take one word.
  bool one_sbatch_word(const std::string& text, const char* field) {
    if (std::none_of(text.begin(), text.end(),
                     [](char c) { return std::isspace(static_cast<unsigned char>(c)); })) {
      return true;
    }
    auto where = t_.field_locations.find(field);
    diag_.add(where != t_.field_locations.end() ? where->second : t_.name_location, field,
              "'" + text +
                  "' has white space; an #SBATCH value is one word (options go in "
                  "slurm.extra)");
    return false;
  }

  bool substitute_shared(RunSpec& spec) {
    bool ok = substitute_field(spec.workload, "workload.binary");
    ok = substitute_field(spec.slurm.partition, "slurm.partition") && ok;
    ok = substitute_field(spec.slurm.account, "slurm.account") && ok;
    ok = substitute_field(spec.slurm.qos, "slurm.qos") && ok;
    ok = substitute_field(spec.slurm.constraint, "slurm.constraint") && ok;
    ok = substitute_field(spec.slurm.reservation, "slurm.reservation") && ok;
    ok = one_sbatch_word(spec.slurm.partition, "slurm.partition") && ok;
    ok = one_sbatch_word(spec.slurm.account, "slurm.account") && ok;
    ok = one_sbatch_word(spec.slurm.qos, "slurm.qos") && ok;
    ok = one_sbatch_word(spec.slurm.constraint, "slurm.constraint") && ok;
    ok = one_sbatch_word(spec.slurm.reservation, "slurm.reservation") && ok;
    for (size_t i = 0; i < spec.slurm.extra_options.size(); ++i) {
      ok = substitute_field(spec.slurm.extra_options[i], "slurm.extra", int(i)) && ok;
    }
    for (size_t i = 0; i < spec.modules.size(); ++i) {
      ok = substitute_field(spec.modules[i], "modules", int(i)) && ok;
    }
    ok = substitute_field(spec.container.image, "container.image") && ok;
    for (size_t i = 0; i < spec.container.binds.size(); ++i) {
      ok = substitute_field(spec.container.binds[i], "container.binds", int(i)) && ok;
    }
    for (auto& [name, value] : spec.env) {
      if (has_reference(value)) ok = substitute_env(name, value) && ok;
    }
    return ok;
  }

  bool substitute_env(const std::string& name, std::string& value) {
    std::string field = "env." + name;
    return substitute_field(value, field.c_str());
  }

  // Whether each of the first run's parameters (in name order) differs in some run, in one
  // pass over the runs: every run holds the same parameter names (the template's slots), so
  // the maps are compared in step instead of looking each name up in each run.
  std::vector<bool> varying_params() const {
    const auto& first = study_.runs.front().params;
    std::vector<bool> varies(first.size(), false);
    for (const RunSpec& run : study_.runs) {
      auto other = run.params.begin();
      size_t position = 0;
      for (const auto& entry : first) {
        // A run whose names do not line up (never expected) counts as varying, not as UB.
        const bool same = other != run.params.end() && other->first == entry.first &&
                          other->second == entry.second;
        varies[position] = varies[position] || !same;
        if (other != run.params.end()) ++other;
        ++position;
      }
    }
    return varies;
  }

  // A parameter is varied when its value differs between runs; world_size is always
  // varied in strong and weak studies; nodes when one world size runs on several layouts.
  void fill_varied() {
    if (study_.runs.empty()) return;
    const RunSpec& first = study_.runs.front();
    auto differs = [&](const auto& get) {
      return std::any_of(study_.runs.begin(), study_.runs.end(),
                         [&](const RunSpec& run) { return get(run) != get(first); });
    };
    std::vector<std::string>& keys = study_.varied_keys;
    bool scaling = t_.info.kind == StudyKind::kStrong || t_.info.kind == StudyKind::kWeak;
    if (scaling || differs([](const RunSpec& r) { return r.world_size; })) {
      keys.push_back("world_size");
    }
    std::map<int, std::set<int>> layouts;
    for (const auto& run : study_.runs) layouts[run.world_size].insert(run.nodes);
    if (std::any_of(layouts.begin(), layouts.end(),
                    [](const auto& entry) { return entry.second.size() > 1; })) {
      keys.push_back("nodes");
    }
    // The batch the study gives, as given (a rounded-down global batch is not a new setting).
    bool batch_varies = std::any_of(given_batches_.begin(), given_batches_.end(),
                                    [&](long long b) { return b != given_batches_.front(); });
    if (batch_varies) keys.push_back(batch_field_);
    const std::vector<bool> params_vary = varying_params();
    size_t position = 0;
    for (const auto& entry : first.params) {
      if (params_vary[position++]) keys.push_back(entry.first);
    }
    for (RunSpec& run : study_.runs) {
      for (const auto& key : keys) {
        if (key == "world_size") {
          run.varied[key] = std::to_string(run.world_size);
        } else if (key == "nodes") {
          run.varied[key] = std::to_string(run.nodes);
        } else if (key == batch_field_) {
          run.varied[key] = std::to_string(given_batches_[&run - study_.runs.data()]);
        } else {
          run.varied[key] = run.params.at(key);
        }
      }
    }
  }

  StudyTemplate& t_;
  Diagnostics& diag_;
  Study study_;
  std::vector<Dimension> dimensions_;
  std::vector<std::string> values_;       // by slot, for the current run
  std::vector<ValueSource> sources_;      // where each slot's value was written
  std::vector<std::string> base_fields_;  // "workload.<name>" by slot
  std::string batch_field_;               // the batch field the study gives
  const std::string scale_field_ = "scale";
  std::vector<char> resolve_state_;              // ResolveState by slot
  std::unordered_map<std::string, size_t> ids_;  // run id -> index in runs
  std::vector<long long> given_batches_;         // the study's batch value, by run
  bool baseline_matched_ = false;
};

// Every value a workload parameter is given, fixed or on an axis, and where; the first
// place a value is written wins.
std::map<std::string, std::map<std::string, SourceLocation>> param_value_locations(
    const StudyTemplate& t) {
  std::map<std::string, std::map<std::string, SourceLocation>> locations;
  for (const auto& [name, value] : t.params) locations[name].emplace(value.text, value.location);
  auto add_axis = [&](const Axis& axis) {
    if (!t.param_slots.count(axis.name)) return;
    for (const auto& value : axis.values) locations[axis.name].emplace(value.text, value.location);
  };
  for (const auto& axis : t.matrix) add_axis(axis);
  for (const auto& group : t.zips) {
    for (const auto& axis : group) add_axis(axis);
  }
  return locations;
}

}  // namespace

Study expand_study(StudyTemplate study_template, Diagnostics& diagnostics) {
  Study study = Expander(study_template, diagnostics).run();
  Study info = std::move(study_template.info);
  info.runs = std::move(study.runs);
  info.varied_keys = std::move(study.varied_keys);
  info.param_value_locations = param_value_locations(study_template);
  return info;
}

}  // namespace scalestudy
