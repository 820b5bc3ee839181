// WorkloadInvocation: how a run's program is called beyond its binary, so any program (a
// Python training script, a Hydra application, a shell script) can be a workload: fixed
// leading arguments, the form of the generated flags (workload.flags), parameters passed
// as bare words or as environment variables instead of flags, and whether scalestudy's own
// --run-id/--out-dir flags are passed. Plain value type.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace scalestudy {

// How a parameter becomes words of the command line (batch_size = 12).
enum class FlagForm {
  kDashes,       // --batch-size 12 (scalestudy's workloads, argparse with dashes)
  kUnderscores,  // --batch_size 12 (argparse as the parameter is written)
  kEquals,       // --batch_size=12 (configurator-style scripts: one word per flag)
  kHydra,        // batch_size=12 (Hydra overrides; a name written "+key" adds a new key)
};

// How a parameter whose value is true or false is passed.
enum class BooleanForm {
  kWords,   // as any value: --flag true, flag=true
  kSwitch,  // --flag for true, --no-flag for false (argparse BooleanOptionalAction, tyro)
  kPython,  // True and False: what ast.literal_eval reads (configurator-style scripts)
};

struct WorkloadInvocation {
  std::vector<std::string> args;  // placed right after the binary (e.g. the script path)
  FlagForm flag_form = FlagForm::kDashes;
  BooleanForm booleans = BooleanForm::kWords;
  // Parameter -> the name the program knows it by, as written ("model.n_layer",
  // "training.local_batch_size", "+seed"); the form still adds its dashes and '='.
  std::map<std::string, std::string> flag_names;
  // Parameters passed as bare words in this order, after `args` and before any flag.
  std::vector<std::string> positional;
  // Parameters the program does not take on its command line (names: {x: none}): for
  // templates (workload.files) and env values only.
  std::vector<std::string> not_passed;
  // Parameter name -> environment variable that carries its value instead of a flag.
  std::map<std::string, std::string> env_params;
  // --run-id and --out-dir flags: scalestudy's workloads read them; a program that does not
  // (run_flags: false) finds the same values in SCALESTUDY_RUN_ID and SCALESTUDY_OUT_DIR,
  // and may take parameters named run_id and out_dir of its own.
  bool run_flags = true;

  // Only the two forms there were before workload.flags, nothing else set: the run id's
  // serialisation leaves the newer fields out, so such studies keep their ids.
  bool is_classic() const {
    return booleans == BooleanForm::kWords && flag_names.empty() && positional.empty() &&
           not_passed.empty() &&
           (flag_form == FlagForm::kDashes || flag_form == FlagForm::kUnderscores);
  }
  bool is_default() const {
    return args.empty() && flag_form == FlagForm::kDashes && is_classic() && env_params.empty() &&
           run_flags;
  }
};

const char* flag_form_name(FlagForm form);
const char* boolean_form_name(BooleanForm form);
const std::vector<std::string>& flag_form_names();     // in enum order
const std::vector<std::string>& boolean_form_names();  // in enum order

}  // namespace scalestudy
