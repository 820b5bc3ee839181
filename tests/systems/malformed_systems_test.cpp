// Malformed system files, by hand and generated: each is refused with the file, line and
// column of what is wrong, never accepted and never a crash. The generated ones take the
// shipped example and, node by node, put a map or a list where a value was, or add an
// unknown key to a map.
#include <doctest/doctest.h>

#include <fstream>
#include <functional>
#include <regex>
#include <sstream>

#include "orchestrator/study/config_yaml.hpp"
#include "orchestrator/systems/system_catalog.hpp"
#include "tests/systems/system_files.hpp"

namespace scalestudy::systems {
namespace {

using testing::SystemFiles;

struct Malformed {
  const char* what;
  const char* yaml;      // written as bad.yaml
  const char* label;     // what is resolved
  const char* position;  // "bad.yaml:L:C" (or another file's) the error must name
  const char* message;   // a part of the error
};

// Parents and cycle partners of the cases below.
void write_companions(const SystemFiles& files) {
  files.write("parent", "scheduler: {kind: slurm, partition: p}\nextends: child\n");
  files.write("child", "extends: parent\nnode: {gpus: 1}\n");
}

const Malformed kCases[] = {
    {"a wrong type", "scheduler: {kind: slurm}\nnode:\n  gpus: four\n", "bad", "bad.yaml:3:9",
     "field 'node.gpus'"},
    {"a list for a map", "scheduler: {kind: slurm}\nlimits: [1, 2]\n", "bad", "bad.yaml:2:9",
     "field 'limits': expected a map"},
    {"a scalar scheduler", "scheduler: slurm\n", "bad", "bad.yaml:1:12",
     "field 'scheduler': expected a map"},
    {"an unknown top-level key", "scheduler: {kind: local}\nnodes: {gpus: 1}\n", "bad",
     "bad.yaml:2:1", "unknown key 'nodes' (did you mean 'node'?)"},
    {"an unknown scheduler key", "scheduler:\n  kind: slurm\n  partion: gpu\n", "bad",
     "bad.yaml:3:3", "unknown key 'partion' (did you mean 'partition'?)"},
    {"a key of another backend", "scheduler:\n  kind: local\n  partition: gpu\n", "bad",
     "bad.yaml:3:3", "field 'scheduler.partition': unknown key"},
    {"an unknown scheduler", "scheduler: {kind: slurmm}\n", "bad", "bad.yaml:1:19",
     "unknown scheduler 'slurmm' (did you mean 'slurm'?)"},
    {"no scheduler", "node: {gpus: 1}\n", "bad", "bad.yaml:1:1", "field 'scheduler': missing"},
    {"a backend's value refused", "scheduler: {kind: local, max_parallel: 0}\n", "bad",
     "bad.yaml:1:40",
     "field 'scheduler.max_parallel': expected a whole number of at least 1, got '0'"},
    {"a malformed time", "scheduler: {kind: slurm}\nlimits: {max_time: soon}\n", "bad",
     "bad.yaml:2:20", "field 'limits.max_time'"},
    {"a default over the limit",
     "scheduler: {kind: slurm}\nlimits: {max_time: 30}\ndefaults: {time: '01:00:00'}\n", "bad",
     "bad.yaml:3:18", "longer than limits.max_time"},
    {"a malformed memory size", "scheduler: {kind: slurm}\nnode: {memory: lots}\n", "bad",
     "bad.yaml:2:16", "field 'node.memory'"},
    {"an unknown precision", "scheduler: {kind: slurm}\npeak: {tflops: {bf61: 10}}\n", "bad",
     "bad.yaml:2:17", "unknown key 'bf61' (did you mean 'bf16'?)"},
    {"a zero peak", "scheduler: {kind: slurm}\npeak: {link_gb_per_s: 0}\n", "bad", "bad.yaml:2:23",
     "must be more than zero"},
    {"a broken pattern", "scheduler: {kind: slurm}\ndetect: {hostname: 'gpu[0-'}\n", "bad",
     "bad.yaml:2:20", "not a regular expression"},
    {"an srun flag that is no flag",
     "scheduler: {kind: slurm}\nlauncher: {srun_flags: [exclusive]}\n", "bad", "bad.yaml:2:25",
     "expected an srun option"},
    {"a GPU model without GPUs", "scheduler: {kind: slurm}\nnode: {gpu_model: H100}\n", "bad",
     "bad.yaml:2:19", "node.gpus is 0"},
    {"an env that is no map", "scheduler: {kind: slurm}\nruntime: {env: [A]}\n", "bad",
     "bad.yaml:2:16", "field 'runtime.env': expected a map"},
    {"a runtime key a study has but a system does not",
     "scheduler: {kind: slurm}\nruntime: {launcher: srun}\n", "bad", "bad.yaml:2:11",
     "unknown key 'launcher'"},
    {"an extends cycle", "extends: parent\n", "bad", "child.yaml:1:10",
     "cycle: bad -> parent -> child -> parent"},
    {"a missing parent", "extends: nowhere\nscheduler: {kind: slurm}\n", "bad", "bad.yaml:1:10",
     "no system 'nowhere'"},
    {"an extends that is no id", "extends: [parent]\n", "bad", "bad.yaml:1:10",
     "expected the id of one parent system"},
    {"an unknown variant",
     "scheduler: {kind: slurm}\nvariants:\n  debug: {limits: {max_nodes: 1}}\n", "bad:dbug",
     "bad.yaml:3:3", "has no variant 'dbug' (variants: debug)"},
    {"a variant that extends", "scheduler: {kind: slurm}\nvariants:\n  debug: {extends: parent}\n",
     "bad:debug", "bad.yaml:3:20", "a variant may not set 'extends'"},
    {"a variant with a bad value",
     "scheduler: {kind: slurm}\nvariants:\n  debug: {limits: {max_nodes: -1}}\n", "bad:debug",
     "bad.yaml:3:31", "field 'limits.max_nodes'"},
    {"a variant of a system without variants", "scheduler: {kind: slurm}\n", "bad:debug",
     "bad.yaml:1:1", "has no variant 'debug' (it has none)"},
    {"a variant name no label can select", "scheduler: {kind: slurm}\nvariants:\n  Big Nodes: {}\n",
     "bad", "bad.yaml:3:3", "field 'variants.Big Nodes': a variant's name is selected as ID:NAME"},
    {"an empty file", "", "bad", "bad.yaml:1:1", "the system file is empty"},
    {"a list for a document", "- scheduler\n", "bad", "bad.yaml:1:1", "a system is a map"},
    {"a duplicate key", "scheduler: {kind: slurm}\nscheduler: {kind: local}\n", "bad",
     "bad.yaml:2:1", "duplicate"},
};

TEST_CASE("each hand-written malformed system is refused at its file, line and column") {
  for (const Malformed& bad : kCases) {
    CAPTURE(bad.what);
    SystemFiles files("malformed");
    write_companions(files);
    files.write("bad", bad.yaml);
    Result<SystemSpec> system = resolve_system(files.path(), bad.label);
    REQUIRE_FALSE(system);
    const std::string message = system.status().message();
    CAPTURE(message);
    CHECK(message.find((files.dir / bad.position).string()) != std::string::npos);
    CHECK(message.find(bad.message) != std::string::npos);
  }
}

// Every node of `root` by its path of keys and indexes, for mutation.
void visit(ConfigNode& node, const std::string& path,
           const std::function<void(ConfigNode&, const std::string&)>& each) {
  each(node, path);
  for (ConfigEntry& entry : node.entries) visit(entry.value, path + "." + entry.key, each);
  for (size_t i = 0; i < node.items.size(); ++i) {
    visit(node.items[i], path + "[" + std::to_string(i) + "]", each);
  }
}

ConfigNode parse_text(const std::string& text) {
  auto parsed = parse_config(text, std::make_shared<const std::string>("example"));
  REQUIRE(parsed);
  return *parsed;
}

std::string read_example() {
  std::ifstream in(SystemFiles::shipped_dir() + "/example-h100.yaml");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Where any key is allowed: environment variables, and new variants (which are checked
// as variants: `bogus_key: 1` is no map, so that one is refused too).
bool free_keys(const std::string& path) {
  return path == ".runtime.env";
}

TEST_CASE("generated: a map or a list in place of any value, or an unknown key, is refused") {
  const ConfigNode example = parse_text(read_example());
  const std::string shipped = SystemFiles::shipped_dir();
  int mutations = 0;
  ConfigNode walker = example;
  std::vector<std::string> paths;
  visit(walker, "", [&](ConfigNode&, const std::string& path) { paths.push_back(path); });
  for (const std::string& target : paths) {
    for (const char* replacement : {"{x: 1}", "[1, 2]", "UNKNOWN_KEY"}) {
      ConfigNode mutated = example;
      bool applies = false;
      visit(mutated, "", [&](ConfigNode& node, const std::string& path) {
        if (path != target) return;
        if (std::string(replacement) == "UNKNOWN_KEY") {
          if (!node.is_map() || free_keys(path)) return;
          node.entries.push_back({"bogus_key", node.location, parse_text("1")});
        } else {
          if (!node.is_scalar()) return;
          node = parse_text(replacement);
        }
        applies = true;
      });
      if (!applies) continue;
      ++mutations;
      CAPTURE(target);
      CAPTURE(replacement);
      SystemFiles files("generated");
      const std::string file = files.write("mutant", config_to_yaml(mutated));
      CAPTURE(config_to_yaml(mutated));
      Status checked = check_system_file(files.path(), file);
      REQUIRE_FALSE(checked);
      // The mutated node, found again in the file as written, is where the error points.
      std::ifstream written(file);
      std::ostringstream text;
      text << written.rdbuf();
      auto reread = parse_config(text.str(), std::make_shared<const std::string>(file));
      REQUIRE(reread);
      const std::string mutated_path =
          std::string(replacement) == "UNKNOWN_KEY" ? target + ".bogus_key" : target;
      int line = 0;
      visit(*reread, "", [&](ConfigNode& node, const std::string& path) {
        if (path == mutated_path) line = node.location.line;
      });
      REQUIRE(line > 0);
      CHECK(checked.message().find(file + ":" + std::to_string(line) + ":") != std::string::npos);
      std::istringstream lines(checked.message());
      const std::regex positioned(
          "^" + std::regex_replace(file, std::regex(R"([.^$|()\[\]*+?{}\\])"), R"(\$&)") +
          ":[0-9]+:[0-9]+: .+");
      for (std::string line; std::getline(lines, line);) {
        CAPTURE(line);
        CHECK(std::regex_match(line, positioned));
      }
    }
  }
  CHECK(mutations > 60);
}

}  // namespace
}  // namespace scalestudy::systems
