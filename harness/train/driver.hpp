// The driver every workload binary's main() calls: parses flags (session flags plus the
// workload's), discovers ranks, opens the device (--device) and picks the backend that
// reduces its tensors (--backend), creates this rank's run database (before the
// rendezvous, so even a failed rendezvous is recorded), checks --world-size, sets the
// intra-op threads, connects the communicator, records provenance, samples telemetry (NVML
// on a GPU), runs the workload, adds the memory peaks and marks the run completed or failed.
// `--describe-flags json` as the only arguments prints every flag's rule and default
// (Flags::describe_json) and returns 0 without starting anything.
// Returns the process exit code: 0 completed (or --help), 1 failed (the reason on stderr and in the
// run record), exit_codes::kCheckpointed (75) when the workload stopped on SIGTERM / SIGINT
// after writing a checkpoint (the record is marked failed with that reason; the next attempt
// in the same --out-dir resumes and continues the record). Construct nothing that starts threads
// before calling it: it installs the signal mask.
#pragma once

#include "harness/train/workload.hpp"

namespace scalestudy::train {

int run_workload(int argc, char** argv, Workload& workload);

}  // namespace scalestudy::train
