// WorkloadInvocation: how a run's program is called beyond its binary, so any program (a
// Python training script, a shell script) can be a workload: fixed leading arguments, the
// spelling of the generated flags, parameters passed as environment variables instead of
// flags, and whether scalestudy's own --run-id/--out-dir flags are passed. Plain value type.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace scalestudy {

enum class FlagStyle {
  kDashes,       // batch_size -> --batch-size
  kUnderscores,  // batch_size -> --batch_size
};

struct WorkloadInvocation {
  std::vector<std::string> args;  // placed right after the binary (e.g. the script path)
  FlagStyle flag_style = FlagStyle::kDashes;
  // Parameter name -> environment variable that carries its value instead of a flag.
  std::map<std::string, std::string> env_params;
  // --run-id and --out-dir flags: scalestudy's workloads read them; a program that does not
  // (run_flags: false) finds the same values in SCALESTUDY_RUN_ID and SCALESTUDY_OUT_DIR.
  bool run_flags = true;

  bool is_default() const {
    return args.empty() && flag_style == FlagStyle::kDashes && env_params.empty() && run_flags;
  }
};

const char* flag_style_name(FlagStyle style);

}  // namespace scalestudy
