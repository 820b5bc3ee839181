// How a local run ended, written beside it by its launcher, so that a `status` or `wait`
// after its submitter was killed (SIGKILL, a closed terminal) or left (a second Ctrl-C)
// reads the end instead of calling the run lost (docs/failures.md). Each process of a run
// is started under a keeper: a fork of the submitter that starts the process, waits for
// it, writes <out_dir>/local-exit.<index> ("<group> <processes> <launcher> <wait status>")
// and ends as the process did, so its parent sees the process's own status. The keeper
// holds every signal blocked: a signal to the run's process group (cancel, time limit,
// Ctrl-C) stops the process, not its keeper.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace scalestudy::sched {

// <out_dir>/local-exit.<index>
std::string exit_record_path(const std::string& out_dir, size_t index);

// In a forked child, after its process group, files and gate are set: keeps `argv` as
// described above and never returns. Async-signal-safe; `record_path`'s text and the
// vectors are the parent's, prepared before fork.
[[noreturn]] void exec_under_keeper(char* const argv[], char* const envp[], const char* record_path,
                                    size_t processes, bool launcher);

struct RecordedExit {
  bool launcher = false;  // scalestudy-launch, which exits 128 + N when a rank died of N
  int wait_status = 0;    // as waitpid gave it
};

// The recorded ends of run `group`'s processes in `out_dir`, in their order; nothing unless
// every process's record is there (a keeper killed with its process wrote none).
std::optional<std::vector<RecordedExit>> read_exit_records(const std::string& out_dir, pid_t group);

}  // namespace scalestudy::sched
