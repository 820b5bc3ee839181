// Exit statuses with a meaning beyond success and failure, shared by the workload binaries
// (harness/train/driver, scalestudy-launch) and the orchestrator that reads them back from
// its schedulers. Torch-free constants.
#pragma once

namespace scalestudy::exit_codes {

// A training run that stopped on SIGTERM / SIGINT (a time limit, preemption, scancel)
// after writing a checkpoint in its run directory: the next attempt resumes from it.
// EX_TEMPFAIL of sysexits.h ("temporary failure; the user is invited to retry"), apart from
// 1 (a failure) and 128 + N (killed by signal N). The orchestrator records it PREEMPTED.
inline constexpr int kCheckpointed = 75;

}  // namespace scalestudy::exit_codes
