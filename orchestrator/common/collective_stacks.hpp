// Which ranks of a hung run did not arrive at the collective the others wait in, read from
// the stacks scalestudy-launch's hang watchdog wrote (stacks/rank<r>.txt: `py-spy dump` for
// Python ranks, `gdb -batch` "thread apply all bt" for others). A rank waits in a collective
// when a frame of any thread is one (all_reduce, barrier, broadcast, all_gather,
// reduce_scatter, all_to_all, in torch.distributed, c10d, gloo, NCCL or scalestudy's own
// communicator), or, failing that, a wait on one in flight (c10d::Work::wait, gloo's
// waitRecv/waitSend, ncclKernel). Idle background threads (gloo's event loop, c10d's work
// loop, OpenMP's barriers) are no collective. Pure functions; no I/O.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace scalestudy::common {

struct RankStacks {
  int rank = 0;
  std::string text;  // the dump as the tool wrote it
};

// The collective frame that `stacks` waits in ("all_reduce", "c10d::Work::wait"), "" when
// its frames show none, nullopt when it holds no frame at all (the tool failed: unknown).
std::optional<std::string> collective_waited_in(const std::string& stacks);

// "rank 1 not in a collective (rank 0 waits in all_reduce)" when some ranks wait in a
// collective while others are elsewhere; "" otherwise (all wait, none does, no stacks).
std::string ranks_not_in_collective(const std::vector<RankStacks>& ranks);

}  // namespace scalestudy::common
