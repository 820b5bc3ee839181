// HoldingRelay: a relay in front of slurmrestd's unix socket for one submitter under test
// (its SCALESTUDY_SLURMRESTD = url()). It passes every request on, but holds the first job
// submission (POST .../job/submit) back until release(): a test acts between a submitter's
// claim and its job's existence, as a stopping sbatch lets it through sbatch. Runs
// /usr/bin/python3 DIR/relay.py; header-only, for the cluster suites.
#pragma once

#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

#include "orchestrator/common/process_runner.hpp"
#include "tests/support/cli_test_support.hpp"

namespace scalestudy::testing {

class HoldingRelay {
 public:
  // Relays a socket of its own to slurmrestd's ($SCALESTUDY_SLURMRESTD, unix:PATH). The
  // socket lives in /tmp under a short name: a unix socket's path holds at most 107 bytes,
  // which a case folder under a cluster's work folder can exceed.
  explicit HoldingRelay(const std::filesystem::path& dir)
      : script_((dir / "relay.py").string()),
        socket_("/tmp/scalestudy-relay-" + std::to_string(std::hash<std::string>{}(dir.string())) +
                ".sock"),
        held_((dir / "relay.held").string()),
        release_((dir / "relay.release").string()) {
    for (const std::string& stale : {socket_, held_, release_}) std::filesystem::remove(stale);
    std::ofstream(script_) << R"py(import os, socket, sys, threading, time
listen, target, held, release = sys.argv[1:5]
def pipe(source, sink, hold):
    while True:
        data = source.recv(65536)
        if hold and b"POST " in data and b"/job/submit" in data:
            open(held, "w").close()
            while not os.path.exists(release):
                time.sleep(0.1)
        if not data:
            sink.shutdown(socket.SHUT_WR)
            return
        sink.sendall(data)
server = socket.socket(socket.AF_UNIX)
server.bind(listen)
server.listen(16)
while True:
    client, _ = server.accept()
    upstream = socket.socket(socket.AF_UNIX)
    upstream.connect(target)
    threading.Thread(target=pipe, args=(client, upstream, True), daemon=True).start()
    threading.Thread(target=pipe, args=(upstream, client, False), daemon=True).start()
)py";
    const char* url = std::getenv("SCALESTUDY_SLURMRESTD");
    const std::string target = url != nullptr ? url : "";
    if (target.rfind("unix:", 0) != 0) return;
    relay_ = std::thread([this, target] {
      common::run_process(
          {{"/usr/bin/python3", script_, socket_, target.substr(5), held_, release_}, {}, 600'000});
    });
    for (int tries = 0; tries < 100 && !std::filesystem::exists(socket_); ++tries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  HoldingRelay(const HoldingRelay&) = delete;
  HoldingRelay& operator=(const HoldingRelay&) = delete;
  ~HoldingRelay() {
    release();
    if (!relay_.joinable()) return;
    for (pid_t pid : processes_mentioning(script_)) kill(pid, SIGTERM);
    relay_.join();
    std::filesystem::remove(socket_);
  }

  // Whether it relays (slurmrestd is on a unix socket and the relay listens).
  bool ready() const { return std::filesystem::exists(socket_); }
  std::string url() const { return "unix:" + socket_; }
  // Whether a submission is held back now (or was, before release()).
  bool holding() const { return std::filesystem::exists(held_); }
  void release() const { std::ofstream(release_).close(); }

 private:
  const std::string script_, socket_, held_, release_;
  std::thread relay_;
};

}  // namespace scalestudy::testing
