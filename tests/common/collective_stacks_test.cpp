// Which rank of a hung run did not arrive: decided from the stacks the hang watchdog wrote,
// here real dumps of a 2-rank gloo DDP script (Debian's python3-torch 1.13) whose rank 1
// sleeps in wait_for_shard_that_never_comes() while rank 0 waits in all_reduce: py-spy's
// (plain and --native) and gdb's "thread apply all bt" of the same two processes.
#include "orchestrator/common/collective_stacks.hpp"

#include <doctest/doctest.h>

using namespace scalestudy::common;

namespace {

const char kPySpyRank0[] = R"(Process 5596: /usr/bin/python3 ./ddp.py
Python v3.11.2 (/usr/bin/python3.11)

Thread 5596 (idle): "MainThread"
    all_reduce (torch/distributed/distributed_c10d.py:1541)
    main (ddp.py:17)
    <module> (ddp.py:20)
)";

const char kPySpyRank1[] = R"(Process 5597: /usr/bin/python3 ./ddp.py
Python v3.11.2 (/usr/bin/python3.11)

Thread 5597 (idle): "MainThread"
    wait_for_shard_that_never_comes (ddp.py:8)
    main (ddp.py:15)
    <module> (ddp.py:20)
)";

const char kPySpyNativeRank0[] = R"(Process 5596: /usr/bin/python3 ./ddp.py
Python v3.11.2 (/usr/bin/python3.11)

Thread 5596 (idle): "MainThread"
    0x7fadb514ff16 (libc.so.6)
    pthread_cond_wait (libc.so.6)
    c10d::Work::wait (libtorch_cpu.so.1.13.0)
    0x7fadb45a9b4e (libtorch_python.so.1.13.0)
    0x7fadb3f09a31 (libtorch_python.so.1.13.0)
    all_reduce (torch/distributed/distributed_c10d.py:1541)
    main (ddp.py:17)
    <module> (ddp.py:20)
    0x7fadb50f124a (libc.so.6)
)";

// Rank 0 under gdb: its main thread in c10d::Work::wait (torch_python has no symbols), a
// gloo worker receiving; gloo's event loop and an idle c10d work loop beside them.
const char kGdbRank0[] = R"([Thread debugging using libthread_db enabled]
Using host libthread_db library "/lib/x86_64-linux-gnu/libthread_db.so.1".
__futex_abstimed_wait_common64 (private=0, cancel=true, abstime=0x0, op=393, expected=0, futex_word=0x32e5f198) at ./nptl/futex-internal.c:57
57	./nptl/futex-internal.c: No such file or directory.

Thread 6 (Thread 0x7fad7e9a66c0 (LWP 6171) "ddp.py"):
#0  __futex_abstimed_wait_common64 (private=0, cancel=true, abstime=0x0, op=393, expected=0, futex_word=0x33ebb928) at ./nptl/futex-internal.c:57
#1  __futex_abstimed_wait_common (futex_word=futex_word@entry=0x33ebb928, expected=expected@entry=0, clockid=clockid@entry=0, abstime=abstime@entry=0x0, private=private@entry=0, cancel=cancel@entry=true) at ./nptl/futex-internal.c:87
#2  0x00007fadb514ff7b in __GI___futex_abstimed_wait_cancelable64 (futex_word=futex_word@entry=0x33ebb928, expected=expected@entry=0, clockid=clockid@entry=0, abstime=abstime@entry=0x0, private=private@entry=0) at ./nptl/futex-internal.c:139
#3  0x00007fadb51525d8 in __pthread_cond_wait_common (abstime=0x0, clockid=0, mutex=0x33ebb8d8, cond=0x33ebb900) at ./nptl/pthread_cond_wait.c:503
#4  ___pthread_cond_wait (cond=0x33ebb900, mutex=0x33ebb8d8) at ./nptl/pthread_cond_wait.c:618
#5  0x00007fadb0c6cac1 in c10d::ProcessGroupGloo::runLoop(int) () from /lib/x86_64-linux-gnu/libtorch_cpu.so.1.13
#6  0x00007fadac0d44a3 in ?? () from /lib/x86_64-linux-gnu/libstdc++.so.6
#7  0x00007fadb51531f5 in start_thread (arg=<optimized out>) at ./nptl/pthread_create.c:442
#8  0x00007fadb51d38ec in clone3 () at ../sysdeps/unix/sysv/linux/x86_64/clone3.S:81

Thread 5 (Thread 0x7fad7f1a76c0 (LWP 6170) "ddp.py"):
#0  __futex_abstimed_wait_common64 (private=0, cancel=true, abstime=0x7fad7f1a6840, op=137, expected=0, futex_word=0x7fad6c000db8) at ./nptl/futex-internal.c:57
#1  __futex_abstimed_wait_common (futex_word=futex_word@entry=0x7fad6c000db8, expected=expected@entry=0, clockid=clockid@entry=1, abstime=abstime@entry=0x7fad7f1a6840, private=private@entry=0, cancel=cancel@entry=true) at ./nptl/futex-internal.c:87
#2  0x00007fadb514ff7b in __GI___futex_abstimed_wait_cancelable64 (futex_word=futex_word@entry=0x7fad6c000db8, expected=expected@entry=0, clockid=clockid@entry=1, abstime=abstime@entry=0x7fad7f1a6840, private=private@entry=0) at ./nptl/futex-internal.c:139
#3  0x00007fadb5152baf in __pthread_cond_wait_common (abstime=<optimized out>, clockid=1, mutex=0x7fad6c000d68, cond=0x7fad6c000d90) at ./nptl/pthread_cond_wait.c:503
#4  ___pthread_cond_clockwait64 (abstime=<optimized out>, clockid=1, mutex=0x7fad6c000d68, cond=0x7fad6c000d90) at ./nptl/pthread_cond_wait.c:682
#5  ___pthread_cond_clockwait64 (cond=0x7fad6c000d90, mutex=0x7fad6c000d68, clockid=1, abstime=<optimized out>) at ./nptl/pthread_cond_wait.c:670
#6  0x00007fadabe81d6b in gloo::transport::tcp::UnboundBuffer::waitRecv(int*, std::chrono::duration<long, std::ratio<1l, 1000l> >) () from /lib/libgloo.so.0
#7  0x00007fadabe518f7 in ?? () from /lib/libgloo.so.0
#8  0x00007fadb0c6ceb5 in ?? () from /lib/x86_64-linux-gnu/libtorch_cpu.so.1.13
#9  0x00007fadb0c6c8ad in c10d::ProcessGroupGloo::AsyncWork::execute(c10::intrusive_ptr<c10d::ProcessGroupGloo::AsyncWork, c10::detail::intrusive_target_default_null_type<c10d::ProcessGroupGloo::AsyncWork> >) () from /lib/x86_64-linux-gnu/libtorch_cpu.so.1.13
#10 0x00007fadb0c6c9d4 in c10d::ProcessGroupGloo::runLoop(int) () from /lib/x86_64-linux-gnu/libtorch_cpu.so.1.13
#11 0x00007fadac0d44a3 in ?? () from /lib/x86_64-linux-gnu/libstdc++.so.6
#12 0x00007fadb51531f5 in start_thread (arg=<optimized out>) at ./nptl/pthread_create.c:442
#13 0x00007fadb51d38ec in clone3 () at ../sysdeps/unix/sysv/linux/x86_64/clone3.S:81

Thread 4 (Thread 0x7fad7f9a86c0 (LWP 6167) "ddp.py"):
#0  0x00007fadb51d2f36 in epoll_wait (epfd=14, events=0x7fad7f9a7b80, maxevents=64, timeout=10) at ../sysdeps/unix/sysv/linux/epoll_wait.c:30
#1  0x00007fadabe73ecf in gloo::transport::tcp::Loop::run() () from /lib/libgloo.so.0
#2  0x00007fadac0d44a3 in ?? () from /lib/x86_64-linux-gnu/libstdc++.so.6
#3  0x00007fadb51531f5 in start_thread (arg=<optimized out>) at ./nptl/pthread_create.c:442
#4  0x00007fadb51d38ec in clone3 () at ../sysdeps/unix/sysv/linux/x86_64/clone3.S:81

Thread 1 (Thread 0x7fadb50c92c0 (LWP 5596) "ddp.py"):
#0  __futex_abstimed_wait_common64 (private=0, cancel=true, abstime=0x0, op=393, expected=0, futex_word=0x32e5f198) at ./nptl/futex-internal.c:57
#1  __futex_abstimed_wait_common (futex_word=futex_word@entry=0x32e5f198, expected=expected@entry=0, clockid=clockid@entry=0, abstime=abstime@entry=0x0, private=private@entry=0, cancel=cancel@entry=true) at ./nptl/futex-internal.c:87
#2  0x00007fadb514ff7b in __GI___futex_abstimed_wait_cancelable64 (futex_word=futex_word@entry=0x32e5f198, expected=expected@entry=0, clockid=clockid@entry=0, abstime=abstime@entry=0x0, private=private@entry=0) at ./nptl/futex-internal.c:139
#3  0x00007fadb51525d8 in __pthread_cond_wait_common (abstime=0x0, clockid=0, mutex=0x32e5f148, cond=0x32e5f170) at ./nptl/pthread_cond_wait.c:503
#4  ___pthread_cond_wait (cond=0x32e5f170, mutex=0x32e5f148) at ./nptl/pthread_cond_wait.c:618
#5  0x00007fadb0cc2843 in c10d::Work::wait(std::chrono::duration<long, std::ratio<1l, 1000l> >) () from /lib/x86_64-linux-gnu/libtorch_cpu.so.1.13
#6  0x00007fadb45a9b4e in ?? () from /lib/x86_64-linux-gnu/libtorch_python.so.1.13
#7  0x00007fadb3f09a31 in ?? () from /lib/x86_64-linux-gnu/libtorch_python.so.1.13
#8  0x0000000000547b96 in ?? ()
#9  0x0000000000517fc3 in _PyObject_MakeTpCall ()
#10 0x000000000052b9e0 in _PyEval_EvalFrameDefault ()
#11 0x00000000005236bb in PyEval_EvalCode ()
#12 0x0000000000647d97 in ?? ()
#13 0x00000000006456ef in ?? ()
#14 0x0000000000651770 in ?? ()
#15 0x00000000006514bb in _PyRun_SimpleFileObject ()
#16 0x00000000006512e4 in _PyRun_AnyFileObject ()
#17 0x000000000065007f in Py_RunMain ()
#18 0x0000000000627d37 in Py_BytesMain ()
#19 0x00007fadb50f124a in __libc_start_call_main (main=main@entry=0x627ca0, argc=argc@entry=2, argv=argv@entry=0x7ffe0c17fa88) at ../sysdeps/nptl/libc_start_call_main.h:58
#20 0x00007fadb50f1305 in __libc_start_main_impl (main=0x627ca0, argc=2, argv=0x7ffe0c17fa88, init=<optimized out>, fini=<optimized out>, rtld_fini=<optimized out>, stack_end=0x7ffe0c17fa78) at ../csu/libc-start.c:360
#21 0x0000000000627bd1 in _start ()
[Inferior 1 (process 5596) detached]
)";

// Rank 1 under gdb: the same background threads, idle; its main thread sleeps.
const char kGdbRank1[] = R"([Thread debugging using libthread_db enabled]
Using host libthread_db library "/lib/x86_64-linux-gnu/libthread_db.so.1".
0x00007fddef144545 in __GI___clock_nanosleep (clock_id=1, flags=1, req=0x7ffc21a0ad80, rem=0x0) at ../sysdeps/unix/sysv/linux/clock_nanosleep.c:48
48	../sysdeps/unix/sysv/linux/clock_nanosleep.c: No such file or directory.

Thread 5 (Thread 0x7fddb91656c0 (LWP 9989) "ddp.py"):
#0  __futex_abstimed_wait_common64 (private=0, cancel=true, abstime=0x0, op=393, expected=0, futex_word=0x186688e8) at ./nptl/futex-internal.c:57
#1  __futex_abstimed_wait_common (futex_word=futex_word@entry=0x186688e8, expected=expected@entry=0, clockid=clockid@entry=0, abstime=abstime@entry=0x0, private=private@entry=0, cancel=cancel@entry=true) at ./nptl/futex-internal.c:87
#2  0x00007fddef0faf7b in __GI___futex_abstimed_wait_cancelable64 (futex_word=futex_word@entry=0x186688e8, expected=expected@entry=0, clockid=clockid@entry=0, abstime=abstime@entry=0x0, private=private@entry=0) at ./nptl/futex-internal.c:139
#3  0x00007fddef0fd5d8 in __pthread_cond_wait_common (abstime=0x0, clockid=0, mutex=0x18668898, cond=0x186688c0) at ./nptl/pthread_cond_wait.c:503
#4  ___pthread_cond_wait (cond=0x186688c0, mutex=0x18668898) at ./nptl/pthread_cond_wait.c:618
#5  0x00007fddeac6cac1 in c10d::ProcessGroupGloo::runLoop(int) () from /lib/x86_64-linux-gnu/libtorch_cpu.so.1.13
#6  0x00007fdde60d44a3 in ?? () from /lib/x86_64-linux-gnu/libstdc++.so.6
#7  0x00007fddef0fe1f5 in start_thread (arg=<optimized out>) at ./nptl/pthread_create.c:442
#8  0x00007fddef17e8ec in clone3 () at ../sysdeps/unix/sysv/linux/x86_64/clone3.S:81

Thread 3 (Thread 0x7fddba1676c0 (LWP 9983) "ddp.py"):
#0  0x00007fddef17df36 in epoll_wait (epfd=7, events=0x7fddba166b80, maxevents=64, timeout=10) at ../sysdeps/unix/sysv/linux/epoll_wait.c:30
#1  0x00007fdde5e73ecf in gloo::transport::tcp::Loop::run() () from /lib/libgloo.so.0
#2  0x00007fdde60d44a3 in ?? () from /lib/x86_64-linux-gnu/libstdc++.so.6
#3  0x00007fddef0fe1f5 in start_thread (arg=<optimized out>) at ./nptl/pthread_create.c:442
#4  0x00007fddef17e8ec in clone3 () at ../sysdeps/unix/sysv/linux/x86_64/clone3.S:81

Thread 1 (Thread 0x7fddef0742c0 (LWP 9614) "ddp.py"):
#0  0x00007fddef144545 in __GI___clock_nanosleep (clock_id=1, flags=1, req=0x7ffc21a0ad80, rem=0x0) at ../sysdeps/unix/sysv/linux/clock_nanosleep.c:48
#1  0x00000000005d64b4 in ?? ()
#2  0x0000000000545963 in ?? ()
#3  0x000000000053acbc in PyObject_Vectorcall ()
#4  0x000000000052b9e0 in _PyEval_EvalFrameDefault ()
#5  0x00000000005236bb in PyEval_EvalCode ()
#6  0x0000000000647d97 in ?? ()
#7  0x00000000006456ef in ?? ()
#8  0x0000000000651770 in ?? ()
#9  0x00000000006514bb in _PyRun_SimpleFileObject ()
#10 0x00000000006512e4 in _PyRun_AnyFileObject ()
#11 0x000000000065007f in Py_RunMain ()
#12 0x0000000000627d37 in Py_BytesMain ()
#13 0x00007fddef09c24a in __libc_start_call_main (main=main@entry=0x627ca0, argc=argc@entry=2, argv=argv@entry=0x7ffc21a0b368) at ../sysdeps/nptl/libc_start_call_main.h:58
#14 0x00007fddef09c305 in __libc_start_main_impl (main=0x627ca0, argc=2, argv=0x7ffc21a0b368, init=<optimized out>, fini=<optimized out>, rtld_fini=<optimized out>, stack_end=0x7ffc21a0b358) at ../csu/libc-start.c:360
#15 0x0000000000627bd1 in _start ()
[Inferior 1 (process 9614) detached]
)";

}  // namespace

TEST_CASE("py-spy dumps: the rank outside a collective is named, with what the other waits in") {
  CHECK(collective_waited_in(kPySpyRank0) == "all_reduce");
  CHECK(collective_waited_in(kPySpyRank1) == "");
  CHECK(collective_waited_in(kPySpyNativeRank0) == "all_reduce");
  CHECK(ranks_not_in_collective({{0, kPySpyRank0}, {1, kPySpyRank1}}) ==
        "rank 1 not in a collective (rank 0 waits in all_reduce)");
}

TEST_CASE("gdb dumps: idle gloo and c10d threads are no collective; a wait on one in flight is") {
  CHECK(collective_waited_in(kGdbRank0) == "c10d::Work::wait");
  CHECK(collective_waited_in(kGdbRank1) == "");
  CHECK(ranks_not_in_collective({{0, kGdbRank0}, {1, kGdbRank1}}) ==
        "rank 1 not in a collective (rank 0 waits in c10d::Work::wait)");
}

TEST_CASE("C++ collectives are named by their frame; a thread pool's barrier is none") {
  const std::string communicator =
      "Thread 1 (Thread 0x7f (LWP 12) \"train\"):\n"
      "#0  0x00007f in __futex_abstimed_wait_common64 (private=0) at futex-internal.c:57\n"
      "#1  0x00007f in gloo::allreduce(gloo::AllreduceOptions&) () from /lib/libgloo.so.0\n"
      "#2  0x00007f in scalestudy::dist::GlooProcessGroup::allreduce_tensor(at::Tensor const&, "
      "scalestudy::dist::ScalarReduction) () at harness/dist/gloo_process_group.cpp:88\n";
  CHECK(collective_waited_in(communicator) == "allreduce");
  const std::string nccl = "#3  0x00007f in ncclAllReduce () from /lib/libnccl.so.2\n";
  CHECK(collective_waited_in(nccl) == "ncclAllReduce");
  const std::string openmp =
      "#0  0x00007f in gomp_barrier_wait_end () from /lib/x86_64-linux-gnu/libgomp.so.1\n"
      "#1  0x00007f in gomp_thread_start () from /lib/x86_64-linux-gnu/libgomp.so.1\n";
  CHECK(collective_waited_in(openmp) == "");
}

TEST_CASE("several ranks each way; a dump without frames says nothing of its rank") {
  const std::string failed =
      "Error: Permission Denied: Try running again with elevated permissions\n";
  CHECK_FALSE(collective_waited_in(failed).has_value());
  CHECK(ranks_not_in_collective(
            {{0, kPySpyRank0}, {1, kPySpyRank1}, {2, kGdbRank0}, {3, kPySpyRank1}, {4, failed}}) ==
        "ranks 1, 3 not in a collective (rank 0 waits in all_reduce; rank 2 in "
        "c10d::Work::wait)");
  // Everyone in a collective, nobody in one, or nothing readable: nothing to say.
  CHECK(ranks_not_in_collective({{0, kPySpyRank0}, {1, kPySpyRank0}}) == "");
  CHECK(ranks_not_in_collective({{0, kPySpyRank1}, {1, kGdbRank1}}) == "");
  CHECK(ranks_not_in_collective({{0, kPySpyRank0}, {1, failed}}) == "");
  CHECK(ranks_not_in_collective({}) == "");
}
