// A slurmrestd URL that would carry the user's token in clear text over a network is
// refused before anything is sent; unix sockets, https and loopback http are accepted.
#include <doctest/doctest.h>

#include "orchestrator/sched/slurmrest_scheduler.hpp"

using namespace scalestudy::sched;

namespace {

std::string created(const std::string& url) {
  SlurmRestOptions options;
  options.rest_url = url;
  auto scheduler = SlurmRestScheduler::create(options);
  return scheduler.is_ok() ? "ok" : scheduler.status().message();
}

}  // namespace

TEST_CASE("slurmrest: plain http to another host is refused, loopback and https are not") {
  for (const char* url :
       {"http://10.1.2.3:6820", "http://slurm.example.org", "http://user@rest.cluster:6820/",
        "http://[2001:db8::1]:6820", "http://127.0.0.1.evil.example:6820"}) {
    CAPTURE(url);
    const std::string message = created(url);
    CHECK(message.find("plain http to '") != std::string::npos);
    CHECK(message.find("https://") != std::string::npos);
  }
  for (const char* url : {"http://localhost:6820", "http://127.0.0.1:6820", "http://[::1]:6820",
                          "https://slurm.example.org:6820", "unix:/run/slurmrestd.sock"}) {
    CAPTURE(url);
    CHECK(created(url) == "ok");
  }
}
