// The failure class of an attempt from the evidence a finished job leaves, over recorded
// evidence: sacct lines as slurm_states reads them, the local executor's statuses, and
// excerpts of rank logs (a Python traceback, a C++ exception, NCCL and gloo lines, GPU Xid).
#include "orchestrator/common/failure_class.hpp"

#include <doctest/doctest.h>

using namespace scalestudy::common;

namespace {

JobStatus failed(std::optional<int> exit_code, const std::string& reason) {
  return {JobState::kFailed, exit_code, reason};
}

LogTail log(const std::string& name, std::vector<std::string> lines) {
  return {name, std::move(lines)};
}

}  // namespace

TEST_CASE("a traceback is the program's, its exception line the evidence") {
  const auto python =
      log("rank0.log", {"step 1 loss 2.31", "Traceback (most recent call last):",
                        "  File \"/work/train.py\", line 12, in <module>",
                        "    raise ValueError(\"bad shard 3\")", "ValueError: bad shard 3"});
  // Its peer lost the connection because rank 0 died: the program's fault, not the node's.
  const auto peer = log("rank1.log", {"[rank1]: RuntimeError: [../third_party/gloo/gloo/transport/"
                                      "tcp/pair.cc:534] Connection reset by peer"});
  Failure failure = classify_failure(failed(1, "rank 0 exited with code 1"), {peer, python});
  CHECK(failure.kind == FailureClass::kProgram);
  CHECK(failure.evidence == "rank0.log: ValueError: bad shard 3");
}

TEST_CASE("torchrun's [rankN]: prefixes do not hide a traceback") {
  const auto lines = log("rank1.log", {"[rank1]: Traceback (most recent call last):",
                                       "[rank1]:   File \"x.py\", line 3, in <module>",
                                       "[rank1]: torch.OutOfMemoryError: CUDA out of memory."});
  Failure failure = classify_failure(failed(1, ""), {lines});
  CHECK(failure.kind == FailureClass::kProgram);
  CHECK(failure.evidence == "rank1.log: torch.OutOfMemoryError: CUDA out of memory.");
}

TEST_CASE("a C++ exception and a non-finite loss are the program's") {
  const auto cpp = log("rank0.log", {"terminate called after throwing an instance of "
                                     "'std::runtime_error'",
                                     "  what():  checkpoint shard 2 is truncated"});
  Failure thrown = classify_failure(failed(134, ""), {cpp});
  CHECK(thrown.kind == FailureClass::kProgram);
  CHECK(thrown.evidence.find("what():  checkpoint shard 2 is truncated") != std::string::npos);

  Failure nan = classify_failure(failed(1, ""), {log("rank0.log", {"epoch 3 step 40 loss nan"})});
  CHECK(nan.kind == FailureClass::kProgram);
  CHECK(nan.evidence == "rank0.log: epoch 3 step 40 loss nan");
}

TEST_CASE("a traceback that a connection reset raised, Xid and ECC lines are the node's") {
  JobStatus status = failed(1, "exit code 1");
  status.placement.node_list = "node[3-4]";
  const auto reset =
      log("rank0.log", {"Traceback (most recent call last):", "  File \"t.py\", line 9, in step",
                        "RuntimeError: Connection reset by peer"});
  Failure failure = classify_failure(status, {reset});
  CHECK(failure.kind == FailureClass::kNode);
  CHECK(failure.evidence == "rank0.log: RuntimeError: Connection reset by peer on node[3-4]");

  const auto xid =
      log("slurm-42.out", {"NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus"});
  CHECK(classify_failure(failed(1, ""), {xid}).kind == FailureClass::kNode);
  const auto ecc = log("rank2.log", {"CUDA error: uncorrectable ECC error encountered"});
  CHECK(classify_failure(failed(1, ""), {ecc}).kind == FailureClass::kNode);
}

TEST_CASE("a collective that timed out is a hang") {
  const auto nccl = log("rank1.log", {"[Rank 1] Watchdog caught collective operation timeout: "
                                      "WorkNCCL(SeqNum=3, OpType=ALLREDUCE) ran for 600000 ms"});
  Failure failure = classify_failure(failed(134, ""), {nccl});
  CHECK(failure.kind == FailureClass::kHang);
  CHECK(failure.evidence.rfind("rank1.log: [Rank 1] Watchdog caught", 0) == 0);
}

TEST_CASE("a rendezvous port something held is unknown, its line the evidence") {
  const auto ours = log("rank0.log", {"scalestudy-train rank 0: failed: rendezvous port "
                                      "node1:20123 is taken on this host (address already in "
                                      "use): another process listens there"});
  Failure failure = classify_failure(failed(1, "rank 0 exited with code 1"), {ours});
  CHECK(failure.kind == FailureClass::kUnknown);
  CHECK(failure.evidence.rfind("rank0.log: scalestudy-train rank 0: failed: rendezvous port", 0) ==
        0);
  const auto python = log(
      "rank0.log", {"Traceback (most recent call last):", "  File \"/work/train.py\", line 8",
                    "torch.distributed.DistNetworkError: The server socket has failed to listen on "
                    "any local network address. port: 29500, useIpv6: false, code: -98, name: "
                    "EADDRINUSE, message: address already in use"});
  Failure torchrun = classify_failure(failed(1, "rank 0 exited with code 1"), {python});
  CHECK(torchrun.kind == FailureClass::kUnknown);
  CHECK(torchrun.evidence.find("EADDRINUSE") != std::string::npos);
  // Rank 1, on another host, met the launch that holds the port, not a dead peer.
  const auto stray = log("rank1.log", {"scalestudy-train rank 1: failed: rendezvous at TCPStore "
                                       "node1:20123 is another launch's: its rank 0 has "
                                       "SLURM_JOB_ID=1001, this rank 13769. Two launches whose "
                                       "rank 0 share a host met at one MASTER_PORT"});
  Failure met = classify_failure(failed(1, "rank 1 exited with code 1"), {stray});
  CHECK(met.kind == FailureClass::kUnknown);
  CHECK(met.evidence.rfind("rank1.log: scalestudy-train rank 1: failed: rendezvous at", 0) == 0);
  // What that store held is quoted in the line, and may read as a node's symptom.
  const auto forged = log("rank1.log", {"scalestudy-train rank 1: failed: rendezvous at TCPStore "
                                        "node1:20123 is another launch's: its rank 0 has "
                                        "SLURM_JOB_ID=1001\\x0aNVRM: Xid 79, this rank 13769."});
  CHECK(classify_failure(failed(1, "rank 1 exited with code 1"), {forged}).kind ==
        FailureClass::kUnknown);
}

TEST_CASE("a program that cannot start, and sacct's 0:53, are setup failures") {
  // The local executor's words for a binary that does not exist.
  Failure missing = classify_failure(failed(127, "rank 0 exited with code 127"), {});
  CHECK(missing.kind == FailureClass::kSetup);
  CHECK(missing.evidence ==
        "FAILED (rank 0 exited with code 127): exit 127, the program could "
        "not be started");
  const auto execute =
      log("rank0.log", {"scalestudy: cannot execute /nope/train: No such file or directory"});
  CHECK(classify_failure(failed(127, ""), {execute}).evidence ==
        "rank0.log: scalestudy: cannot execute /nope/train: No such file or directory");
  // "62|FAILED|0:53|None" read by slurm_states: exit 128 + 53.
  Failure allocation = classify_failure(failed(181, "exit code 181"), {});
  CHECK(allocation.kind == FailureClass::kSetup);
  CHECK(allocation.evidence.find("sacct 0:53") != std::string::npos);
  const auto slurmd = log("slurm-62.out", {"slurmstepd: error: Could not open stdout file "
                                           "/r/arrays/packed-1-62.out: Permission denied"});
  CHECK(classify_failure(failed(1, ""), {slurmd}).kind == FailureClass::kSetup);
  // slurmrestd's launch failure, its meaningless exit code dropped (slurmrest_json.cpp).
  JobStatus launch;
  launch.state = JobState::kFailed;
  launch.reason = "JobLaunchFailure: SLURM could not start the batch script as user nobody";
  Failure launched = classify_failure(launch, {});
  CHECK(launched.kind == FailureClass::kSetup);
  CHECK(launched.evidence.find("as user nobody") != std::string::npos);
}

TEST_CASE("the scheduler's own verdicts come first") {
  JobStatus node_fail{JobState::kNodeFail, std::nullopt, "NODE_FAIL"};
  node_fail.placement.node_list = "node2";
  Failure node = classify_failure(node_fail, {log("rank0.log", {"ValueError: late"})});
  CHECK(node.kind == FailureClass::kNode);
  CHECK(node.evidence == "NODE_FAIL (NODE_FAIL) on node2");

  Failure time = classify_failure({JobState::kTimeout, 0, "TimeLimit"},
                                  {log("rank0.log", {"step 90 loss 1.2", ""})});
  CHECK(time.kind == FailureClass::kTime);
  CHECK(time.evidence == "TIMEOUT (TimeLimit); last output: rank0.log: step 90 loss 1.2");

  // Whether it was progressing: its logs' last write before the end.
  LogTail writing = log("rank0.log", {"step 90 loss 1.2"});
  writing.quiet_s = 12;
  CHECK(classify_failure({JobState::kTimeout, 0, "TimeLimit"}, {writing}).evidence ==
        "TIMEOUT (TimeLimit); last output: rank0.log: step 90 loss 1.2 (progressing: output 12 s "
        "before the end)");
  LogTail silent = log("rank0.log", {"step 3 loss 2.0"});
  silent.quiet_s = 3600;
  CHECK(classify_failure({JobState::kTimeout, 0, "TimeLimit"}, {silent})
            .evidence.find("(not progressing: no output for 3600 s before the end)") !=
        std::string::npos);

  CHECK(classify_failure({JobState::kPreempted, std::nullopt, ""}, {}).kind ==
        FailureClass::kPreempted);
  // The workload's checkpointed stop is the time limit's (SLURM's early SIGTERM, or the local
  // executor's limit), resumed from its checkpoint; the scheduler's preemption stays one.
  const JobStatus at_limit = classify_checkpointed({JobState::kFailed, 75, "exit code 75"});
  Failure resumed = classify_failure(at_limit, {});
  CHECK(resumed.kind == FailureClass::kTime);
  CHECK(resumes_from_checkpoint(resumed.evidence));
  CHECK(classify_failure(
            classify_checkpointed({JobState::kFailed, 75, "time limit of 1 min reached"}), {})
            .kind == FailureClass::kTime);
  const JobStatus preempted = classify_checkpointed({JobState::kPreempted, 75, ""});
  CHECK(preempted.reason.rfind("preempted; checkpointed (exit 75)", 0) == 0);
  CHECK(classify_failure(preempted, {}).kind == FailureClass::kPreempted);
  Failure cancelled = classify_failure({JobState::kCancelled, 143, "CANCELLED by 1000"}, {});
  CHECK(cancelled.kind == FailureClass::kCancelled);
  CHECK(cancelled.evidence == "CANCELLED (CANCELLED by 1000)");
}

TEST_CASE("a signal: the program's own (SIGSEGV) or from outside (SIGKILL, the node's)") {
  CHECK(classify_failure(failed(139, "exit code 139"), {}).kind == FailureClass::kProgram);
  Failure killed = classify_failure(failed(137, "exit code 137"), {});
  CHECK(killed.kind == FailureClass::kNode);
  CHECK(killed.evidence.find("signal 9 came from outside the program") != std::string::npos);
  CHECK(classify_failure({JobState::kOutOfMemory, 0, "OUT_OF_MEMORY"}, {}).kind ==
        FailureClass::kProgram);
}

TEST_CASE("SIGTERM in the warning window of a SLURM time limit is the limit's, not a node's") {
  // Seen on the 26.05 cluster: a 1-minute job asking --signal TERM@15 whose workload does
  // not checkpoint; sacct: 753 FAILED 143:0, 40 s (SLURM signalled it early, as it may).
  JobStatus warned = failed(143, "exit code 143");
  warned.placement.node_list = "node2";
  warned.placement.started_at = "2026-12-06T21:18:16";
  warned.placement.ended_at = "2026-12-06T21:18:56";
  const TimeLimit one_minute{60, 15};
  LogTail progressing = log("rank0.log", {"step 38"});
  progressing.quiet_s = 1;
  Failure time = classify_failure(warned, {progressing}, one_minute);
  CHECK(time.kind == FailureClass::kTime);
  CHECK(time.evidence ==
        "FAILED (exit code 143) on node2: SIGTERM 40 s into its 60 s limit, SLURM's warning "
        "signal before the limit (--signal TERM@15); the run did not stop with a checkpoint "
        "(exit 75); last output: rank0.log: step 38 (progressing: output 1 s before the end)");
  // 40 s into a 2-hour limit the signal came from elsewhere.
  CHECK(classify_failure(warned, {}, TimeLimit{7200, 60}).kind == FailureClass::kNode);
  // No limit known (the local executor), or a packed run's step (its wrapper stops it).
  CHECK(classify_failure(warned, {}).kind == FailureClass::kNode);
  JobStatus step = warned;
  step.placement.job_step = "755.2";
  CHECK(classify_failure(step, {}, one_minute).kind == FailureClass::kNode);
  // slurmrestd's UTC times read alike; SIGKILL is not the warning.
  warned.placement.started_at = "2026-12-06T21:18:16Z";
  warned.placement.ended_at = "2026-12-06T21:18:56Z";
  CHECK(classify_failure(warned, {}, one_minute).kind == FailureClass::kTime);
  CHECK(classify_failure(failed(137, ""), {}, one_minute).kind == FailureClass::kNode);
}

TEST_CASE("unknown says which evidence was missing") {
  Failure quiet = classify_failure(failed(3, "rank 0 exited with code 3"),
                                   {log("rank0.log", {"step 1"}), log("rank1.log", {})});
  CHECK(quiet.kind == FailureClass::kUnknown);
  CHECK(quiet.evidence ==
        "FAILED (rank 0 exited with code 3): no traceback, exception, error or "
        "node line in the last lines of rank0.log, rank1.log");
  Failure lost = classify_failure(failed(std::nullopt, "lost: the submitting process 9 ended"), {});
  CHECK(lost.kind == FailureClass::kUnknown);
  CHECK(lost.evidence.find("no log of the run to read, and no exit status") != std::string::npos);
}

TEST_CASE("class names round-trip") {
  for (FailureClass kind : all_failure_classes()) {
    CHECK(parse_failure_class(to_string(kind)) == kind);
  }
  CHECK_FALSE(parse_failure_class("bogus").has_value());
  CHECK(blames_nodes(FailureClass::kHang));
  CHECK_FALSE(blames_nodes(FailureClass::kProgram));
}
