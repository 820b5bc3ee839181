// The offset of this host's realtime clock from rank 0's, for comparing the times ranks on
// different hosts record (the gradient all-reduce arrivals). Measured right after the
// rendezvous the way Cristian's algorithm does: rank 0 reads its clock into a scalar
// all-reduce that the others bracket with two readings of theirs; of a few rounds the one
// with the shortest bracket wins, and its midpoint stands for the moment rank 0 read. The
// error is at most half that bracket (a few tens of microseconds on a cluster network).
// Every rank must call it together; the training thread's.
#pragma once

#include "harness/core/status.hpp"
#include "harness/dist/communicator.hpp"

namespace scalestudy::dist {

// Seconds to add to this host's realtime clock to read rank 0's (0 on rank 0).
Result<double> measure_clock_offset_s(Communicator& communicator);

// Now on this host's realtime clock, in seconds since the Unix epoch.
double realtime_now_s();

}  // namespace scalestudy::dist
